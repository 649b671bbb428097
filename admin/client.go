package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// Client is the admin API's Go client. It implements forewarn.Fleet and
// forewarn.PollLog.
type Client struct {
	base  string // scheme and host, and a path prefix if any, without a trailing slash
	token string
	http  *http.Client
	err   error // a bad base URL, returned by every call
	// pageSize is the page a listing of everything asks for at a time.
	pageSize int
}

var _ forewarn.Fleet = (*Client)(nil)

// ClientOption changes how a Client works.
type ClientOption func(*Client)

// WithHTTPClient makes the Client send its requests through hc instead of a
// client with a 30-second timeout.
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *Client) { c.http = hc }
}

// NewClient returns a client of the admin API at baseURL
// ("http://127.0.0.1:8170", with or without a trailing slash; a bare
// "host:port" means http) that sends token as its bearer token. A bad
// baseURL is reported by every call.
func NewClient(baseURL, token string, opts ...ClientOption) *Client {
	c := &Client{token: token, http: &http.Client{Timeout: 30 * time.Second}, pageSize: MaxListLimit}
	c.base, c.err = parseBaseURL(baseURL)
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// parseBaseURL checks the address of the admin API.
func parseBaseURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s != "" && !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") ||
		u.RawQuery != "" || u.Fragment != "" {
		return "", forewarn.Errorf(forewarn.ErrInvalid,
			"admin API address %q is not a URL such as http://127.0.0.1:8170", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Health reports whether the admin API answers its health check.
func (c *Client) Health(ctx context.Context) error {
	var body struct {
		Status string `json:"status"`
	}
	if err := c.do(ctx, http.MethodGet, "/healthz", nil, nil, &body); err != nil {
		return err
	}
	if body.Status != "ok" {
		return fmt.Errorf("admin API at %s: health check says %q", c.base, body.Status)
	}
	return nil
}

// do sends one request with in, if not nil, as its JSON body, and decodes
// the answer into out, if not nil.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	_, err := c.exchange(ctx, method, path, query, in, out)
	return err
}

// exchange is do that also returns the header of the answer, where a
// listing says where its next page is.
func (c *Client) exchange(ctx context.Context, method, path string, query url.Values, in, out any) (http.Header, error) {
	req, err := c.newRequest(ctx, method, path, query, in)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.responseError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Header, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return nil, fmt.Errorf("admin API at %s: %s %s: decode answer: %w", c.base, method, path, err)
	}
	return resp.Header, nil
}

// newRequest builds a request to the API.
func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, in any) (*http.Request, error) {
	if c.err != nil {
		return nil, c.err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("admin API request %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "forewarn-admin-client")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// transportError wraps an error of the connection with the API's address,
// keeping the cause (context.Canceled, a *net.OpError) for errors.Is/As.
func (c *Client) transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("admin API at %s: %w", c.base, err)
}
