package forewarn

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration that reads and writes Go's syntax in JSON
// ("5m0s"), and also reads days ("7d").
type Duration time.Duration

// ParseDuration parses Go's duration syntax plus a "d" suffix for days, as
// the command line accepts them: "90s", "15m", "7d", "1.5d", "1d12h".
func ParseDuration(s string) (time.Duration, error) {
	days, rest, found := strings.Cut(s, "d")
	if !found {
		return time.ParseDuration(s)
	}
	n, err := strconv.ParseFloat(days, 64)
	if err != nil || n < 0 || n > 65535 || strings.ContainsAny(days, "eEnN+-_xXpP") {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	d := time.Duration(n * float64(24*time.Hour))
	if rest != "" {
		more, err := time.ParseDuration(rest)
		if err != nil || more < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		d += more
	}
	return d, nil
}

// FormatDuration writes a duration as the command line takes it, in days
// where it has whole days and without zero minutes or seconds at its end:
// "7d", "1d12h", "15m", "1m30s", "500ms".
func FormatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	if d < 0 {
		return "-" + FormatDuration(-d)
	}
	s := ""
	if d >= day {
		s = strconv.FormatInt(int64(d/day), 10) + "d"
		if d %= day; d == 0 {
			return s
		}
	}
	rest := d.String()
	if t, ok := strings.CutSuffix(rest, "m0s"); ok {
		rest = t + "m"
	}
	if t, ok := strings.CutSuffix(rest, "h0m"); ok {
		rest = t + "h"
	}
	return s + rest
}

// String returns Go's syntax.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration as a string in Go's syntax.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a string in Go's syntax, with days allowed.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"5m\": %w", err)
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
