package replbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// eventsPath is the Scheduled Events document, at the api-version of the
// seed pages.
const eventsPath = "/metadata/scheduledevents?api-version=2020-07-01"

// vmClient returns an HTTP client whose connections come from addr, so that
// the metadata endpoint takes it for the VM with that address. It keeps its
// connections open between requests, as a VM's SDK does.
func vmClient(addr string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// approve POSTs the approval of event id to the metadata endpoint at
// metaURL, as the VM of client c.
func approve(ctx context.Context, c *http.Client, metaURL, id string) error {
	body := `{"StartRequests":[{"EventId":"` + id + `"}]}`
	code, answer, _, err := call(ctx, c, http.MethodPost, metaURL+eventsPath, body)
	if err != nil {
		return fmt.Errorf("approve %s: %w", id, err)
	}
	if code != http.StatusOK || answer != "{}" {
		return fmt.Errorf("approve %s: %d %s", id, code, answer)
	}
	return nil
}

// call sends one request to the metadata endpoint and returns the status,
// the body and the ETag.
func call(ctx context.Context, c *http.Client, method, target, body string) (int, string, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, strings.NewReader(body))
	if err != nil {
		return 0, "", "", err
	}
	req.Header.Set("Metadata", "true")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", "", err
	}
	return resp.StatusCode, string(b), resp.Header.Get("ETag"), nil
}

// document is the part of the Scheduled Events document the benchmarks
// read.
type document struct {
	DocumentIncarnation int64
	Events              []struct{ EventId, EventStatus string }
}

// status returns the status of event id in the document, or "" if it is
// not there.
func (d document) status(id string) string {
	for _, e := range d.Events {
		if strings.EqualFold(e.EventId, id) {
			return e.EventStatus
		}
	}
	return ""
}

// awaitStatus asks the metadata endpoint at metaURL for the document of
// client c's VM until event id shows with the status, and returns the ETag
// of that document. With an ETag it long-polls (forewarn's wait_for_change),
// so it returns as soon as the endpoint serves the change; without one, or
// while the endpoint does not know the VM yet (403: the replica has not
// seen it created), it asks again after a millisecond.
func awaitStatus(ctx context.Context, c *http.Client, metaURL, etag, id, status string) (string, error) {
	for {
		target := metaURL + eventsPath
		if etag != "" {
			target += "&wait_for_change=true&timeout_sec=10&last_etag=" + strings.Trim(etag, `"`)
		}
		code, body, tag, err := call(ctx, c, http.MethodGet, target, "")
		switch {
		case err != nil:
			return "", fmt.Errorf("wait for event %s %s: %w", id, status, err)
		case code == http.StatusForbidden:
			etag = ""
		case code != http.StatusOK:
			return "", fmt.Errorf("wait for event %s %s: %d %s", id, status, code, body)
		default:
			var doc document
			if err := json.Unmarshal([]byte(body), &doc); err != nil {
				return "", fmt.Errorf("wait for event %s %s: %w: %s", id, status, err, body)
			}
			if doc.status(id) == status {
				return tag, nil
			}
			etag = tag
		}
		if etag == "" {
			select {
			case <-ctx.Done():
				return "", fmt.Errorf("wait for event %s %s: %w", id, status, ctx.Err())
			case <-time.After(time.Millisecond): // polling a replica that has not seen the VM yet
			}
		}
	}
}
