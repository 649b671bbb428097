package agent

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/forewarn/forewarn/client"

	"github.com/forewarn/forewarn/internal/yamlmsg"
)

// Validate checks every key without touching the file system or the
// network: the event types, policies, hooks, durations, endpoint, webhook
// and addresses. The error, a *ConfigError, lists every problem, those
// found while reading the file included; nil if there is none. New checks
// the state file on top.
func (c *Config) Validate() error {
	return c.check().err()
}

// checker collects the problems of a Config, each placed by its source.
type checker struct {
	src      *source
	problems []Problem
}

// add records err, if not nil, as a problem of key.
func (ch *checker) add(key string, err error) {
	if err != nil {
		ch.addf(key, "%v", err)
	}
}

// addf records a problem of key, placed where its value came from: a
// flag, else the line of the file.
func (ch *checker) addf(key, format string, args ...any) {
	p := Problem{Key: key, Message: fmt.Sprintf(format, args...)}
	if what, ok := ch.src.setBy[key]; ok {
		p.Key = what
	} else {
		p.Line = ch.src.lines[key]
	}
	ch.problems = append(ch.problems, p)
}

// err returns the problems as a *ConfigError, nil if there is none.
func (ch *checker) err() error {
	if len(ch.problems) == 0 {
		return nil
	}
	return &ConfigError{File: ch.src.file, Problems: ch.problems}
}

// check runs Validate's checks.
func (c *Config) check() *checker {
	src := c.src
	if src == nil {
		src = &source{}
	}
	ch := &checker{src: src, problems: slices.Clone(src.problems)}
	if c.Endpoint != "" {
		ch.add("endpoint", checkEndpoint(c.Endpoint))
	}
	if c.SourceAddr != "" {
		_, err := client.ParseSourceAddr(c.SourceAddr)
		ch.add("source_addr", err)
		if c.HTTPClient != nil {
			ch.addf("source_addr", "set with Config.HTTPClient, which is used as it is: bind its dialer instead")
		}
	}
	if c.APIVersion != "" {
		ch.add("api_version", checkAPIVersion(c.APIVersion))
	}
	if c.VMName != "" && strings.TrimSpace(c.VMName) != c.VMName {
		ch.addf("vm_name", "%s has spaces around it: no Resources would match it", yamlmsg.Quote(c.VMName))
	}
	for typ, hooks := range c.Hooks {
		key := join("hooks", yamlmsg.Shorten(string(typ)))
		ch.add(key, checkType(typ))
		for name, h := range hooks.byName() {
			if h != nil {
				checkHook(ch, join(key, name), h)
			}
		}
	}
	for typ, p := range c.Approval {
		key := join("approval", yamlmsg.Shorten(string(typ)))
		ch.add(key, checkType(typ))
		ch.add(key, checkPolicy(p))
	}
	checkNotNegative(ch, "leader_fallback", c.LeaderFallback)
	if c.Webhook != nil {
		c.Webhook.check(ch)
	}
	if c.MetricsAddr != "" {
		ch.add("metrics_addr", checkListenAddr(c.MetricsAddr))
	}
	return ch
}

// checkHook checks one hook: a command, and a timeout that is not negative.
func checkHook(ch *checker, key string, h *Hook) {
	// A misspelt "comand" says more than "no command" would.
	if strings.TrimSpace(h.Command) == "" && !ch.src.unknownKeys[key] {
		ch.addf(key, "no command")
	}
	checkNotNegative(ch, join(key, "timeout"), h.Timeout)
}

// checkNotNegative refuses a negative duration (a Config built in Go may
// have one; the YAML reader refuses them).
func checkNotNegative(ch *checker, key string, d Duration) {
	if d < 0 {
		ch.addf(key, "negative duration %v", time.Duration(d))
	}
}

// checkType refuses a key that is no event type.
func checkType(t EventType) error {
	known := make([]string, len(eventTypes))
	for i, k := range eventTypes {
		known[i] = string(k)
	}
	if slices.Contains(known, string(t)) {
		return nil
	}
	return fmt.Errorf("unknown event type%s", didYouMean(string(t), known))
}

// policies are the values of Approval.
var policies = []string{string(Never), string(AfterHook), string(Immediately)}

// checkPolicy refuses an unknown approval policy.
func checkPolicy(p Policy) error {
	switch {
	case slices.Contains(policies, string(p)):
		return nil
	case p == "":
		return fmt.Errorf("no policy: want %s", orList(policies))
	}
	return fmt.Errorf("unknown policy %s%s", yamlmsg.Quote(string(p)), didYouMean(string(p), policies))
}

