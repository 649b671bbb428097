package main

import (
	"net/http"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// TestServePolls: a GET of the events from the default VM's address shows
// in the admin API's poll record of its scope.
func TestServePolls(t *testing.T) {
	s := startServer(t)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet,
		s.metadataURL+"/metadata/scheduledevents?api-version=2020-07-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Metadata", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET of the events: %d", resp.StatusCode)
	}
	vm, err := admin.NewClient(s.adminURL, s.token).VM(t.Context(), s.hostVM)
	if err != nil {
		t.Fatal(err)
	}
	polls, err := admin.NewClient(s.adminURL, s.token).Polls(t.Context(), vm.Scope)
	if err != nil {
		t.Fatalf("Polls: %v", err)
	}
	var found *forewarn.VMPolls
	for _, p := range polls {
		if forewarn.SameName(p.VM, s.hostVM) {
			found = p
		}
	}
	if found == nil || found.Polls != 1 || found.FirstPoll.IsZero() {
		t.Errorf("poll record of scope %s: %+v, want %s with 1 poll", vm.Scope, polls, s.hostVM)
	}
}
