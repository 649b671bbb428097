package fabric

import (
	"testing"

	"github.com/forewarn/forewarn"
)

// TestTxnVMsKeepsStoreSemantics checks that the VMs a transaction keeps of
// each scope behave as the store's: copies the caller may change, and the
// current state after every write.
func TestTxnVMsKeepsStoreSemantics(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web", Addresses: []string{"127.0.0.5"}})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web"})
	states := func(t *txn) map[string]forewarn.VMState {
		vms, err := t.VMs("WEB")
		if err != nil {
			h.tb.Fatal(err)
		}
		out := map[string]forewarn.VMState{}
		for _, vm := range vms {
			out[vm.Name] = vm.State
		}
		return out
	}
	err := h.f.update(h.ctx, func(t *txn) error {
		vms, _ := t.VMs("web")
		vms[0].State = forewarn.Frozen // changed, not written
		vms[0].Addresses[0] = "127.0.0.9"
		if got := states(t)["web-0"]; got != forewarn.Running {
			h.tb.Errorf("a change not written shows in the next read: web-0 is %s", got)
		}
		again, _ := t.VMs("web")
		if again[0].Addresses[0] != "127.0.0.5" {
			h.tb.Errorf("a change to an address not written shows in the next read: %v", again[0].Addresses)
		}
		vms[1].State = forewarn.Rebooting
		if err := t.PutVM(vms[1]); err != nil {
			return err
		}
		if got := states(t)["web-1"]; got != forewarn.Rebooting {
			h.tb.Errorf("after PutVM, web-1 is %s, want rebooting", got)
		}
		if err := t.PutVM(&forewarn.VM{Name: "web-2", Scope: "web", State: forewarn.Running}); err != nil {
			return err
		}
		if got := len(states(t)); got != 3 {
			h.tb.Errorf("after PutVM of a new VM, the scope has %d VMs, want 3", got)
		}
		if err := t.DeleteVM("web-0"); err != nil {
			return err
		}
		if _, ok := states(t)["web-0"]; ok {
			h.tb.Errorf("web-0 is still listed after DeleteVM")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
