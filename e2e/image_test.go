package e2e

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// imageMaxBytes is the size the container image must stay under.
const imageMaxBytes = 25 << 20

// TestContainerImage builds the image with scripts/image.sh and runs its
// default command under podman, its ports published on loopback: the
// metadata endpoint and the admin API answer from the host (with the token
// the server wrote in the volume), a VM restarted through the CLI gets its
// event, and podman stop (SIGTERM) ends it within --shutdown-timeout, given
// as FOREWARN_SHUTDOWN_TIMEOUT, with exit status 0. Without podman and runc
// it is skipped, or fails if FOREWARN_REQUIRE_PODMAN=1 (scripts/test.sh sets
// it as root).
func TestContainerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a container image")
	}
	requirePodman(t)
	image := buildImage(t)
	c := runImage(t, image, "--env", "FOREWARN_SHUTDOWN_TIMEOUT=5s", "--env", "FOREWARN_LOCATION=container-e2e")
	token := c.token(t)
	tokenFile := writeToken(t, token)
	fleet := admin.NewClient("http://"+c.admAddr, token)
	ctx := context.Background()

	// The host reaches the metadata endpoint through the published port,
	// from an address of the container network's (podman's gateway,
	// 10.88.0.1, with its default network): a VM owns it here.
	vm := c.callerVM(t, fleet)
	t.Logf("the host calls the metadata endpoint as VM %s", vm)
	if code, body := c.metadata(t, "/metadata/instance?api-version=2021-02-01"); code != http.StatusOK ||
		!strings.Contains(body, `"location":"container-e2e"`) {
		t.Errorf("instance metadata: %d %s (want the location of $FOREWARN_LOCATION)", code, body)
	}

	out, err := exec.Command(binary, "vm", "restart", vm, "--server", "http://"+c.admAddr,
		"--token-file", tokenFile).CombinedOutput()
	if err != nil {
		t.Fatalf("forewarn vm restart %s: %v\n%s", vm, err, out)
	}
	if events, _, err := fleet.Events(ctx, forewarn.EventQuery{}); err != nil || len(events) != 1 {
		t.Fatalf("admin API events: %v, %v", events, err)
	}
	code, body := c.metadata(t, "/metadata/scheduledevents?api-version=2020-07-01")
	var doc struct {
		Events []struct {
			EventType, EventStatus string
			Resources              []string
		}
	}
	if err := json.Unmarshal([]byte(body), &doc); code != http.StatusOK || err != nil {
		t.Fatalf("scheduled events: %d %s (%v)", code, body, err)
	}
	if len(doc.Events) != 1 || doc.Events[0].EventType != "Reboot" || len(doc.Events[0].Resources) != 1 ||
		doc.Events[0].Resources[0] != vm {
		t.Errorf("scheduled events after vm restart %s: %s", vm, body)
	}

	if out, err := exec.Command(binary, "status", "--server", "http://"+c.admAddr,
		"--token-file", tokenFile).CombinedOutput(); err != nil || !strings.Contains(string(out), " e2e ") {
		t.Errorf("forewarn status: the version stamped by scripts/image.sh (e2e) is missing (%v):\n%s", err, out)
	}
	c.checkCertificates(t)

	start := time.Now()
	if out, err := podman(t, "stop", "--time", "30", c.name); err != nil {
		t.Fatalf("podman stop: %v\n%s", err, out)
	}
	took := time.Since(start)
	t.Logf("podman stop took %v", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("podman stop took %v, more than FOREWARN_SHUTDOWN_TIMEOUT's 5s", took.Round(time.Millisecond))
	}
	status, _ := podman(t, "inspect", "--format", "{{.State.ExitCode}}", c.name)
	if strings.TrimSpace(status) != "0" {
		t.Errorf("exit status %s after SIGTERM, want 0\n%s", status, c.logs(t))
	}
	if logs := c.logs(t); !strings.Contains(logs, `msg="shutting down"`) || strings.Contains(logs, "level=ERROR") {
		t.Errorf("log of a clean stop:\n%s", logs)
	}
}

