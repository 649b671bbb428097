package forewarn_test

import (
	"testing"

	"github.com/forewarn/forewarn"
)

func TestCanonical(t *testing.T) {
	if p, ok := forewarn.Canonical("sPoT", forewarn.Priorities); !ok || p != forewarn.Spot {
		t.Errorf("Canonical(sPoT) = %q, %v", p, ok)
	}
	if _, ok := forewarn.Canonical("", forewarn.Priorities); ok {
		t.Error(`"" is a priority`)
	}
	if got := forewarn.OneOf([]string{"a"}); got != "a" {
		t.Errorf("OneOf(a) = %q", got)
	}
}
