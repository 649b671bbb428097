package main

import (
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
)

// TestStatusOfOneHost: with the bbolt store, status shows the one replica,
// named by --replica-id, leading, with the addresses it listens on.
func TestStatusOfOneHost(t *testing.T) {
	srv := startServer(t, "--replica-id", "hv-01")
	srv.setEnv(t)

	st := mustJSON[forewarn.Status](t, "status", "-o", "json")
	if st.Self != "hv-01" || st.Leader != "hv-01" || len(st.Replicas) != 1 || !strings.HasSuffix(st.Store, "forewarn.db") {
		t.Fatalf("status -o json = %+v", st)
	}
	if r := st.Replicas[0]; !r.Leader || r.PID == 0 || r.Started.IsZero() || r.AdminAddr == "" || r.MetadataAddr == "" {
		t.Errorf("replica = %+v", r)
	}
	out := mustRun(t, "status")
	rs := rows(t, out)
	if !strings.Contains(out, "leader:   hv-01\n") || rs[len(rs)-1][0] != "hv-01" || rs[len(rs)-1][1] != "*" {
		t.Errorf("status table:\n%s", out)
	}
	mustFail(t, []string{"serve", "--replica-id", "a/b"}, "--replica-id", "a/b")
}