// requirePodman skips the test if podman or runc is missing, or podman
// cannot run here, or fails it if FOREWARN_REQUIRE_PODMAN=1.
func requirePodman(t *testing.T) {
	t.Helper()
	unavailable := func(why string) {
		t.Helper()
		if os.Getenv("FOREWARN_REQUIRE_PODMAN") == "1" {
			t.Fatal(why + " (FOREWARN_REQUIRE_PODMAN=1)")
		}
		t.Skip(why)
	}
	for _, prog := range []string{"podman", "runc"} {
		if _, err := exec.LookPath(prog); err != nil {
			unavailable(prog + " is not installed (scripts/deps.sh installs it)")
		}
	}
	if out, err := podman(t, "info"); err != nil {
		unavailable(fmt.Sprintf("podman cannot run here: podman info: %v\n%s", err, out))
	}
}

// podman runs podman with args and returns its combined output.
func podman(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "podman", args...).CombinedOutput()
	return string(out), err
}

// buildImage builds the image with scripts/image.sh under a tag of this
// test's, checks its size, and removes it at the end of the test.
func buildImage(t *testing.T) string {
	t.Helper()
	tag := fmt.Sprintf("e2e-%d", os.Getpid())
	cmd := exec.Command("../scripts/image.sh", tag)
	cmd.Env = append(os.Environ(), "VERSION=e2e")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/image.sh: %v\n%s", err, stderr.String())
	}
	image := strings.TrimSpace(string(out))
	if image != "forewarn:"+tag {
		t.Fatalf("scripts/image.sh printed %q, want forewarn:%s", image, tag)
	}
	t.Cleanup(func() { podman(t, "rmi", "--force", image) })
	size, err := podman(t, "image", "inspect", "--format", "{{.Size}}", image)
	if err != nil {
		t.Fatalf("podman image inspect: %v\n%s", err, size)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(size), 10, 64)
	if err != nil || n >= imageMaxBytes {
		t.Errorf("image size %q (%v), want under %d bytes", size, err, imageMaxBytes)
	}
	t.Logf("%s: %.1f MB", image, float64(n)/1e6)
	checkImageConfig(t, image)
	return image
}

// checkImageConfig checks what the image runs, as whom, and where it keeps
// its state.
func checkImageConfig(t *testing.T, image string) {
	t.Helper()
	out, err := podman(t, "image", "inspect", "--format", "{{json .Config}}", image)
	if err != nil {
		t.Fatalf("podman image inspect: %v\n%s", err, out)
	}
	var config struct {
		User       string
		Entrypoint []string
		Volumes    map[string]struct{}
		Labels     map[string]string
	}
	if err := json.Unmarshal([]byte(out), &config); err != nil {
		t.Fatalf("image config %s: %v", out, err)
	}
	if _, ok := config.Volumes["/data"]; config.User != "65532:65532" || len(config.Entrypoint) != 1 ||
		config.Entrypoint[0] != "forewarn" || !ok || config.Labels["org.opencontainers.image.version"] != "e2e" {
		t.Errorf("image config: %s", out)
	}
}

// container is a running container of the image.
type container struct {
	name, volume      string
	metaAddr, admAddr string // published on the host's loopback
}

