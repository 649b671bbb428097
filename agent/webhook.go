package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"text/template"
	"time"

	"github.com/forewarn/forewarn/client"
	"github.com/jonboulle/clockwork"
)

// Notification is what a webhook template is executed over.
type Notification struct {
	// VM is this agent's VM.
	VM string `json:"vm"`
	// Status is the transition: Scheduled, Started, Completed, Cancelled.
	Status string `json:"status"`
	// Event is the event, as last seen.
	Event client.Event `json:"event"`
	// Time is when the agent noticed the transition.
	Time time.Time `json:"time"`
}

// defaultTemplate posts the notification as a JSON object.
const defaultTemplate = `{{json .}}`

// webhookQueue is how many notifications may wait; more are dropped.
const webhookQueue = 64

// parseTemplate parses a webhook template, "" giving the default.
func parseTemplate(text string) (*template.Template, error) {
	if strings.TrimSpace(text) == "" {
		text = defaultTemplate
	}
	t, err := template.New("webhook").Option("missingkey=error").Funcs(template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
	}).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return t, nil
}

// webhook posts notifications from a goroutine of its own, so that a slow
// receiver never holds up the hooks.
type webhook struct {
	cfg   WebhookConfig
	tmpl  *template.Template
	http  *http.Client
	clock clockwork.Clock
	log   *slog.Logger
	queue chan Notification
}

// newWebhook prepares the webhook of cfg; nil when cfg is nil.
func newWebhook(cfg *WebhookConfig, clock clockwork.Clock, log *slog.Logger) (*webhook, error) {
	if cfg == nil {
		return nil, nil
	}
	t, err := parseTemplate(cfg.Template)
	if err != nil {
		return nil, fmt.Errorf("webhook: %w", err)
	}
	c := *cfg
	if c.Timeout <= 0 {
		c.Timeout = Duration(DefaultWebhookTimeout)
	}
	if c.Retries == 0 {
		c.Retries = DefaultWebhookRetries
	}
	return &webhook{cfg: c, tmpl: t, http: &http.Client{}, clock: clock,
		log: log.With("component", "webhook"), queue: make(chan Notification, webhookQueue)}, nil
}

// notify queues n, dropping it (with a warning) when the queue is full.
func (w *webhook) notify(n Notification) {
	if w == nil {
		return
	}
	select {
	case w.queue <- n:
	default:
		w.log.Warn("webhook queue full, notification dropped", "event_id", n.Event.EventId, "status", n.Status)
	}
}

// run sends the queued notifications until ctx ends.
func (w *webhook) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case n := <-w.queue:
			w.send(ctx, n)
		}
	}
}

// send posts n, retrying with exponential backoff from 1s.
func (w *webhook) send(ctx context.Context, n Notification) {
	log := w.log.With("event_id", n.Event.EventId, "event_type", n.Event.EventType, "status", n.Status)
	var body bytes.Buffer
	if err := w.tmpl.Execute(&body, n); err != nil {
		log.Error("webhook template failed", "error", err)
		return
	}
	backoff := time.Second
	for attempt := 0; ; attempt++ {
		err := w.post(ctx, body.Bytes())
		if err == nil {
			log.Debug("webhook sent", "attempts", attempt+1)
			return
		}
		if attempt >= max(w.cfg.Retries, 0) || ctx.Err() != nil {
			log.Error("webhook failed", "error", err, "attempts", attempt+1)
			return
		}
		log.Warn("webhook failed, retrying", "error", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-w.clock.After(backoff):
		}
		backoff = min(backoff*2, 30*time.Second)
	}
}

// post makes one POST of body.
func (w *webhook) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(w.cfg.Timeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range w.cfg.Headers {
		req.Header.Set(k, v)
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 300 {
		return fmt.Errorf("status %s", resp.Status)
	}
	return nil
}
