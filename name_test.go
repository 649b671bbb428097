package forewarn

import "testing"

func TestValidName(t *testing.T) {
	for _, ok := range []string{"web-0", "A_b.c", "x", "a234567890123456789012345678901234567890123456789012345678901234"} {
		if !ValidName(ok) {
			t.Errorf("ValidName(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", ".", "..", "web 0", "web/0", "é", "a2345678901234567890123456789012345678901234567890123456789012345"} {
		if ValidName(bad) {
			t.Errorf("ValidName(%q) = true", bad)
		}
	}
}
