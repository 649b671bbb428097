package plural

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 VMs", 1: "1 VM", 2: "2 VMs", -1: "-1 VMs"} {
		if got := Count(n, "VM", "VMs"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Word(1, "has", "have"); got != "has" {
		t.Errorf("Word(1) = %q", got)
	}
}
