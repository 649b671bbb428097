package admin

import (
	"context"
	"net/http"

	"github.com/forewarn/forewarn"
)

var _ forewarn.PollLog = (*Client)(nil)

// Polls returns what the server's metadata endpoint recorded of the polls
// of the scope's VMs.
func (c *Client) Polls(ctx context.Context, scope string) ([]*forewarn.VMPolls, error) {
	p, err := itemPath("/v1/scopes", "scope name", scope)
	if err != nil {
		return nil, err
	}
	return call[[]*forewarn.VMPolls](ctx, c, http.MethodGet, p+"/polls", nil, nil)
}
