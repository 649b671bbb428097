package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/etcdtest"
)

// spaceQuota is the quota of the etcd that TestEtcdOutOfSpace fills: a
// few dozen batches of scopes.
const spaceQuota = 512 << 10

// quotaFlag is what the answer to a write refused for space must name.
const quotaFlag = "--quota-backend-bytes"

// adminCall makes a request of s's admin API with the token, and returns
// the status and the body.
func adminCall(t *testing.T, s *server, token, method, path, body string) (int, string) {
	t.Helper()
	code, answer, err := tryCall(t.Context(), http.DefaultClient, token, method, "http://"+s.admAddr+path, body)
	if err != nil {
		t.Fatal(err)
	}
	return code, answer
}

// tryCall is a request for goroutines other than the test's: with the
// admin token if token is set, else as the metadata endpoint wants.
func tryCall(ctx context.Context, c *http.Client, token, method, url, body string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute) // a guard: every answer comes first
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Header.Set("Metadata", "true")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: read the answer: %w", method, url, err)
	}
	return resp.StatusCode, string(b), nil
}

// TestEtcdOutOfSpace: once etcd reaches its quota, a write answers 503
// with a message that names the quota, and writes nothing; reads go on,
// the metadata endpoint answers an enabled scope from memory, serve keeps
// running, and once the operator makes room and disarms the alarm, as the
// README says, writes work again.
func TestEtcdOutOfSpace(t *testing.T) {
	const token = "e2e-shared-token"
	tokenFile, fleetFile := replicaFiles(t, token, replicaFleet)
	var etcdCfg *embed.Config
	stopEtcd, endpoint := etcdtest.StartWith(t, "forewarn-e2e-space", func(cfg *embed.Config) {
		cfg.QuotaBackendBytes = spaceQuota
		etcdCfg = cfg
	})
	s := startReplica(t, fmt.Sprintf("etcd://%s/e2e-space", endpoint), tokenFile, fleetFile, "--replica-id", "hv-a")
	url := "http://" + s.metaAddr + "/metadata/scheduledevents?api-version=2020-07-01"
	if code, body := call(t, from(t, "127.0.0.2"), "GET", url, ""); code != http.StatusOK { // enables the scope
		t.Fatalf("the metadata endpoint: %d %s", code, body)
	}

	batches := fill(t, s)
	t.Logf("etcd out of space after %d batches", batches)

	// The CLI says why, and the API answers 503 unavailable, naming the
	// quota, and writes nothing.
	out, err := exec.Command(binary, "scope", "create", "after-full", "--server", "http://"+s.admAddr, "--token-file", tokenFile).CombinedOutput()
	if err == nil || !strings.Contains(string(out), quotaFlag) || !strings.Contains(string(out), "etcdctl defrag") {
		t.Errorf("forewarn scope create on a full etcd: %v\n%s", err, out)
	}
	code, body := adminCall(t, s, token, "POST", "/v1/scopes", `{"name":"after-full-too"}`)
	var answer struct{ Error, Code string }
	if err := json.Unmarshal([]byte(body), &answer); err != nil || code != http.StatusServiceUnavailable ||
		answer.Code != "unavailable" || !strings.Contains(answer.Error, quotaFlag) || !strings.Contains(answer.Error, "etcdctl alarm disarm") {
		t.Errorf("POST /v1/scopes on a full etcd: %d %s", code, body)
	}
	for _, name := range []string{"after-full", "after-full-too", fillName(batches, 0), fillName(batches, fillBatch-1)} {
		if code, body := adminCall(t, s, token, "GET", "/v1/scopes/"+name, ""); code != http.StatusNotFound {
			t.Errorf("scope %s, whose creation failed: %d %s", name, code, body)
		}
	}
	if code, body := adminCall(t, s, token, "GET", "/v1/scopes/"+fillName(batches-1, 0), ""); code != http.StatusOK {
		t.Errorf("a scope created before etcd was full: %d %s", code, body)
	}
	if code, body := call(t, from(t, "127.0.0.2"), "GET", url, ""); code != http.StatusOK {
		t.Errorf("the metadata endpoint on a full etcd: %d %s", code, body)
	}
	select {
	case err := <-s.exited:
		s.exited <- err
		t.Fatalf("serve exited on a full etcd: %v", err)
	default:
	}
	if !strings.Contains(s.log.String(), quotaFlag) {
		t.Errorf("serve logged no failed write naming the quota")
	}

	// What the README says: compact, defragment; the scopes fill etcd, not
	// their history, so raise the quota too (a restart of the member);
	// then disarm.
	compactDefrag(t, endpoint)
	stopEtcd()
	etcdCfg.QuotaBackendBytes = 4 * spaceQuota
	restartEtcd(t, etcdCfg)
	disarm(t, endpoint)
	eventually(t, 30*time.Second, "a scope created after the alarm is disarmed", func() bool {
		_, err := s.admin.CreateScope(t.Context(), forewarn.ScopeSpec{Name: "after-recovery"})
		return err == nil
	})
}

