package fabric

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/forewarn/forewarn"
)

// TestEventCursorYearRange: an After whose time is out of the years 1 to
// 9999 in UTC is refused; it was taken, though cursorOf cannot write such
// a time back (found by FuzzEventCursor).
func TestEventCursorYearRange(t *testing.T) {
	for _, stamp := range []string{"9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+01:00"} {
		after := base64.RawURLEncoding.EncodeToString([]byte(stamp + " x"))
		if c, err := parseEventCursor(after); !errors.Is(err, forewarn.ErrInvalid) {
			t.Errorf("%s: %+v, %v; want ErrInvalid", stamp, c, err)
		}
	}
	edge := base64.RawURLEncoding.EncodeToString([]byte("9999-12-31T23:59:59.999999999Z x"))
	if _, err := parseEventCursor(edge); err != nil {
		t.Errorf("the last instant of 9999: %v", err)
	}
}
