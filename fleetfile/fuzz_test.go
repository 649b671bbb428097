package fleetfile

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/forewarn/forewarn"
)

// FuzzParse: Parse refuses a file with a ParseError (ErrInvalid) whose
// problems each say what is wrong, or it gives scopes and VMs with valid
// names unique across the file, domains within their scope's counts, and
// canonical unicast addresses, each given to one VM.
func FuzzParse(f *testing.F) {
	f.Add([]byte("scopes:\n  - name: web\n    vms: [{name: a, updateDomain: 1, addresses: [127.0.0.2]}]\nvms: [{name: b}]\n"))
	f.Add([]byte("scopes: [{name: p, kind: scale-set, terminateNotice: 10m}]"))
	f.Add([]byte("- &a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			checkParseError(t, data, err)
			return
		}
		c := fileChecker{t: t, names: map[forewarn.Key]bool{}, addrs: map[string]bool{}}
		for _, s := range file.Scopes {
			if !forewarn.ValidName(s.Spec.Name) {
				t.Fatalf("scope name %q passed", s.Spec.Name)
			}
			for _, vm := range s.VMs {
				c.vm(vm, s.Spec.UpdateDomains, s.Spec.FaultDomains)
			}
		}
		for _, vm := range file.VMs {
			c.vm(vm, 1, 1)
		}
	})
}

// checkParseError fails unless err is a ParseError of kind ErrInvalid
// whose problems each have a message.
func checkParseError(t *testing.T, data []byte, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || len(pe.Problems) == 0 || !errors.Is(err, forewarn.ErrInvalid) {
		t.Fatalf("%q: error %v is not a ParseError with problems", data, err)
	}
	for _, p := range pe.Problems {
		if p.Message == "" || p.File != "fuzz.yaml" || p.Line < 0 || p.Column < 0 {
			t.Fatalf("%q: problem %+v does not say what or where", data, p)
		}
	}
}

// fileChecker checks the VMs of an accepted file, across the file.
type fileChecker struct {
	t     *testing.T
	names map[forewarn.Key]bool
	addrs map[string]bool
}

// vm checks one VM of a scope with uds update and fds fault domains.
func (c fileChecker) vm(vm VM, uds, fds int) {
	c.t.Helper()
	if !forewarn.ValidName(vm.Spec.Name) || c.names[forewarn.KeyOf(vm.Spec.Name)] {
		c.t.Fatalf("vm name %q passed", vm.Spec.Name)
	}
	c.names[forewarn.KeyOf(vm.Spec.Name)] = true
	if d := vm.Spec.UpdateDomain; d != nil && (*d < 0 || *d >= uds) {
		c.t.Fatalf("update domain %d of %d passed", *d, uds)
	}
	if d := vm.Spec.FaultDomain; d != nil && (*d < 0 || *d >= fds) {
		c.t.Fatalf("fault domain %d of %d passed", *d, fds)
	}
	for _, s := range vm.Spec.Addresses {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Unmap().String() != s || a.IsUnspecified() || a.IsMulticast() || c.addrs[s] {
			c.t.Fatalf("vm %s: address %q passed", vm.Spec.Name, s)
		}
		c.addrs[s] = true
	}
}
