package fabric

import (
	"errors"
	"testing"

	"github.com/forewarn/forewarn"
)

func TestCreateBatch(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	ud := 1
	err := h.f.CreateBatch(h.ctx,
		[]forewarn.ScopeSpec{{Name: "web", UpdateDomains: 2}, {Name: "db"}},
		[]forewarn.VMSpec{
			{Name: "web-0", Scope: "web", Addresses: []string{"127.0.0.5"}},
			{Name: "web-1", Scope: "WEB", UpdateDomain: &ud},
			{Name: "db-0", Scope: "db"},
			{Name: "lone"},
		})
	if err != nil {
		t.Fatal(err)
	}
	snap := h.pub.snapshot("web")
	if snap == nil || len(snap.VMs) != 2 || snap.VMs[1].UpdateDomain != 1 {
		t.Fatalf("published snapshot of web = %+v, want its 2 VMs, web-1 in update domain 1", snap)
	}
	if h.pub.snapshot("lone") == nil || h.pub.snapshot("db") == nil {
		t.Errorf("the standalone VM's scope or db was not published")
	}
}

// TestCreateBatchAllOrNothing checks that one bad VM creates nothing, and
// that the error names it.
func TestCreateBatchAllOrNothing(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	h.vm(forewarn.VMSpec{Name: "old", Addresses: []string{"127.0.0.5"}})
	tests := []struct {
		name string
		vms  []forewarn.VMSpec
		kind error
		says string
	}{
		{"address taken", []forewarn.VMSpec{{Name: "a", Scope: "new"}, {Name: "b", Scope: "new", Addresses: []string{"127.0.0.5"}}},
			forewarn.ErrConflict, `vm "b": address 127.0.0.5 already belongs to vm "old"`},
		{"no such scope", []forewarn.VMSpec{{Name: "a", Scope: "new"}, {Name: "b", Scope: "nope"}},
			forewarn.ErrNotFound, `vm "b": scope "nope" does not exist`},
		{"name given twice", []forewarn.VMSpec{{Name: "a", Scope: "new"}, {Name: "A", Scope: "new"}},
			forewarn.ErrConflict, `vm "A" already exists`},
		{"bad name", []forewarn.VMSpec{{Name: "a", Scope: "new"}, {Name: "b/c", Scope: "new"}},
			forewarn.ErrInvalid, `invalid vm name "b/c": want 1-64 letters, digits, '-', '_' or '.'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := h.f.CreateBatch(h.ctx, []forewarn.ScopeSpec{{Name: "new"}}, tc.vms)
			if !errors.Is(err, tc.kind) || forewarn.ErrorMessage(err) != tc.says {
				t.Fatalf("CreateBatch = %v, want %v saying %q", err, tc.kind, tc.says)
			}
			if _, err := h.f.Scope(h.ctx, "new"); !errors.Is(err, forewarn.ErrNotFound) {
				t.Errorf("scope new exists after a failed batch (%v)", err)
			}
			if _, err := h.f.VM(h.ctx, "a"); !errors.Is(err, forewarn.ErrNotFound) {
				t.Errorf("vm a exists after a failed batch (%v)", err)
			}
		})
	}
}
