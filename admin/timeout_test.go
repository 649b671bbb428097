package admin_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// stuckFleet waits for its store, which never answers, as long as the
// request lets it.
type stuckFleet struct{ forewarn.Fleet }

func (stuckFleet) Scopes(ctx context.Context) ([]*forewarn.Scope, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("read store: %w (%w)", ctx.Err(), forewarn.ErrUnavailable)
}

// TestRequestTimeout: a request whose store does not answer gets a 503
// once Config.RequestTimeout has passed.
func TestRequestTimeout(t *testing.T) {
	srv := httptest.NewServer(admin.NewServer(admin.Config{Fleet: stuckFleet{}, Token: "t", RequestTimeout: 50 * time.Millisecond}))
	t.Cleanup(srv.Close)
	c := admin.NewClient(srv.URL, "t", admin.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}))
	if _, err := c.Scopes(t.Context()); !errors.Is(err, forewarn.ErrUnavailable) {
		t.Errorf("scopes from a store that does not answer: %v, want ErrUnavailable (503) after the request timeout", err)
	}
}
