package client

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrEndpointNotFound: no lease file read by DiscoverEndpoint carries DHCP
// option 245.
var ErrEndpointNotFound = errors.New("no DHCP option 245 (Azure host endpoint) found in the lease files")

// maxLeaseFile bounds what DiscoverEndpoint reads of one lease file.
const maxLeaseFile = 1 << 20

// defaultLeasePatterns are where dhclient (Debian, Red Hat, NetworkManager)
// and systemd-networkd keep their leases.
var defaultLeasePatterns = []string{
	"/var/lib/dhcp/dhclient*.leases",
	"/var/lib/dhclient/dhclient*.leases",
	"/var/lib/dhclient/*.lease",
	"/var/lib/NetworkManager/dhclient-*.lease",
	"/run/systemd/netif/leases/*",
}

// DefaultLeaseFiles returns the lease files DiscoverEndpoint reads when it
// is given none: those of dhclient under /var/lib/dhcp, /var/lib/dhclient
// and /var/lib/NetworkManager, and those of systemd-networkd under
// /run/systemd/netif/leases, in that order.
func DefaultLeaseFiles() []string {
	var files []string
	for _, pattern := range defaultLeasePatterns {
		matches, _ := filepath.Glob(pattern) // the patterns are well formed
		files = append(files, matches...)
	}
	return files
}

// DiscoverEndpoint finds the host endpoint of a VM outside a virtual
// network, whose metadata service is not at 169.254.169.254, the way
// Azure's sample for such VMs does: from DHCP option 245 of the VM's lease,
// which carries the host's IPv4 address. It reads the lease files given, or
// DefaultLeaseFiles when none are, in order, and returns "http://" and the
// address of the first that has the option, such as
// "http://168.63.129.16". It understands dhclient leases ("option
// unknown-245 a8:3f:81:10;", the newest lease of a file winning) and
// systemd-networkd leases ("OPTION_245=A83F8110"). Missing files are
// skipped; when no file has the option the error wraps ErrEndpointNotFound
// and says what was read.
func DiscoverEndpoint(leaseFiles ...string) (string, error) {
	if len(leaseFiles) == 0 {
		leaseFiles = DefaultLeaseFiles()
	}
	var problems []string
	read := 0
	for _, path := range leaseFiles {
		addr, found, err := leaseEndpoint(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			problems = append(problems, err.Error())
		case found:
			return "http://" + addr.String(), nil
		}
		read++
	}
	if len(problems) > 0 {
		return "", fmt.Errorf("discover endpoint: %w (%d of %d lease files read; %s)",
			ErrEndpointNotFound, read, len(leaseFiles), strings.Join(problems, "; "))
	}
	return "", fmt.Errorf("discover endpoint: %w (%d of %d lease files read)", ErrEndpointNotFound, read, len(leaseFiles))
}

// leaseEndpoint reads one lease file and returns the address its option 245
// carries, if any. A malformed option is an error.
func leaseEndpoint(path string) (netip.Addr, bool, error) {
	data, err := readLeaseFile(path)
	if err != nil {
		return netip.Addr{}, false, err
	}
	var addr netip.Addr
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxLeaseFile)
	for line := 1; sc.Scan(); line++ {
		raw, ok := option245(sc.Text())
		if !ok {
			continue
		}
		a, err := parseOption245(raw)
		if err != nil {
			return netip.Addr{}, false, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		addr, found = a, true // later leases of a dhclient file are newer
	}
	if err := sc.Err(); err != nil {
		return netip.Addr{}, false, fmt.Errorf("read %s: %w", path, err)
	}
	return addr, found, nil
}

// readLeaseFile reads a lease file of at most maxLeaseFile bytes.
func readLeaseFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read lease file: %w", err)
	}
	if len(data) > maxLeaseFile {
		return nil, fmt.Errorf("read %s: lease file over %d bytes", path, maxLeaseFile)
	}
	return data, nil
}

// option245 returns the raw value of option 245 on a lease file line, in
// either syntax, and whether the line carries it.
func option245(line string) (string, bool) {
	line = strings.TrimSpace(line)
	if v, ok := strings.CutPrefix(line, "OPTION_245="); ok { // systemd-networkd
		return strings.TrimSpace(v), true
	}
	fields := strings.Fields(line) // dhclient: option unknown-245 a8:3f:81:10;
	if len(fields) < 3 || fields[0] != "option" || fields[1] != "unknown-245" {
		return "", false
	}
	v := strings.TrimSpace(strings.TrimPrefix(line, "option"))
	v = strings.TrimSpace(strings.TrimPrefix(v, "unknown-245"))
	return strings.TrimSpace(strings.TrimSuffix(v, ";")), true
}

// parseOption245 decodes the four bytes of an IPv4 address written as
// dhclient does (hex bytes joined by colons, or a quoted string when every
// byte is printable) or as systemd-networkd does (8 hex digits).
func parseOption245(v string) (netip.Addr, error) {
	var b []byte
	var err error
	switch {
	case strings.HasPrefix(v, `"`):
		b, err = unquoteDhclient(v)
	case strings.Contains(v, ":"):
		b, err = colonHex(v)
	default:
		b, err = hex.DecodeString(v)
	}
	if err != nil {
		return netip.Addr{}, fmt.Errorf("option 245 %q: %w", v, err)
	}
	if len(b) != 4 {
		return netip.Addr{}, fmt.Errorf("option 245 %q: %d bytes, want the 4 of an IPv4 address", v, len(b))
	}
	addr := netip.AddrFrom4([4]byte(b))
	if addr.IsUnspecified() || addr.IsMulticast() || addr == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return netip.Addr{}, fmt.Errorf("option 245 %q: %s is not a host address", v, addr)
	}
	return addr, nil
}

// colonHex decodes "a8:3f:81:10" (dhclient drops leading zeros: "a:0:1:2").
func colonHex(v string) ([]byte, error) {
	parts := strings.Split(v, ":")
	b := make([]byte, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 16, 8)
		if err != nil || len(p) > 2 {
			return nil, fmt.Errorf("byte %d %q is not hexadecimal", i+1, p)
		}
		b[i] = byte(n)
	}
	return b, nil
}

// unquoteDhclient decodes a dhclient quoted string, whose escapes are
// backslash and three octal digits, or backslash and the character.
func unquoteDhclient(v string) ([]byte, error) {
	if len(v) < 2 || !strings.HasSuffix(v, `"`) {
		return nil, errors.New("unterminated string")
	}
	s := v[1 : len(v)-1]
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b = append(b, s[i])
			continue
		}
		if i+3 < len(s) && isOctal(s[i+1:i+4]) {
			n, _ := strconv.ParseUint(s[i+1:i+4], 8, 8)
			b = append(b, byte(n))
			i += 3
			continue
		}
		if i+1 >= len(s) {
			return nil, errors.New("string ends in a backslash")
		}
		b = append(b, s[i+1])
		i++
	}
	return b, nil
}

// isOctal reports whether s is three octal digits of a byte value.
func isOctal(s string) bool {
	if len(s) != 3 || s[0] > '3' {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '7' {
			return false
		}
	}
	return true
}
