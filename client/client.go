package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Defaults of a Client.
const (
	// DefaultEndpoint is the metadata service's link-local address.
	DefaultEndpoint = "http://169.254.169.254"
	// EndpointEnv names the environment variable that overrides
	// DefaultEndpoint when WithEndpoint is not given.
	EndpointEnv = "FOREWARN_ENDPOINT"
	// DefaultAPIVersion is the Scheduled Events api-version used unless
	// WithAPIVersion says otherwise: the first with DurationInSeconds.
	DefaultAPIVersion = "2020-07-01"
	// InstanceAPIVersion is the api-version of Instance's request.
	InstanceAPIVersion = "2021-02-01"

	defaultPollInterval     = time.Second
	defaultLongPollTimeout  = 60 * time.Second
	defaultFirstCallTimeout = 3 * time.Minute
	defaultRequestTimeout   = 10 * time.Second
	defaultMaxAttempts      = 5
	defaultBaseBackoff      = 250 * time.Millisecond
	maxBackoff              = 30 * time.Second

	scheduledEventsPath = "/metadata/scheduledevents"
	computePath         = "/metadata/instance/compute"
	userAgent           = "forewarn-client-go/1"
)

// Client talks to one metadata service. It is safe for concurrent use.
type Client struct {
	endpoint         string
	base             *url.URL
	baseErr          error
	apiVersion       string
	httpClient       *http.Client
	sourceAddr       netip.Addr // WithSourceAddr's; the zero Addr if none
	optErr           error      // options that do not go together
	logger           *slog.Logger
	clock            Clock
	retry            retryPolicy
	pollInterval     time.Duration
	longPollTimeout  time.Duration
	firstCallTimeout time.Duration
	requestTimeout   time.Duration
	discover         bool     // WithDiscovery was given
	leaseFiles       []string // its lease files; none means the defaults

	// enabled is set once a Scheduled Events read has been answered; until
	// then reads get firstCallTimeout.
	enabled atomic.Bool
	// incarnation is the last DocumentIncarnation seen, 0 before any.
	incarnation atomic.Int64
}

// New returns a Client configured by opts.
func New(opts ...Option) *Client {
	c := &Client{
		endpoint:         os.Getenv(EndpointEnv),
		apiVersion:       DefaultAPIVersion,
		clock:            realClock{},
		retry:            retryPolicy{attempts: defaultMaxAttempts, base: defaultBaseBackoff, max: maxBackoff},
		pollInterval:     defaultPollInterval,
		longPollTimeout:  defaultLongPollTimeout,
		firstCallTimeout: defaultFirstCallTimeout,
		requestTimeout:   defaultRequestTimeout,
	}
	for _, opt := range opts {
		opt(c)
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.endpoint == "" && c.discover {
		c.endpoint = c.discoverEndpoint()
	}
	if c.endpoint == "" {
		c.endpoint = DefaultEndpoint
	}
	c.endpoint = normalizeEndpoint(c.endpoint)
	c.base, c.baseErr = parseEndpoint(c.endpoint)
	switch {
	case c.httpClient == nil:
		c.httpClient = newHTTPClient(c.sourceAddr)
	case c.sourceAddr.IsValid():
		c.optErr = fmt.Errorf("%w: WithSourceAddr(%s) shapes the default HTTP client, not one given with WithHTTPClient",
			ErrConflictingOptions, c.sourceAddr)
	}
	return c
}

// discoverEndpoint runs DiscoverEndpoint for WithDiscovery; it returns ""
// (the default endpoint) when discovery finds nothing.
func (c *Client) discoverEndpoint() string {
	endpoint, err := DiscoverEndpoint(c.leaseFiles...)
	if err != nil {
		c.logger.Info("no host endpoint in the DHCP leases, using the default", "error", err, "endpoint", DefaultEndpoint)
		return ""
	}
	c.logger.Info("host endpoint discovered from the DHCP lease", "endpoint", endpoint)
	return endpoint
}

// Endpoint returns the base URL the client talks to.
func (c *Client) Endpoint() string { return c.endpoint }

// normalizeEndpoint trims spaces and trailing slashes and adds "http://"
// when the scheme is missing ("127.0.0.1:8169").
func normalizeEndpoint(s string) string {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(s), "://")
	if !ok {
		scheme, rest = "http", scheme
	}
	return scheme + "://" + strings.TrimRight(rest, "/")
}

// parseEndpoint checks that the endpoint is an http(s) URL with a host.
func parseEndpoint(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrInvalidEndpoint, s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("%w %q: want http://host[:port]", ErrInvalidEndpoint, s)
	}
	return u, nil
}

// newHTTPClient returns the default client: no proxy (metadata must be
// reached directly), bounded dialing, from source if it is valid, no
// redirects. Request deadlines come from contexts.
func newHTTPClient(source netip.Addr) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         DialFrom(source),
			MaxIdleConns:        4,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 5 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// ErrSourceAddr is a source address (WithSourceAddr) the host cannot
// connect from: not one of its addresses, or not of the endpoint's family.
// A request that fails so is not retried.
var ErrSourceAddr = errors.New("this host cannot connect from that source address: not one of its addresses, or not of the endpoint's family (IPv4, IPv6)")

// unusableSource reports whether a dial failed for its local address.
func unusableSource(err error) bool {
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		return true
	}
	addrErr, ok := errors.AsType[*net.AddrError](err)
	return ok && strings.Contains(addrErr.Err, "no suitable address")
}

// DialFrom returns the dial function of the SDK's default client, for a
// transport of one's own: bounded, from source if it is valid (the local
// address the metadata endpoint knows a VM by), when a failure then names
// it.
func DialFrom(source netip.Addr) func(ctx context.Context, network, addr string) (net.Conn, error) {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !source.IsValid() {
		return dialer.DialContext
	}
	dialer.LocalAddr = net.TCPAddrFromAddrPort(netip.AddrPortFrom(source, 0))
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		switch {
		case err == nil:
			return conn, nil
		case unusableSource(err):
			return nil, fmt.Errorf("connect from source address %s: %w (%w)", source, err, ErrSourceAddr)
		}
		return nil, fmt.Errorf("connect from source address %s: %w", source, err)
	}
}
