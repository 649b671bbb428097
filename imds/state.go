package imds

import (
	"net/netip"
	"slices"
	"strconv"
	"sync"

	"github.com/forewarn/forewarn"
)

// scopeState is one published snapshot of a scope, never changed once
// built. A newer snapshot replaces it as a whole; changed is then closed,
// which wakes the long-polls that wait on it.
type scopeState struct {
	scope  *forewarn.Scope
	events []*forewarn.Event
	// etag is the incarnation, the opaque part of the ETag, and
	// etagHeader the ETag header's value, quoted and ready-made (see
	// longPollValue).
	etag       string
	etagHeader []string
	owners     []owner
	changed    chan struct{}
	// docs holds one rendered document per api-version of eventVersions.
	docs []renderedDoc
	// vms are the scope's VMs, with or without addresses, and polls their
	// poll records by VM key (adoptPolls), set once under Server.mu.
	vms   []*forewarn.VM
	polls map[forewarn.Key]*vmPolls
}

// renderedDoc is the document of one api-version, rendered on first use,
// with its Content-Length header value.
type renderedDoc struct {
	once   sync.Once
	body   []byte
	length []string
	err    error
}

// owner says which VM of the scope owns an address.
type owner struct {
	addr netip.Addr
	vm   *forewarn.VM
}

// caller is the VM a request comes from, with its scope's snapshot.
type caller struct {
	vm    *forewarn.VM
	state *scopeState
	// rateKey names the VM's rate-limit bucket, built once at publish.
	rateKey string
	// polls is the VM's poll record, so that a GET records without a
	// lookup.
	polls *vmPolls
}

func newScopeState(snap *forewarn.ScopeSnapshot) (*scopeState, []string) {
	etag := strconv.FormatInt(snap.Scope.Incarnation, 10)
	st := &scopeState{
		scope:      snap.Scope,
		events:     snap.Events,
		etag:       etag,
		etagHeader: []string{`"` + etag + `"`},
		changed:    make(chan struct{}),
		docs:       make([]renderedDoc, len(eventVersions)),
	}
	var bad []string
	for _, vm := range snap.VMs {
		if vm == nil {
			continue
		}
		st.vms = append(st.vms, vm)
		for _, a := range vm.Addresses {
			addr, err := netip.ParseAddr(a)
			if err != nil {
				bad = append(bad, a)
				continue
			}
			st.owners = append(st.owners, owner{addr: normalizeAddr(addr), vm: vm})
		}
	}
	return st, bad
}

// normalizeAddr makes an address comparable with a connection's source
// address: IPv4-mapped IPv6 unmapped, zone dropped.
func normalizeAddr(a netip.Addr) netip.Addr {
	return a.Unmap().WithZone("")
}

// document returns the JSON of the scope's events for api-version v,
// rendering it on first use; it is not to be changed.
func (st *scopeState) document(v int) *renderedDoc {
	d := &st.docs[v]
	d.once.Do(func() {
		d.body, d.err = renderDocument(st, &eventVersions[v])
		d.length = lengthValue(d.body)
	})
	return d
}

// hasEvent reports whether st has the event of id, as the document shows
// it.
func (st *scopeState) hasEvent(id string) bool {
	return slices.ContainsFunc(st.events, func(e *forewarn.Event) bool {
		return e != nil && string(forewarn.KeyOf(e.ID)) == id
	})
}
