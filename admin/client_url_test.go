package admin

import (
	"errors"
	"testing"

	"github.com/forewarn/forewarn"
)

func TestParseBaseURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:8170":  "http://127.0.0.1:8170",
		"http://127.0.0.1:8170/": "http://127.0.0.1:8170",
		" 127.0.0.1:8170 ":       "http://127.0.0.1:8170",
	} {
		if got, err := parseBaseURL(raw); err != nil || got != want {
			t.Errorf("parseBaseURL(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"", ":8170", "http://:8170", ":#", "ftp://x", "http://x/?a=1", "http://x/#f"} {
		if got, err := parseBaseURL(raw); !errors.Is(err, forewarn.ErrInvalid) {
			t.Errorf("parseBaseURL(%q) = %q, %v; want ErrInvalid", raw, got, err)
		}
	}
}
