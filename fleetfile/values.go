package fleetfile

import (
	"net/netip"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn"

	"github.com/forewarn/forewarn/internal/yamlmsg"
	"github.com/forewarn/forewarn/internal/yamlnode"
)

// kind reads a kind of scope; absent means an availability set, and ""
// comes back for an invalid one.
func (p *parser) kind(n *yaml.Node, path string) forewarn.ScopeKind {
	if n == nil || yamlnode.IsNull(n) {
		return forewarn.AvailabilitySet
	}
	s, ok := p.Str(n, path)
	if !ok {
		return ""
	}
	for _, k := range []forewarn.ScopeKind{forewarn.AvailabilitySet, forewarn.ScaleSet, forewarn.CloudService} {
		if strings.EqualFold(s, string(k)) {
			return k
		}
	}
	if strings.EqualFold(s, string(forewarn.Standalone)) {
		p.Addf(n, path, "standalone VMs go in the top-level vms list, not in scopes")
	} else {
		p.Addf(n, path, "%s is not a kind of scope: want availability-set, scale-set or cloud-service", yamlmsg.Quote(s))
	}
	return ""
}

// count reads a scope's count of update or fault domains, def if absent,
// and 0 if it is invalid.
func (p *parser) count(n *yaml.Node, path string, def, limit int) int {
	if n == nil || yamlnode.IsNull(n) {
		return def
	}
	v, ok := p.Integer(n, path)
	if !ok {
		return 0
	}
	if v < 1 || v > limit {
		p.Addf(n, path, "%d is out of range 1..%d", v, limit)
		return 0
	}
	return v
}

// terminateNotice reads a scale set's terminate notice: the default if
// absent, and none for the other kinds.
func (p *parser) terminateNotice(n *yaml.Node, path string, kind forewarn.ScopeKind) forewarn.Duration {
	if n == nil || yamlnode.IsNull(n) {
		if kind == forewarn.ScaleSet {
			return forewarn.Duration(forewarn.DefaultTerminateNotice)
		}
		return 0
	}
	if kind != forewarn.ScaleSet && kind != "" {
		p.Addf(n, path, "only a scale set has a terminate notice; this scope is of kind %s", kind)
		return 0
	}
	s, ok := p.Str(n, path)
	if !ok {
		return 0
	}
	d, err := forewarn.ParseDuration(s)
	if err != nil {
		p.Addf(n, path, "%s is not a duration: want one such as 10m", yamlmsg.Quote(s))
		return 0
	}
	if !forewarn.ValidTerminateNotice(d) {
		p.Addf(n, path, "%s is out of range %s..%s",
			shortDuration(d), shortDuration(forewarn.MinTerminateNotice), shortDuration(forewarn.MaxTerminateNotice))
		return 0
	}
	return forewarn.Duration(d)
}

// shortDuration writes a duration without zero minutes or seconds at its
// end: "5m" rather than "5m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

// domain reads a VM's update or fault domain, nil if absent, and checks it
// against the scope's count unless that is 0.
func (p *parser) domain(n *yaml.Node, path string, count int) *int {
	if n == nil || yamlnode.IsNull(n) {
		return nil
	}
	v, ok := p.Integer(n, path)
	if !ok {
		return nil
	}
	if count > 0 && (v < 0 || v >= count) {
		p.Addf(n, path, "%d is out of range 0..%d", v, count-1)
	}
	return &v
}

// addresses reads a VM's addresses in canonical form, each unicast and
// given once in the whole file.
func (p *parser) addresses(n *yaml.Node, path, vm string) []string {
	items := p.List(n, path)
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := p.Str(it.Node, it.Path)
		if !ok {
			continue
		}
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			p.Addf(it.Node, it.Path, "%s is not an IP address", yamlmsg.Quote(s))
			continue
		}
		if a.IsUnspecified() || a.IsMulticast() {
			p.Addf(it.Node, it.Path, "%s is not a unicast address: a VM calls from a unicast address", a)
			continue
		}
		canon := a.Unmap().String()
		if d, dup := p.addrs[canon]; dup {
			p.Addf(it.Node, it.Path, "address %s is given twice: also to vm %q at line %d", canon, d.name, d.line)
			continue
		}
		p.addrs[canon] = declared{name: vm, line: it.Node.Line}
		out = append(out, canon)
	}
	return out
}

// priority reads a VM's priority: Regular if absent.
func (p *parser) priority(n *yaml.Node, path string) forewarn.Priority {
	if n == nil || yamlnode.IsNull(n) {
		return forewarn.Regular
	}
	s, ok := p.Str(n, path)
	if !ok {
		return ""
	}
	for _, pr := range []forewarn.Priority{forewarn.Regular, forewarn.Spot} {
		if strings.EqualFold(s, string(pr)) {
			return pr
		}
	}
	p.Addf(n, path, "%s is not a priority: want Regular or Spot", yamlmsg.Quote(s))
	return ""
}
