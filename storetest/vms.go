package storetest

import (
	"testing"

	"github.com/forewarn/forewarn"
)

var vmTests = []testCase{
	{"VM/PutGet", testVMPutGet},
	{"VM/PutOtherCaseReplaces", testVMPutOtherCase},
	{"VM/NotFound", testVMNotFound},
	{"VM/Delete", testVMDelete},
	{"VM/ByScope", testVMsByScope},
	{"VM/Invalid", testVMInvalid},
	{"VM/MovesScope", testVMMovesScope},
	{"VM/Scan", testVMScan},
	{"VM/At", testVMsAt},
}

func testVMPutGet(t *testing.T, s forewarn.Store) {
	want := newVM("Web-0", "Web")
	put(t, s, want)
	for _, name := range []string{"Web-0", "web-0", "WEB-0"} {
		got := read(t, s, func(tx forewarn.Tx) (*forewarn.VM, error) { return tx.VM(name) })
		assertEqual(t, "VM("+name+")", got, want)
	}
}

func testVMPutOtherCase(t *testing.T, s forewarn.Store) {
	put(t, s, newVM("Web-0", "web"))
	want := newVM("WEB-0", "web")
	want.State = forewarn.Rebooting
	want.Addresses = nil
	put(t, s, want)
	got := read(t, s, func(tx forewarn.Tx) ([]*forewarn.VM, error) { return tx.VMs("") })
	assertEqual(t, "VMs(\"\")", got, []*forewarn.VM{want})
}

func testVMNotFound(t *testing.T, s forewarn.Store) {
	put(t, s, newVM("web-1", "web"))
	err := viewErr(t, s, func(tx forewarn.Tx) error {
		_, err := tx.VM("missing-vm")
		return err
	})
	assertNotFound(t, err, "missing-vm")
}

func testVMDelete(t *testing.T, s forewarn.Store) {
	put(t, s, newVM("Web-0", "web"), newVM("web-1", "web"))
	update(t, s, func(tx forewarn.Tx) error { return tx.DeleteVM("WEB-0") })
	err := viewErr(t, s, func(tx forewarn.Tx) error {
		_, err := tx.VM("web-0")
		return err
	})
	assertNotFound(t, err, "web-0")
	err = s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.DeleteVM("Web-0") })
	assertNotFound(t, err, "Web-0")
	got := read(t, s, func(tx forewarn.Tx) ([]*forewarn.VM, error) { return tx.VMs("web") })
	assertEqual(t, "VMs(web) after delete", got, []*forewarn.VM{newVM("web-1", "web")})
}

func testVMsByScope(t *testing.T, s forewarn.Store) {
	put(t, s,
		newVM("web-2", "Web"), newVM("Db-0", "db"), newVM("WEB-10", "web"),
		newVM("web_x", "WEB"), newVM("web-1", "Web"), newVM("other", "Webs"))
	vmNames := func(scope string) []string {
		vms := read(t, s, func(tx forewarn.Tx) ([]*forewarn.VM, error) { return tx.VMs(scope) })
		return names(vms, func(vm *forewarn.VM) string { return vm.Name })
	}
	web := []string{"web-1", "WEB-10", "web-2", "web_x"}
	assertEqual(t, "VMs(web)", vmNames("web"), web)
	assertEqual(t, "VMs(WEB)", vmNames("WEB"), web)
	assertEqual(t, "VMs(DB)", vmNames("DB"), []string{"Db-0"})
	assertEqual(t, "VMs(\"\")", vmNames(""), []string{"Db-0", "other", "web-1", "WEB-10", "web-2", "web_x"})
	assertEqual(t, "VMs(none)", len(vmNames("none")), 0)
}

func testVMInvalid(t *testing.T, s forewarn.Store) {
	for _, vm := range []*forewarn.VM{nil, {Scope: "web"}} {
		err := s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.PutVM(vm) })
		assertKind(t, err, forewarn.ErrInvalid)
	}
}

