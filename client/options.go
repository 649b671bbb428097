package client

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"
)

// Option configures a Client in New.
type Option func(*Client)

// WithEndpoint sets the base URL of the metadata service, such as
// "http://127.0.0.1:8169" ("http://" is added when missing). Empty keeps the
// default: FOREWARN_ENDPOINT, else DefaultEndpoint.
func WithEndpoint(endpoint string) Option {
	return func(c *Client) {
		if endpoint != "" {
			c.endpoint = endpoint
		}
	}
}

// WithAPIVersion sets the Scheduled Events api-version (default
// DefaultAPIVersion). Empty keeps the default.
func WithAPIVersion(version string) Option {
	return func(c *Client) {
		if version != "" {
			c.apiVersion = version
		}
	}
}

// WithHTTPClient makes the client send its requests through hc, used as it
// is: its proxy settings, if any, apply. Nil keeps the default client, which
// never uses a proxy. It does not combine with WithSourceAddr (see there).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.httpClient = hc }
}

// WithSourceAddr makes the default HTTP client connect from addr, a local
// address of this host, instead of one the system picks. The metadata
// service knows the calling VM by the connection's source address, so this
// lets several programs on one host act as several VMs (tests, drills;
// Linux routes all of 127.0.0.0/8 to the loopback interface). An address
// the host cannot connect from (not its own, or not of the endpoint's
// family) fails the request at once, not retried, with ErrSourceAddr and
// the dial error, which names it. The zero Addr keeps the default.
//
// It shapes the default client only: a client given with WithHTTPClient is
// used as it is, so the two together are refused, every request failing
// with ErrConflictingOptions (set the dialer's LocalAddr on that client
// instead).
func WithSourceAddr(addr netip.Addr) Option {
	return func(c *Client) { c.sourceAddr = addr }
}

// ParseSourceAddr reads a source address for WithSourceAddr: one IP
// address, without a port, and not an unspecified one (0.0.0.0 or ::),
// which names no address of this host. Whether the host owns it is for the
// first request to find out.
func ParseSourceAddr(s string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return netip.Addr{}, fmt.Errorf("%q: want an IP address of this host, such as 127.0.0.2", s)
	case addr.IsUnspecified():
		return netip.Addr{}, fmt.Errorf("%q is no address of one host: want one such as 127.0.0.2", s)
	}
	return addr, nil
}

// WithLogger makes the client log retries and Watch's progress to logger.
// Without it the client logs nothing.
func WithLogger(logger *slog.Logger) Option {
	return func(c *Client) { c.logger = logger }
}

// WithRetry sets how many attempts Get, Approve and Instance make in all
// (at least 1; default 5) and the backoff before the first retry (default
// 250ms), which doubles at each retry up to 30s, with jitter. Watch uses the
// same backoff but never stops retrying. A base of 0 or less keeps the
// default.
func WithRetry(maxAttempts int, baseBackoff time.Duration) Option {
	return func(c *Client) {
		c.retry.attempts = max(maxAttempts, 1)
		if baseBackoff > 0 {
			c.retry.base = baseBackoff
		}
	}
}

// WithPollInterval sets how often Watch polls a service without long-poll
// (default 1s). It is also Watch's pause after an unchanged long-poll answer.
func WithPollInterval(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.pollInterval = d
		}
	}
}

// WithLongPollTimeout sets how long the service may hold Watch's long-poll
// request (default 60s; rounded up to whole seconds within 1s..300s). Zero
// or less turns long-poll off: Watch then always polls.
func WithLongPollTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d <= 0 {
			c.longPollTimeout = 0
			return
		}
		d = ((d + time.Second - 1) / time.Second) * time.Second
		c.longPollTimeout = min(max(d, time.Second), 300*time.Second)
	}
}

// WithTimeouts sets the deadline of the first Scheduled Events read (default
// 3m: the service may delay it up to two minutes while it enables itself)
// and of every other request (default 10s; a long-poll gets its hold time
// on top). Zero or less keeps a default.
func WithTimeouts(first, request time.Duration) Option {
	return func(c *Client) {
		if first > 0 {
			c.firstCallTimeout = first
		}
		if request > 0 {
			c.requestTimeout = request
		}
	}
}

// WithClock sets the clock that backoff and polling wait on (default: the
// system clock). clockwork's clocks satisfy Clock.
func WithClock(clock Clock) Option {
	return func(c *Client) {
		if clock != nil {
			c.clock = clock
		}
	}
}

// WithDiscovery makes New look for the host endpoint in the VM's DHCP lease
// (option 245, see DiscoverEndpoint) when neither WithEndpoint nor
// FOREWARN_ENDPOINT gives one: what a VM outside a virtual network needs.
// It reads leaseFiles, or DefaultLeaseFiles when none are given; when no
// lease has the option, the client uses DefaultEndpoint (and logs why).
func WithDiscovery(leaseFiles ...string) Option {
	return func(c *Client) {
		c.discover = true
		c.leaseFiles = append([]string(nil), leaseFiles...)
	}
}
