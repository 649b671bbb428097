package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/forewarn/forewarn/fleetfile"
)

// TestFleetFile parses the fleet file with the parser `forewarn apply`
// uses, and finds every VM where the layout puts it.
func TestFleetFile(t *testing.T) {
	l := layout{prefix: "load", scopes: 3, vms: 7, updateDomains: 5, base: mustAddr("127.1.0.250")}
	var buf bytes.Buffer
	if err := writeFleet(&buf, l); err != nil {
		t.Fatal(err)
	}
	f, err := fleetfile.Parse("fleet.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	addrs, _ := l.addrs()
	if len(f.Scopes) != 3 || len(f.VMs) != 0 {
		t.Fatalf("%d scopes and %d standalone VMs", len(f.Scopes), len(f.VMs))
	}
	for s, sc := range f.Scopes {
		if sc.Spec.Name != l.scopeName(s) || sc.Spec.UpdateDomains != 5 || len(sc.VMs) != 7 {
			t.Fatalf("scope %d: %+v with %d VMs", s, sc.Spec, len(sc.VMs))
		}
		for v, vm := range sc.VMs {
			i := s*l.vms + v
			spec := vm.Spec
			if spec.Name != l.vmName(i) || spec.Scope != l.scopeName(s) || *spec.UpdateDomain != l.updateDomain(i) ||
				len(spec.Addresses) != 1 || spec.Addresses[0] != addrs[i].String() {
				t.Errorf("VM %d: %+v", i, spec)
			}
		}
	}
}

func TestRunFleet(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run(t.Context(), []string{"fleet", "-scopes", "2", "-vms", "3"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if n := strings.Count(out.String(), "addresses:"); n != 6 {
		t.Errorf("%d VMs in\n%s", n, out.String())
	}
	for _, args := range [][]string{nil, {"nope"}, {"fleet", "-vms", "0"}, {"fleet", "extra"},
		{"fleet", "-base", "10.0.0.1"}, {"poll"}, {"longpoll", "-url", "http://127.0.0.1:1"}} {
		errs.Reset()
		if code := run(t.Context(), args, &out, &errs); code != 2 || errs.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errs.String())
		}
	}
}
