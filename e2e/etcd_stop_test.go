package e2e

import (
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// stopBound is the --admin-request-timeout of TestEtcdStopped, and
// stopMargin what an answer may take beyond it on a loaded machine.
const (
	stopBound  = 5 * time.Second
	stopMargin = 5 * time.Second
)

// stopFleet is replicaFleet and a scope whose VM asks nothing before etcd
// stops.
const stopFleet = replicaFleet + `  - name: db
    vms:
      - {name: db-0, addresses: [127.0.0.4]}
`

// enableBound is how long the metadata endpoint waits for the store write
// that enables a scope (fabric's storeTimeout).
const enableBound = 10 * time.Second

// answer is what a request got, and after how long.
type answer struct {
	code int
	body string
	err  error
	took time.Duration
}

// timed runs a request in a goroutine and returns where its answer comes.
func timed(do func() (int, string, error)) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		start := time.Now()
		code, body, err := do()
		ch <- answer{code, body, err, time.Since(start)}
	}()
	return ch
}

// TestEtcdStopped: with etcd stopped (SIGSTOP: its connections stay open
// and nothing answers), the admin API's writes and reads answer 503
// unavailable within --admin-request-timeout, the CLI says so, the
// metadata endpoint answers an enabled scope from memory at once and the
// first request of another with a 500 within its bound, status answers
// with a warning within its own, and serve keeps running; once etcd goes on (SIGCONT), everything works
// again, and a creation that answered 503 created nothing.
func TestEtcdStopped(t *testing.T) {
	member := clusterOf(t, clusterBinary(t), 1).members[0]
	const token = "e2e-shared-token"
	tokenFile, fleetFile := replicaFiles(t, token, stopFleet)
	s := startReplica(t, "etcd://"+member.clientAddr+"/e2e-stopped", tokenFile, fleetFile,
		"--replica-id", "hv-a", "--admin-request-timeout", stopBound.String())
	url := "http://" + s.metaAddr + "/metadata/scheduledevents?api-version=2020-07-01"
	if code, body := call(t, from(t, "127.0.0.2"), "GET", url, ""); code != http.StatusOK { // enables the scope
		t.Fatalf("GET before the stop: %d %s", code, body)
	}
	eventually(t, 30*time.Second, "a leader", func() bool { return strings.Contains(s.log.String(), leadingLine) })

	member.pause(t)
	ctx := t.Context()
	admin := "http://" + s.admAddr
	created := timed(func() (int, string, error) {
		return tryCall(ctx, http.DefaultClient, token, "POST", admin+"/v1/scopes", `{"name":"during-stop"}`)
	})
	listed := timed(func() (int, string, error) {
		return tryCall(ctx, http.DefaultClient, token, "GET", admin+"/v1/scopes", "")
	})
	cli := timed(func() (int, string, error) {
		out, err := exec.Command(binary, "scope", "create", "during-stop-cli", "--server", admin, "--token-file", tokenFile).CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), string(out), nil
		}
		return 0, string(out), err
	})
	web, db := from(t, "127.0.0.2"), from(t, "127.0.0.4")
	meta := timed(func() (int, string, error) { return tryCall(ctx, web, "", "GET", url, "") })
	enable := timed(func() (int, string, error) { return tryCall(ctx, db, "", "GET", url, "") })

	a := <-meta
	t.Logf("metadata GET: %d after %v", a.code, a.took)
	if a.code != http.StatusOK || !strings.Contains(a.body, `"Events":[]`) || a.took > stopBound {
		t.Errorf("metadata GET with etcd stopped: %d %s %v after %v, want 200 from memory at once", a.code, a.body, a.err, a.took)
	}
	// The first request of a scope must store that it enabled Scheduled
	// Events: it waits for etcd up to its bound, then fails as Azure's
	// endpoint does.
	a = <-enable
	t.Logf("metadata GET of a scope not enabled yet: %d after %v", a.code, a.took)
	if a.code != http.StatusInternalServerError || a.took > enableBound+stopMargin {
		t.Errorf("metadata GET of a scope not enabled yet, with etcd stopped: %d %s %v after %v, want 500 within %v",
			a.code, a.body, a.err, a.took, enableBound)
	}
	for what, ch := range map[string]<-chan answer{"POST /v1/scopes": created, "GET /v1/scopes": listed} {
		a := <-ch
		t.Logf("%s: %d after %v", what, a.code, a.took)
		if a.code != http.StatusServiceUnavailable || !strings.Contains(a.body, `"code":"unavailable"`) || a.took > stopBound+stopMargin {
			t.Errorf("%s with etcd stopped: %d %s %v after %v, want 503 unavailable within %v", what, a.code, a.body, a.err, a.took, stopBound)
		}
	}
	a = <-cli
	t.Logf("forewarn scope create: exit %d after %v: %s", a.code, a.took, strings.TrimSpace(a.body))
	if a.code != 1 || !strings.Contains(a.body, "unavailable") || a.took > stopBound+stopMargin {
		t.Errorf("forewarn scope create with etcd stopped: exit %d %v after %v, want 1 within %v, saying the store is unavailable:\n%s",
			a.code, a.err, a.took, stopBound, a.body)
	}
	start := time.Now()
	if st := status(t, s, tokenFile); st.Warning == "" || len(st.Replicas) != 1 || time.Since(start) > 3*time.Second+stopMargin {
		t.Errorf("forewarn status with etcd stopped, after %v: %+v, want this replica and a warning within 3 s", time.Since(start), st)
	}
	// Stopped beyond the lease time, the leader gives the lead up.
	eventually(t, 30*time.Second, "the leader gives the lead up", func() bool {
		return strings.Contains(s.log.String(), "leader lease lost")
	})
	select {
	case err := <-s.exited:
		s.exited <- err
		t.Fatalf("serve exited with etcd stopped: %v", err)
	default:
	}

	member.resume(t)
	eventually(t, 60*time.Second, "a scope created after etcd goes on", func() bool {
		_, err := s.admin.CreateScope(t.Context(), forewarn.ScopeSpec{Name: "after-stop"})
		return err == nil || errors.Is(err, forewarn.ErrConflict)
	})
	if code, body := call(t, db, "GET", url, ""); code != http.StatusOK {
		t.Errorf("metadata GET of the scope not enabled yet, after etcd goes on: %d %s", code, body)
	}
	scopes, err := s.admin.Scopes(t.Context())
	if err != nil {
		t.Fatalf("list scopes after etcd goes on: %v", err)
	}
	var names []string
	for _, sc := range scopes {
		names = append(names, sc.Name)
	}
	if got := strings.Join(names, ","); got != "after-stop,db,web" {
		t.Errorf("scopes after etcd goes on: %s, want after-stop,db,web: a creation answered 503 must create nothing", got)
	}
	eventually(t, 60*time.Second, "a leader after etcd goes on", func() bool {
		st := status(t, s, tokenFile)
		return st.Leader != "" && st.Warning == "" && len(st.Replicas) == 1
	})
}
