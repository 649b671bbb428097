package imds

import (
	"context"
	"net/http"

	"github.com/forewarn/forewarn"
)

// discardWriter is an http.ResponseWriter that keeps the status and the
// number of body bytes and reuses its header map, so that it allocates
// nothing once warm: what the allocation checks and benchmarks of the
// handler need (httptest.ResponseRecorder allocates on every request).
type discardWriter struct {
	header http.Header
	status int
	n      int
}

// newDiscardWriter returns a discardWriter with an empty header map.
func newDiscardWriter() *discardWriter {
	return &discardWriter{header: make(http.Header)}
}

// reset readies the writer for the next request, keeping its map.
func (w *discardWriter) reset() {
	clear(w.header)
	w.status, w.n = 0, 0
}

// Header returns the reused header map.
func (w *discardWriter) Header() http.Header { return w.header }

// WriteHeader keeps the first status.
func (w *discardWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

// Write counts b, with status 200 if none was sent.
func (w *discardWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(b)
	return len(b), nil
}

// quietMetadata is a forewarn.Metadata that accepts everything and records
// nothing, so that the handler's own allocations are the only ones counted
// (fakeMetadata appends every Enable to a slice).
type quietMetadata struct{}

var _ forewarn.Metadata = quietMetadata{}

func (quietMetadata) Approve(context.Context, string, []string) error { return nil }

func (quietMetadata) Enable(context.Context, string) error { return nil }
