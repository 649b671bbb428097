package records

import (
	"errors"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
)

func TestCheckSchema(t *testing.T) {
	tests := []struct {
		name      string
		stored    string
		versioned bool
		empty     bool
		want      int
		says      string // what the error says; "" for none
	}{
		{"empty store", "", false, true, 0, ""},
		{"current", "3", true, false, 3, ""},
		{"older", "1", true, false, 1, ""},
		{"data without a version", "", false, false, 0, "no schema version; it was not written by forewarn"},
		{"newer", "4", true, false, 0, "store schema version 4 is newer than this release supports (3)"},
		{"not a number", "one", true, false, 0, `store schema version "one" is not valid`},
		{"zero", "0", true, false, 0, `store schema version "0" is not valid`},
		{"empty version", "", true, true, 0, `store schema version "" is not valid`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckSchema(tc.stored, tc.versioned, tc.empty, 3)
			if tc.says == "" {
				if err != nil || got != tc.want {
					t.Fatalf("CheckSchema = %d, %v; want %d", got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, forewarn.ErrSchema) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("CheckSchema = %d, %v; want ErrSchema saying %q", got, err, tc.says)
			}
		})
	}
}
