package agent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzConfig: ParseConfig refuses a configuration with an error that says
// where or what is wrong, or it gives one that New accepts: a single YAML
// document, with known event types and policies, hooks with commands, no
// negative duration, and a webhook that net/http would send.
func FuzzConfig(f *testing.F) {
	example, err := os.ReadFile("../examples/agent.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	for _, seed := range []string{
		"", "{}", "---\nendpoint: http://127.0.0.1:8169\n",
		"hooks:\n  default:\n    on_started: {command: 'echo $FOREWARN_EVENT_ID', timeout: 90s}\napproval: {default: immediately}\n",
		"leader_only: true\nleader_fallback: 1m30s\nscope_events: true\n",
		"webhook:\n  url: https://hooks.example/x\n  headers: {Authorization: Bearer t}\n  template: '{{json .Event}}'\n  retries: -1\n  timeout: 5s\n",
		"hooks: {Reboot: {on_scheduled: {timeout: 1m}}}", // no command
		"approval: {Reboot: always}", "hooks: {reboot: {}}", // unknown policy, type
		"leader_fallback: -5s", "leader_fallback: 30", "nope: 1", // bad duration, unknown key
		"endpoint: a\nendpoint: b", "webhook: {url: ftp://x}", "webhook: {url: 'http://x', template: '{{'}",
		"endpoint: a\n---\nnope: 1\n", // a second document
		"webhook: {url: 'http://%zz'}", "webhook: {url: 'http://x', headers: {'Bad Name': v}}",
	} {
		f.Add([]byte(seed))
	}
	state := filepath.Join(f.TempDir(), "state.json")
	send := dryTransport()
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			checkConfigError(t, data, err)
			return
		}
		checkConfig(t, data, cfg)
		cfg.StateFile = state
		if _, err := New(*cfg, nil); err != nil {
			t.Fatalf("%q: ParseConfig accepted it, New refused it: %v", data, err)
		}
		if cfg.Webhook != nil {
			checkWebhookSendable(t, send, data, cfg.Webhook)
		}
	})
}

// configErrorPrefixes begin the errors of ParseConfig: the YAML decoder's
// (with a line), a duration's (with its line), and Validate's (the key).
var configErrorPrefixes = []string{"yaml: ", "line ", "hooks: ", "approval: ", "webhook: ", "agent config: "}

// checkConfigError fails unless err says where or what is wrong.
func checkConfigError(t *testing.T, data []byte, err error) {
	t.Helper()
	msg := err.Error()
	if !slices.ContainsFunc(configErrorPrefixes, func(p string) bool { return strings.HasPrefix(msg, p) }) ||
		len(strings.TrimSpace(msg)) < 12 {
		t.Fatalf("%q: error %q does not say where or what", data, msg)
	}
}

// checkConfig fails unless an accepted configuration was one YAML document
// and holds what Validate promises.
func checkConfig(t *testing.T, data []byte, cfg *Config) {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if dec.Decode(&first) == nil && dec.Decode(&second) == nil {
		t.Fatalf("%q: accepted with a second YAML document at line %d", data, second.Line)
	}
	for typ, hooks := range cfg.Hooks {
		if !slices.Contains(eventTypes, typ) {
			t.Fatalf("%q: hooks of unknown type %q accepted", data, typ)
		}
		for _, h := range []*Hook{hooks.OnScheduled, hooks.OnStarted, hooks.OnCompleted, hooks.OnCancelled} {
			if h != nil && (strings.TrimSpace(h.Command) == "" || h.Timeout < 0) {
				t.Fatalf("%q: hook %+v accepted", data, *h)
			}
		}
	}
	for typ, p := range cfg.Approval {
		if !slices.Contains(eventTypes, typ) || !slices.Contains([]Policy{Never, AfterHook, Immediately}, p) {
			t.Fatalf("%q: approval %q: %q accepted", data, typ, p)
		}
	}
	if cfg.LeaderFallback < 0 || cfg.Webhook != nil && cfg.Webhook.Timeout < 0 {
		t.Fatalf("%q: negative duration accepted", data)
	}
}

// errDialed ends a dryTransport's round trip where it would connect.
var errDialed = errors.New("dialed")

// dryTransport is a Transport that checks a request as the webhook's would
// and stops where it would connect.
func dryTransport() *http.Transport {
	dial := func(context.Context, string, string) (net.Conn, error) { return nil, errDialed }
	return &http.Transport{DialContext: dial, DialTLSContext: dial}
}

// checkWebhookSendable fails unless net/http would get as far as
// connecting to send the webhook's POST: its URL and headers are valid.
func checkWebhookSendable(t *testing.T, send *http.Transport, data []byte, w *WebhookConfig) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, w.URL, io.NopCloser(strings.NewReader("{}")))
	if err == nil {
		for k, v := range w.Headers {
			req.Header.Set(k, v)
		}
		_, err = send.RoundTrip(req)
	}
	if !errors.Is(err, errDialed) {
		t.Fatalf("%q: webhook %+v accepted, but it cannot be sent: %v", data, *w, err)
	}
}

// TestParseConfigRefusesWhatFuzzConfigFound: a second YAML document (which
// was ignored, unknown keys and all) and a webhook that net/http cannot
// send (which failed at every transition, in the log only) are refused
// with an error that says what is wrong. Found by FuzzConfig.
func TestParseConfigRefusesWhatFuzzConfigFound(t *testing.T) {
	for _, tc := range []struct{ yaml, says string }{
		{"endpoint: http://127.0.0.1:8169\n---\nendpont: http://10.0.0.1\n", "line 2: a second YAML document"},
		{"webhook: {url: 'http://%zz'}", `webhook: url: parse "http://%zz": invalid URL escape`},
		{"webhook: {url: 'http://'}", `webhook: url "http://": want http:// or https:// and a host`},
		{"webhook: {url: 'http://x', headers: {'Bad Name': v}}", `webhook: headers: name "Bad Name"`},
		{"webhook: {url: 'http://x', headers: {X-Token: \"a\\r\\nX-Admin: 1\"}}", "webhook: headers: X-Token: the value holds a control character"},
	} {
		_, err := ParseConfig([]byte(tc.yaml))
		if err == nil || !strings.HasPrefix(err.Error(), tc.says) {
			t.Errorf("%q: error %v, want %s...", tc.yaml, err, tc.says)
		}
	}
	ok := "---\nwebhook: {url: 'HTTPS://hooks.example/x', headers: {X-Token: \"a b\\tc\", \"~x_y\": ''}}\n"
	if _, err := ParseConfig([]byte(ok)); err != nil {
		t.Errorf("%q: %v", ok, err)
	}
}
