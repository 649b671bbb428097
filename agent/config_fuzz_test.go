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
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/forewarn/forewarn/client"
	"gopkg.in/yaml.v3"
)

// FuzzConfig: ParseConfig refuses a configuration with problems that each
// say where (a key or a line) and what is wrong, in words rather than Go
// types, or it gives one that New accepts: a single YAML document, with
// known event types and policies, hooks with commands, no negative
// duration, an endpoint the client can use and a webhook that net/http
// would send.
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
		"endpoint: http//10.0.0.1\nmetrics_addr: 9469\napi_version: 2020-7-1\n",
		"hooks:\n  Reboot: &d\n    on_scheduled: {command: x}\n  Redeploy: {<<: *d, on_started: {comand: y}}\n",
		"leader_only: maybe\nwebhook: {retries: 1.5, timeout: [1]}\n", "x: &a {<<: *a}\nhooks: &h {<<: *h}\n",
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
		checkSameAsYAML(t, data, cfg)
		cfg.StateFile = state
		if _, err := New(*cfg, nil); err != nil {
			t.Fatalf("%q: ParseConfig accepted it, New refused it: %v", data, err)
		}
		if cfg.Endpoint != "" {
			checkEndpointUsable(t, send, data, cfg.Endpoint)
		}
		if cfg.Webhook != nil {
			checkWebhookSendable(t, send, data, cfg.Webhook)
		}
	})
}

// goLeaks are what would show that a message speaks of Go rather than of
// the configuration: yaml.v3's "cannot unmarshal !!seq into agent.Hooks".
var goLeaks = []string{"unmarshal", "agent.", "!!", "yaml:", "reflect", "struct", "int64"}

// checkConfigError fails unless err lists problems that each say where (a
// key or a line; only a YAML syntax error may lack both) and what is
// wrong, without Go's words.
func checkConfigError(t *testing.T, data []byte, err error) {
	t.Helper()
	cerr, ok := errors.AsType[*ConfigError](err)
	if !ok || len(cerr.Problems) == 0 {
		t.Fatalf("%q: error %v, want a *ConfigError with problems", data, err)
	}
	for _, p := range cerr.Problems {
		if p.Key == "" && p.Line == 0 && !strings.HasPrefix(p.Message, "invalid YAML: ") {
			t.Fatalf("%q: problem %q does not say where", data, p)
		}
		if len(strings.TrimSpace(p.Message)) < 5 || strings.Contains(p.Message, "\n") {
			t.Fatalf("%q: problem %q does not say what on one line", data, p)
		}
		for _, leak := range goLeaks {
			if strings.Contains(p.Message, leak) && !bytes.Contains(data, []byte(leak)) {
				t.Fatalf("%q: problem %q speaks Go (%q)", data, p, leak)
			}
		}
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

// checkSameAsYAML fails unless yaml.v3, told to refuse unknown keys, reads
// an accepted configuration as ParseConfig did.
func checkSameAsYAML(t *testing.T, data []byte, cfg *Config) {
	t.Helper()
	var want Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&want); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("%q: accepted, but yaml.v3 refuses it: %v", data, err)
	}
	got := *cfg
	got.src = nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: read as\n%+v\nyaml.v3 reads\n%+v", data, got, want)
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

// checkEndpointUsable fails unless the client gets as far as connecting
// to the endpoint.
func checkEndpointUsable(t *testing.T, send *http.Transport, data []byte, endpoint string) {
	t.Helper()
	c := client.New(client.WithEndpoint(endpoint), client.WithHTTPClient(&http.Client{Transport: send}),
		client.WithRetry(1, 0))
	if _, err := c.Get(t.Context()); !errors.Is(err, errDialed) {
		t.Fatalf("%q: endpoint %q accepted, but the client cannot use it: %v", data, endpoint, err)
	}
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
		{"endpoint: http://127.0.0.1:8169\n---\nendpont: http://10.0.0.1\n",
			"line 2: a second YAML document: the configuration is a single document"},
		{"webhook: {url: 'http://%zz'}", `webhook.url (line 1): "http://%zz": invalid URL escape "%zz"`},
		{"webhook: {url: 'http://'}", `webhook.url (line 1): "http://": want http:// or https:// and a host`},
		{"webhook: {url: 'http://x', headers: {'Bad Name': v}}",
			"webhook.headers.Bad Name (line 1): not a header name: want letters, digits and !#$%&'*+-.^_`|~ only"},
		{"webhook: {url: 'http://x', headers: {X-Token: \"a\\r\\nX-Admin: 1\"}}",
			"webhook.headers.X-Token (line 1): the value holds a control character"},
	} {
		_, err := ParseConfig([]byte(tc.yaml))
		if want := "agent config: " + tc.says; err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", tc.yaml, err, want)
		}
	}
	ok := "---\nwebhook: {url: 'HTTPS://hooks.example/x', headers: {X-Token: \"a b\\tc\", \"~x_y\": ''}}\n"
	if _, err := ParseConfig([]byte(ok)); err != nil {
		t.Errorf("%q: %v", ok, err)
	}
}
