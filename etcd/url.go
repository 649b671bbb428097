package etcd

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/forewarn/forewarn"
)

// Scheme is the scheme of a store URL that names etcd.
const Scheme = "etcd"

// ParseURL reads a store URL, etcd://[user[:password]@]host:port[,host:port...][/prefix],
// into a Config: the endpoints, and the prefix (DefaultPrefix if the URL
// has no path). User and password are percent-decoded; a password is better
// given out of the URL. TLS, timeouts and the logger are left to the caller.
func ParseURL(raw string) (Config, error) {
	rest, ok := strings.CutPrefix(raw, Scheme+"://")
	if !ok {
		return Config{}, forewarn.Errorf(forewarn.ErrInvalid, "store URL %q does not start with %s://", Redact(raw), Scheme)
	}
	hosts, path, _ := strings.Cut(rest, "/")
	var cfg Config
	if at := strings.LastIndex(hosts, "@"); at >= 0 {
		if err := parseUserinfo(hosts[:at], &cfg); err != nil {
			return Config{}, err
		}
		hosts = hosts[at+1:]
	}
	for host := range strings.SplitSeq(hosts, ",") {
		if !validHostPort(host) {
			return Config{}, forewarn.Errorf(forewarn.ErrInvalid,
				"store URL %q: endpoint %q is not host:port", Redact(raw), host)
		}
		cfg.Endpoints = append(cfg.Endpoints, host)
	}
	cfg.Prefix = DefaultPrefix
	if path = strings.Trim(path, "/"); path != "" {
		if strings.ContainsAny(path, "?#") {
			return Config{}, forewarn.Errorf(forewarn.ErrInvalid,
				"store URL %q: queries and fragments are not supported", Redact(raw))
		}
		cfg.Prefix = "/" + path
	}
	return cfg, nil
}

// parseUserinfo reads "user[:password]", percent-encoded, into cfg.
func parseUserinfo(info string, cfg *Config) error {
	user, password, _ := strings.Cut(info, ":")
	var err1, err2 error
	cfg.Username, err1 = url.PathUnescape(user)
	cfg.Password, err2 = url.PathUnescape(password)
	if err1 != nil || err2 != nil || cfg.Username == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "store URL: user and password are not valid")
	}
	return nil
}

// validHostPort reports whether s is host:port with a non-empty host and a
// numeric port; an IPv6 host is in brackets.
func validHostPort(s string) bool {
	i := strings.LastIndex(s, ":")
	if i <= 0 || i == len(s)-1 {
		return false
	}
	host, port := s[:i], s[i+1:]
	if strings.HasPrefix(host, "[") != strings.HasSuffix(host, "]") || strings.ContainsAny(host, " /@") {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535 && !strings.ContainsAny(port, "+-")
}

// Redact hides the password of a store URL, for messages.
func Redact(raw string) string {
	rest, ok := strings.CutPrefix(raw, Scheme+"://")
	if !ok {
		return raw
	}
	hosts, _, _ := strings.Cut(rest, "/")
	at := strings.LastIndex(hosts, "@")
	if at < 0 {
		return raw
	}
	user, _, hasPassword := strings.Cut(hosts[:at], ":")
	if !hasPassword {
		return raw
	}
	return Scheme + "://" + user + ":xxxxx" + rest[at:]
}