// runImage runs image's default command, with its ports published on
// free loopback ports and /data on a volume of its own, and waits until
// both listeners answer. It and its volume are removed at the end of the
// test.
func runImage(t *testing.T, image string, extra ...string) *container {
	t.Helper()
	c := &container{name: fmt.Sprintf("forewarn-e2e-%d", os.Getpid()), metaAddr: freeAddr(t), admAddr: freeAddr(t)}
	c.volume = c.name
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("container log:\n%s", c.logs(t))
		}
		podman(t, "rm", "--force", "--time", "0", c.name)
		podman(t, "volume", "rm", "--force", c.volume)
	})
	args := append([]string{"run", "--detach", "--name", c.name, "--hostname", "forewarn-e2e"}, podmanLimits(t)...)
	args = append(args, "--publish", c.metaAddr+":8169", "--publish", c.admAddr+":8170",
		"--volume", c.volume+":/data")
	args = append(append(args, extra...), image)
	if out, err := podman(t, args...); err != nil {
		t.Fatalf("podman run: %v\n%s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, url := range []string{"http://" + c.admAddr + "/healthz", "http://" + c.metaAddr + "/forewarn-e2e-ready"} {
		for !answers(url) {
			if running, _ := podman(t, "inspect", "--format", "{{.State.Running}}", c.name); strings.TrimSpace(running) != "true" {
				t.Fatalf("the container stopped at start")
			}
			if time.Now().After(deadline) {
				t.Fatalf("the container never answered on %s", url)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return c
}

// podmanLimits returns the flags podman needs on these machines: runc,
// since crun cannot set rlimits here, and rlimits within the host's hard
// limits, which runc otherwise fails to raise to podman's defaults.
func podmanLimits(t *testing.T) []string {
	t.Helper()
	limit := func(resource int) uint64 {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(resource, &r); err != nil {
			t.Fatal(err)
		}
		return min(r.Max, 4096)
	}
	const rlimitNproc = 6 // RLIMIT_NPROC on Linux; package syscall does not name it
	nofile, nproc := limit(syscall.RLIMIT_NOFILE), limit(rlimitNproc)
	return []string{"--runtime", "runc",
		"--ulimit", fmt.Sprintf("nofile=%d:%d", nofile, nofile),
		"--ulimit", fmt.Sprintf("nproc=%d:%d", nproc, nproc)}
}

// logs returns the container's log.
func (c *container) logs(t *testing.T) string {
	out, _ := podman(t, "logs", c.name)
	return out
}

// token returns the admin token serve wrote in the volume, and checks that
// only the image's user (65532) may read it.
func (c *container) token(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("podman", "cp", c.name+":/data/admin.token", "-").Output()
	if err != nil {
		t.Fatalf("podman cp %s:/data/admin.token: %v", c.name, err)
	}
	tr := tar.NewReader(bytes.NewReader(out))
	h, err := tr.Next()
	if err != nil {
		t.Fatalf("podman cp's archive: %v", err)
	}
	if h.Uid != 65532 || h.Mode&0o077 != 0 {
		t.Errorf("admin.token: uid %d, mode %o; want uid 65532 and no access for others", h.Uid, h.Mode)
	}
	token, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(token))
}

// checkCertificates checks that the image holds the CA certificates Go's
// TLS clients trust by default (an etcd store's without --etcd-ca).
func (c *container) checkCertificates(t *testing.T) {
	t.Helper()
	const path = "/etc/ssl/certs/ca-certificates.crt"
	out, err := exec.Command("podman", "cp", c.name+":"+path, "-").Output()
	if err != nil {
		t.Fatalf("podman cp %s:%s: %v", c.name, path, err)
	}
	tr := tar.NewReader(bytes.NewReader(out))
	if _, err := tr.Next(); err != nil {
		t.Fatalf("podman cp's archive: %v", err)
	}
	pem, _ := io.ReadAll(tr)
	if n := bytes.Count(pem, []byte("BEGIN CERTIFICATE")); n < 50 {
		t.Errorf("%s holds %d certificates, want Debian's (more than 100)", path, n)
	}
}

// writeToken writes token to a file of its own, for the CLI's --token-file.
func writeToken(t *testing.T, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "admin.token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// callerVM returns the VM the host is to the metadata endpoint: the
// container's own VM (forewarn-e2e) if its request arrives from loopback,
// else a VM created through the admin API with the address the 403 names.
func (c *container) callerVM(t *testing.T, fleet *admin.Client) string {
	t.Helper()
	code, body := c.metadata(t, "/metadata/scheduledevents?api-version=2020-07-01")
	if code == http.StatusOK {
		return "forewarn-e2e"
	}
	m := regexp.MustCompile(`The address (\S+) belongs to no VM`).FindStringSubmatch(body)
	if code != http.StatusForbidden || m == nil {
		t.Fatalf("first metadata request: %d %s", code, body)
	}
	vm, err := fleet.CreateVM(context.Background(), forewarn.VMSpec{Name: "ci-job", Addresses: []string{m[1]}})
	if err != nil {
		t.Fatalf("create the VM of %s: %v", m[1], err)
	}
	return vm.Name
}

// metadata GETs path of the metadata endpoint, as a VM does.
func (c *container) metadata(t *testing.T, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+c.metaAddr+path, nil)
	req.Header.Set("Metadata", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