// fillName names the j-th scope of the i-th batch of fill.
func fillName(i, j int) string { return fmt.Sprintf("fill-%04d-%02d", i, j) }

// fillBatch is how many scopes fill creates a request: within etcd's
// --max-txn-ops (128), with the store's own key.
const fillBatch = 120

// fill creates scopes through s's admin API, a batch at a time, until a
// batch fails: that must be with ErrUnavailable, saying that etcd is out of
// space. It returns the number of the failed batch.
func fill(t *testing.T, s *server) int {
	t.Helper()
	for i := range 1000 {
		specs := make([]forewarn.ScopeSpec, fillBatch)
		for j := range specs {
			specs[j] = forewarn.ScopeSpec{Name: fillName(i, j)}
		}
		err := s.admin.CreateBatch(t.Context(), specs, nil)
		switch {
		case err == nil:
			continue
		case !errors.Is(err, forewarn.ErrUnavailable) || !strings.Contains(err.Error(), quotaFlag):
			t.Fatalf("batch %d: %v, want ErrUnavailable naming %s", i, err, quotaFlag)
		}
		return i
	}
	t.Fatalf("etcd has room for 1000 batches: is its quota %d?", spaceQuota)
	return 0
}

// etcdClient returns a client of the etcd at endpoint, closed on cleanup.
func etcdClient(t *testing.T, endpoint string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// compactDefrag compacts etcd's history at its current revision and
// defragments it (etcdctl compact, etcdctl defrag).
func compactDefrag(t *testing.T, endpoint string) {
	t.Helper()
	c := etcdClient(t, endpoint)
	st, err := c.Status(t.Context(), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compact(t.Context(), st.Header.Revision); err != nil {
		t.Fatalf("compact: %v", err)
	}
	if _, err := c.Defragment(t.Context(), endpoint); err != nil {
		t.Fatalf("defrag: %v", err)
	}
}

// disarm disarms etcd's NOSPACE alarm (etcdctl alarm disarm).
func disarm(t *testing.T, endpoint string) {
	t.Helper()
	c := etcdClient(t, endpoint)
	st, err := c.Status(t.Context(), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	alarm := &clientv3.AlarmMember{MemberID: st.Header.MemberId, Alarm: etcdserverpb.AlarmType_NOSPACE}
	if _, err := c.AlarmDisarm(t.Context(), alarm); err != nil {
		t.Fatalf("disarm: %v", err)
	}
}

// restartEtcd starts an embedded etcd again on cfg, its directory and
// addresses, closed on cleanup.
func restartEtcd(t *testing.T, cfg *embed.Config) {
	t.Helper()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("restart embedded etcd: %v", err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		t.Fatalf("embedded etcd: %v", err)
	case <-time.After(time.Minute): // a guard, not a wait: ready comes first
		t.Fatal("embedded etcd not ready after a minute")
	}
}
