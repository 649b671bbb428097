package admin

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/forewarn/forewarn"
)

// call sends one request and decodes the answer into a T.
func call[T any](ctx context.Context, c *Client, method, path string, query url.Values, in any) (T, error) {
	var out T
	if err := c.do(ctx, method, path, query, in, &out); err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// itemPath returns the path of a named item of a collection, refusing a
// name that cannot be one segment of a path.
func itemPath(collection, what, name string) (string, error) {
	switch name {
	case "":
		return "", forewarn.Errorf(forewarn.ErrInvalid, "%s is empty", what)
	case ".", "..":
		return "", forewarn.Errorf(forewarn.ErrInvalid, "%s %q cannot be used in a URL path", what, name)
	}
	return collection + "/" + url.PathEscape(name), nil
}

// CreateScope creates a scope.
func (c *Client) CreateScope(ctx context.Context, spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	return call[*forewarn.Scope](ctx, c, http.MethodPost, "/v1/scopes", nil, spec)
}

// Scopes lists every scope.
func (c *Client) Scopes(ctx context.Context) ([]*forewarn.Scope, error) {
	return call[[]*forewarn.Scope](ctx, c, http.MethodGet, "/v1/scopes", nil, nil)
}

// Scope returns one scope.
func (c *Client) Scope(ctx context.Context, name string) (*forewarn.Scope, error) {
	p, err := itemPath("/v1/scopes", "scope name", name)
	if err != nil {
		return nil, err
	}
	return call[*forewarn.Scope](ctx, c, http.MethodGet, p, nil, nil)
}

// DeleteScope deletes an empty scope.
func (c *Client) DeleteScope(ctx context.Context, name string) error {
	p, err := itemPath("/v1/scopes", "scope name", name)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, p, nil, nil, nil)
}

// CreateVM creates a VM.
func (c *Client) CreateVM(ctx context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	return call[*forewarn.VM](ctx, c, http.MethodPost, "/v1/vms", nil, spec)
}

// CreateBatch creates scopes, then VMs, all or none, in one request and
// one transaction of the server's store.
func (c *Client) CreateBatch(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	_, err := call[batchResult](ctx, c, http.MethodPost, "/v1/batch", nil,
		batchRequest{Scopes: nonNil(scopes), VMs: nonNil(vms)})
	return err
}

// VM returns one VM.
func (c *Client) VM(ctx context.Context, name string) (*forewarn.VM, error) {
	p, err := itemPath("/v1/vms", "VM name", name)
	if err != nil {
		return nil, err
	}
	return call[*forewarn.VM](ctx, c, http.MethodGet, p, nil, nil)
}

// DeleteVM deletes a VM.
func (c *Client) DeleteVM(ctx context.Context, name string) error {
	p, err := itemPath("/v1/vms", "VM name", name)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, p, nil, nil, nil)
}

// Operate runs a user operation on a VM and returns the event it created.
func (c *Client) Operate(ctx context.Context, vm string, op forewarn.Operation) (*forewarn.Event, error) {
	p, err := itemPath("/v1/vms", "VM name", vm)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(operations, op) {
		return nil, forewarn.Errorf(forewarn.ErrInvalid,
			"unknown operation %q: use restart, redeploy, evict or terminate", op)
	}
	return call[*forewarn.Event](ctx, c, http.MethodPost, p+"/"+string(op), nil, nil)
}

// Event returns one event in flight.
func (c *Client) Event(ctx context.Context, id string) (*forewarn.Event, error) {
	p, err := itemPath("/v1/events", "event id", id)
	if err != nil {
		return nil, err
	}
	return call[*forewarn.Event](ctx, c, http.MethodGet, p, nil, nil)
}

// Approve approves an event as the admin.
func (c *Client) Approve(ctx context.Context, id string) (*forewarn.Event, error) {
	p, err := itemPath("/v1/events", "event id", id)
	if err != nil {
		return nil, err
	}
	return call[*forewarn.Event](ctx, c, http.MethodPost, p+"/approve", nil, nil)
}

// Cancel cancels a Scheduled event and returns it as cancelled.
func (c *Client) Cancel(ctx context.Context, id string) (*forewarn.Event, error) {
	p, err := itemPath("/v1/events", "event id", id)
	if err != nil {
		return nil, err
	}
	return call[*forewarn.Event](ctx, c, http.MethodPost, p+"/cancel", nil, nil)
}

// History lists up to limit finished and cancelled events, newest first.
func (c *Client) History(ctx context.Context, limit int) ([]*forewarn.Event, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	return call[[]*forewarn.Event](ctx, c, http.MethodGet, "/v1/history", q, nil)
}