// checkEndpoint checks the metadata service's base URL as the client will
// use it (with "http://" added when the scheme is missing), so that a
// mistake is refused at start rather than retried for ever.
func checkEndpoint(raw string) error {
	trimmed := strings.TrimRight(strings.TrimSpace(raw), "/")
	if !strings.Contains(trimmed, "://") && strings.Contains(trimmed, "/") {
		return fmt.Errorf("%s: want http://host[:port] (or host[:port] alone)", yamlmsg.Quote(raw))
	}
	u, err := checkHTTPURL(client.New(client.WithEndpoint(raw)).Endpoint())
	if err != nil {
		return fmt.Errorf("%s: %w", yamlmsg.Quote(raw), err)
	}
	switch {
	case strings.Contains(u.Path, "/metadata"):
		return fmt.Errorf("%s: want the service's base URL, without /metadata/...: the agent adds the paths", yamlmsg.Quote(raw))
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%s: want a base URL, without a query or fragment", yamlmsg.Quote(raw))
	}
	return nil
}

// checkHTTPURL parses an http or https URL with a host and a valid port.
func checkHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if uerr, ok := errors.AsType[*url.Error](err); ok {
		return nil, uerr.Err
	}
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, errors.New("want http:// or https:// and a host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("port %s: want 1 to 65535", p)
		}
	}
	return u, nil
}

// checkAPIVersion checks the form of an api-version: a date, such as
// 2020-07-01, perhaps with a suffix such as -preview. Which versions the
// service takes is for it to say.
func checkAPIVersion(v string) error {
	date, suffix, _ := strings.Cut(v, "-preview")
	if _, err := time.Parse(time.DateOnly, date); err != nil || suffix != "" {
		return fmt.Errorf("%s: want a date such as %s", yamlmsg.Quote(v), client.DefaultAPIVersion)
	}
	return nil
}

// checkListenAddr checks the form of a listening address: host:port, the
// host possibly empty, the port a number.
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		if n, perr := strconv.Atoi(port); perr != nil || n < 0 || n > 65535 {
			err = fmt.Errorf("port %s: want 0 to 65535", yamlmsg.Quote(port))
		}
	}
	if err != nil {
		return fmt.Errorf("%s: want host:port, such as 127.0.0.1:9469", yamlmsg.Quote(addr))
	}
	return nil
}

// check checks the URL and the headers, so that a webhook net/http could
// never send is refused at start rather than at every transition, the
// template, the retries and the timeout.
func (w *WebhookConfig) check(ch *checker) {
	if w.URL == "" {
		ch.addf("webhook", "no url")
	} else if _, err := checkHTTPURL(w.URL); err != nil {
		ch.addf("webhook.url", "%s: %v", yamlmsg.Quote(w.URL), err)
	}
	for name, value := range w.Headers {
		ch.add(join("webhook.headers", yamlmsg.Shorten(name)), checkHeader(name, value))
	}
	if _, err := parseTemplate(w.Template); err != nil {
		ch.add("webhook.template", errors.Unwrap(err)) // text/template's own says "template: "
	}
	if w.Retries < -1 {
		ch.addf("webhook.retries", "%d: want -1 (no retries), 0 (the default, %d) or more", w.Retries, DefaultWebhookRetries)
	}
	checkNotNegative(ch, "webhook.timeout", w.Timeout)
}

// tokenPunct are the characters of an RFC 9110 token besides ASCII letters
// and digits.
const tokenPunct = "!#$%&'*+-.^_`|~"

// checkHeader refuses what net/http refuses to send (RFC 9110 5.1 and
// 5.5): a name that is not a token, a value with a control character other
// than a tab.
func checkHeader(name, value string) error {
	notToken := func(r rune) bool {
		return r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(tokenPunct, r)
	}
	if name == "" || strings.ContainsFunc(name, notToken) {
		return fmt.Errorf("not a header name: want letters, digits and %s only", tokenPunct)
	}
	if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
		return errors.New("the value holds a control character")
	}
	return nil
}

// checkState makes sure the state file at path can be written and read;
// it returns the opened state. isDefault says that the path is DefaultStateFile, not asked for.
func checkState(ch *checker, path string, isDefault bool) *store {
	err := checkWritable(path)
	var st *store
	if err == nil {
		st, err = openStore(path)
	}
	if err != nil {
		if isDefault {
			err = fmt.Errorf("%w (the default: set state_file or --state-file)", err)
		}
		ch.add("state_file", err)
	}
	return st
}

// checkEnvEndpoint checks the endpoint the client takes from its
// environment variable when the configuration names none.
func checkEnvEndpoint(ch *checker) {
	v := os.Getenv(client.EndpointEnv)
	if v == "" {
		return
	}
	if err := checkEndpoint(v); err != nil {
		ch.problems = append(ch.problems, Problem{Key: "$" + client.EndpointEnv, Message: err.Error()})
	}
}