// testVMMovesScope checks that a VM written into another scope, or deleted,
// leaves the listing of its old scope.
func testVMMovesScope(t *testing.T, s forewarn.Store) {
	put(t, s, newVM("web-0", "web"), newVM("web-1", "web"))
	put(t, s, newVM("WEB-0", "db"))
	scopeNames := func(scope string) []string {
		vms := read(t, s, func(tx forewarn.Tx) ([]*forewarn.VM, error) { return tx.VMs(scope) })
		return names(vms, func(vm *forewarn.VM) string { return vm.Name })
	}
	assertEqual(t, "VMs(web) after the move", scopeNames("web"), []string{"web-1"})
	assertEqual(t, "VMs(db) after the move", scopeNames("db"), []string{"WEB-0"})
	update(t, s, func(tx forewarn.Tx) error { return tx.DeleteVM("web-0") })
	assertEqual(t, "VMs(db) after delete", len(scopeNames("db")), 0)
	assertEqual(t, "VMs(\"\") after delete", scopeNames(""), []string{"web-1"})
}

// testVMScan pages through VMs, of a scope and of every scope, and stops
// where fn says.
func testVMScan(t *testing.T, s forewarn.Store) {
	put(t, s, newVM("a-2", "a"), newVM("B-1", "b"), newVM("a-1", "A"), newVM("a-3", "a"), newVM("c-1", "c"))
	scan := func(scope, after string, limit int) []string {
		var got []string
		err := s.View(t.Context(), func(tx forewarn.Tx) error {
			got = nil
			return tx.ScanVMs(scope, after, func(vm *forewarn.VM) bool {
				got = append(got, vm.Name)
				return len(got) < limit
			})
		})
		if err != nil {
			t.Fatalf("ScanVMs(%q, %q): %v", scope, after, err)
		}
		return got
	}
	assertEqual(t, "ScanVMs(all, first 2)", scan("", "", 2), []string{"a-1", "a-2"})
	assertEqual(t, "ScanVMs(all, after A-2)", scan("", "A-2", 10), []string{"a-3", "B-1", "c-1"})
	assertEqual(t, "ScanVMs(all, after b)", scan("", "b", 10), []string{"B-1", "c-1"})
	assertEqual(t, "ScanVMs(a, after a-1)", scan("a", "a-1", 1), []string{"a-2"})
	assertEqual(t, "ScanVMs(A, after a-2)", scan("A", "a-2", 10), []string{"a-3"})
	assertEqual(t, "ScanVMs(a, after a-3)", len(scan("a", "a-3", 10)), 0)
	assertEqual(t, "ScanVMs(b)", scan("b", "", 10), []string{"B-1"})
}

// testVMsAt finds VMs by address as their addresses change.
func testVMsAt(t *testing.T, s forewarn.Store) {
	web0, web1 := newVM("web-0", "web"), newVM("web-1", "web")
	web1.Addresses = []string{"10.0.0.5"}
	put(t, s, web0, web1)
	at := func(addr string) []string {
		vms := read(t, s, func(tx forewarn.Tx) ([]*forewarn.VM, error) { return tx.VMsAt(addr) })
		return names(vms, func(vm *forewarn.VM) string { return vm.Name })
	}
	assertEqual(t, "VMsAt(fd00::4)", at("fd00::4"), []string{"web-0"})
	assertEqual(t, "VMsAt(10.0.0.5)", at("10.0.0.5"), []string{"web-1"})
	web0.Addresses = []string{"10.0.0.5"}
	put(t, s, web0)
	assertEqual(t, "VMsAt(fd00::4) after readdressing", len(at("fd00::4")), 0)
	assertEqual(t, "VMsAt(10.0.0.5) shared", at("10.0.0.5"), []string{"web-0", "web-1"})
	update(t, s, func(tx forewarn.Tx) error { return tx.DeleteVM("web-1") })
	assertEqual(t, "VMsAt(10.0.0.5) after delete", at("10.0.0.5"), []string{"web-0"})
}
