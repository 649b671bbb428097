package fabric

import (
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/imds"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestHardwareDocuments: the documents of a hardware failure and of degraded
// hardware, as the metadata endpoint serves them, against golden files.
func TestHardwareDocuments(t *testing.T) {
	for _, tc := range []struct {
		name  string
		event func(h *harness) *forewarn.Event
	}{
		{"hardware-failure", func(h *harness) *forewarn.Event { e, _ := h.f.Fail(h.ctx, "hw"); return e }},
		{"degraded-hardware", func(h *harness) *forewarn.Event { e, _ := h.f.Degrade(h.ctx, "hw", 0); return e }},
	} {
		for _, version := range []string{"2017-03-01", "2019-04-01", "2019-08-01", "2020-07-01"} {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				h := mustOpenHarness(t, Config{AlwaysEnabled: true})
				md := imds.New(imds.Config{Metadata: h.f.Metadata(), Clock: h.clock})
				if err := h.f.PublishTo(h.ctx, md); err != nil {
					t.Fatal(err)
				}
				h.vm(forewarn.VMSpec{Name: "hw", Addresses: []string{"127.0.0.2"}})
				e := tc.event(h)
				r := httptest.NewRequest(http.MethodGet, "/metadata/scheduledevents?api-version="+version, nil)
				r.RemoteAddr = "127.0.0.2:40000"
				r.Header.Set("Metadata", "true")
				w := httptest.NewRecorder()
				md.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					t.Fatalf("status %d: %s", w.Code, w.Body)
				}
				golden(t, tc.name+"-"+version+".json", strings.ReplaceAll(w.Body.String(), e.ID, "<event-id>"))
			})
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s:\n got %s\nwant %s", name, got, want)
	}
}
