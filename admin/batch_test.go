package admin_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// TestCreateBatch: POST /v1/batch creates the scopes, then the VMs, all or
// none, through the client and the real control plane.
func TestCreateBatch(t *testing.T) {
	env := mustStartEnabled(t)
	ctx := t.Context()
	scopes := []forewarn.ScopeSpec{{Name: "web", UpdateDomains: 2}, {Name: "db"}}
	vms := []forewarn.VMSpec{{Name: "web-0", Scope: "web"}, {Name: "web-1", Scope: "web"}, {Name: "db-0", Scope: "db"}, {Name: "solo"}}
	if err := env.client.CreateBatch(ctx, scopes, vms); err != nil {
		t.Fatal(err)
	}
	got := whole(env.client.VMs(ctx, forewarn.VMQuery{}))(t)
	if len(got) != 4 {
		t.Fatalf("after the batch: %d VMs, want 4", len(got))
	}
	if vm := must(env.client.VM(ctx, "web-1"))(t); vm.Scope != "web" || vm.UpdateDomain != 1 {
		t.Errorf("web-1 = %+v, want in web, update domain 1", vm)
	}

	// A batch with a name that is taken creates nothing.
	err := env.client.CreateBatch(ctx, []forewarn.ScopeSpec{{Name: "api"}},
		[]forewarn.VMSpec{{Name: "api-0", Scope: "api"}, {Name: "web-0", Scope: "api"}})
	if !errors.Is(err, forewarn.ErrConflict) || !strings.Contains(err.Error(), "web-0") {
		t.Errorf("batch with a taken name = %v, want a conflict naming web-0", err)
	}
	if _, err := env.client.Scope(ctx, "api"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("the refused batch left scope api: %v", err)
	}
}

// TestCreateBatchRefusals: an empty batch, one over admin.MaxBatch, and a
// body that is not a batch are 400s, and nothing changes.
func TestCreateBatchRefusals(t *testing.T) {
	env := mustStartEnabled(t)
	many := make([]string, admin.MaxBatch+1)
	for i := range many {
		many[i] = fmt.Sprintf(`{"name":"vm-%d"}`, i)
	}
	for _, body := range []string{
		`{}`,
		`{"scopes":[],"vms":[]}`,
		`{"vms":[` + strings.Join(many, ",") + `]}`,
		`{"vms":[{"name":"a"}],"extra":1}`,
		`{"vms":{"name":"a"}}`,
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", env.server.URL+"/v1/batch", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST /v1/batch %.60s... = %d, want 400 (or 413 for a body over 1 MiB)", body, resp.StatusCode)
		}
	}
	if vms := whole(env.client.VMs(t.Context(), forewarn.VMQuery{}))(t); len(vms) != 0 {
		t.Errorf("refused batches made %d VMs", len(vms))
	}
}
