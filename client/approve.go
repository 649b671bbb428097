package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// approval is the body of an approval POST.
type approval struct {
	StartRequests       []startRequest
	DocumentIncarnation int
}

// startRequest names one event to start.
type startRequest struct {
	EventId string //nolint:revive // the wire's spelling
}

// Approve asks the service to start the events now rather than at their
// NotBefore. The body carries the last DocumentIncarnation this client has
// seen; when it has seen none, Approve reads the document first. Approving
// an event twice is harmless, so failed attempts are retried; an EventId
// not in the current document gives a 400 *APIError.
func (c *Client) Approve(ctx context.Context, eventIDs ...string) error {
	if err := checkEventIDs(eventIDs); err != nil {
		return fmt.Errorf("approve events: %w", err)
	}
	incarnation := int(c.incarnation.Load())
	if incarnation == 0 {
		doc, err := c.Get(ctx)
		if err != nil {
			return fmt.Errorf("approve events: learn the document incarnation: %w", err)
		}
		incarnation = doc.DocumentIncarnation
	}
	body, err := approvalBody(eventIDs, incarnation)
	if err != nil {
		return fmt.Errorf("approve events: %w", err)
	}
	return c.withRetry(ctx, "approve events", func(ctx context.Context) error {
		_, err := c.do(ctx, call{method: http.MethodPost, path: scheduledEventsPath,
			query: url.Values{"api-version": {c.apiVersion}}, body: body, timeout: c.requestTimeout})
		return err
	})
}

// checkEventIDs refuses an empty list or a blank ID.
func checkEventIDs(ids []string) error {
	if len(ids) == 0 {
		return errors.New("no event IDs given")
	}
	for i, id := range ids {
		if strings.TrimSpace(id) == "" {
			return fmt.Errorf("event ID %d is empty", i)
		}
	}
	return nil
}

// approvalBody encodes the POST body.
func approvalBody(ids []string, incarnation int) ([]byte, error) {
	a := approval{StartRequests: make([]startRequest, len(ids)), DocumentIncarnation: incarnation}
	for i, id := range ids {
		a.StartRequests[i] = startRequest{EventId: strings.TrimSpace(id)}
	}
	return json.Marshal(a)
}
