package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// maxResponseBody bounds what the client reads of an answer.
const maxResponseBody = 4 << 20

// call is one HTTP exchange to make.
type call struct {
	method      string
	path        string
	query       url.Values
	ifNoneMatch string
	body        []byte
	timeout     time.Duration
}

// reply is a successful (2xx or 304) answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// do makes one attempt of cl. Statuses other than 2xx and 304 come back as
// an *APIError; failures to connect or read as wrapped transport errors.
func (c *Client) do(ctx context.Context, cl call) (*reply, error) {
	target, err := c.url(cl.path, cl.query)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cl.timeout)
	defer cancel()
	req, err := c.newRequest(ctx, cl, target)
	if err != nil {
		return nil, err
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read answer: %w", cl.method, cl.path, err)
	}
	if len(body) > maxResponseBody {
		return nil, fmt.Errorf("%s %s: %w: body over %d bytes", cl.method, cl.path, ErrMalformedResponse, maxResponseBody)
	}
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusNotModified {
		return nil, newAPIError(resp.StatusCode, resp.Header, body, c.clock.Now())
	}
	return &reply{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// newRequest builds the request of cl with the headers every request sends.
func (c *Client) newRequest(ctx context.Context, cl call, target string) (*http.Request, error) {
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
	}
	req.Header.Set("Metadata", "true")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cl.ifNoneMatch != "" {
		req.Header.Set("If-None-Match", cl.ifNoneMatch)
	}
	return req, nil
}

// url joins the endpoint, path and query.
func (c *Client) url(path string, query url.Values) (string, error) {
	if c.optErr != nil {
		return "", c.optErr
	}
	if c.baseErr != nil {
		return "", c.baseErr
	}
	u := *c.base
	u.Path = u.Path + path
	u.RawPath = ""
	u.RawQuery = query.Encode()
	return u.String(), nil
}
