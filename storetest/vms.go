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
