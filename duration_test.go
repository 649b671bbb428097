package forewarn

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90s": 90 * time.Second, "15m": 15 * time.Minute, "7d": 7 * 24 * time.Hour,
		"1d12h": 36 * time.Hour, "0": 0, "1.5d": 36 * time.Hour, "0.5d1h": 13 * time.Hour,
	} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "x7d", "7d-1h", "-1d", "7dd", "soon", "1e3d", "Inf d", "NaNd", "0x1p1d", ".d"} {
		if got, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) = %v; want an error", in, got)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		7 * 24 * time.Hour: "7d", 8 * 24 * time.Hour: "8d", 36 * time.Hour: "1d12h",
		24*time.Hour + 90*time.Second: "1d1m30s", 15 * time.Minute: "15m", 2 * time.Hour: "2h",
		90 * time.Second: "1m30s", 500 * time.Millisecond: "500ms", 0: "0s", -time.Hour: "-1h",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if d >= 0 {
			if back, err := ParseDuration(FormatDuration(d)); err != nil || back != d {
				t.Errorf("ParseDuration(FormatDuration(%v)) = %v, %v", d, back, err)
			}
		}
	}
}

func TestDurationJSON(t *testing.T) {
	var d Duration
	if err := json.Unmarshal([]byte(`"7d"`), &d); err != nil || time.Duration(d) != 7*24*time.Hour {
		t.Fatalf("unmarshal 7d: %v, %v", d, err)
	}
	if b, _ := json.Marshal(Duration(5 * time.Minute)); string(b) != `"5m0s"` {
		t.Fatalf("marshal: %s", b)
	}
	if err := json.Unmarshal([]byte(`300`), &d); err == nil {
		t.Fatal("a number was accepted as a duration")
	}
}
