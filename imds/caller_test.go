package imds

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/forewarn/forewarn"
)

// TestCallerSeesOwnScope: each VM gets its own scope's document.
func TestCallerSeesOwnScope(t *testing.T) {
	e := mustStartEnv(t)
	a := e.get(t, addrDB0, eventsURL("2019-08-01"))
	checkAnswer(t, a, http.StatusOK, `{"DocumentIncarnation":1,"Events":[{"EventId":"f020ba2e-3bc0-4c40-a10b-86575a9eabd5",`+
		`"EventType":"Reboot","ResourceType":"VirtualMachine","Resources":["db-0"],"EventStatus":"Scheduled",`+
		`"NotBefore":"Mon, 19 Sep 2016 18:15:00 GMT","Description":"Virtual machine is going to be restarted as `+
		`requested by authorized user.","EventSource":"User"}]}`)
	checkDocumentHeaders(t, a, `"1"`)
	if a := e.get(t, addrWeb1, eventsURL("2019-08-01")); a.header.Get("ETag") != `"4"` {
		t.Errorf("web-1 ETag %q", a.header.Get("ETag"))
	}
	if got := e.meta.enabledScopes(); len(got) != 2 || got[0] != "db-0" || got[1] != "web" {
		t.Errorf("enabled %v, want [db-0 web]", got)
	}
}

func TestUnknownCaller(t *testing.T) {
	e := mustStartEnv(t)
	a := e.get(t, addrUnknown, eventsURL("2020-07-01"))
	checkAnswer(t, a, http.StatusForbidden, bodyForbidden)
	if n := len(e.meta.enabledScopes()); n != 0 {
		t.Errorf("an unknown caller enabled %d scopes", n)
	}
}

// TestVMMoves: a VM published in another scope resolves there, whichever
// scope is published first.
func TestVMMoves(t *testing.T) {
	e := mustStartEnv(t)
	web := webSnapshot(5)
	moved := web.VMs[1]
	web.VMs = web.VMs[:1]
	db := dbSnapshot()
	db.Scope.Incarnation = 2
	db.VMs = append(db.VMs, moved)

	e.publish(db) // web-1 in both scopes for a moment: the newest wins
	a := e.get(t, addrWeb1, eventsURL("2020-07-01"))
	checkDocumentHeaders(t, a, `"2"`)
	e.publish(web) // web no longer lists web-1: it stays with db
	a = e.get(t, addrWeb1, eventsURL("2020-07-01"))
	checkDocumentHeaders(t, a, `"2"`)
	checkDocumentHeaders(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), `"5"`)
}

func TestRemoveScope(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.RemoveScope("db-0")
	e.srv.RemoveScope("no-such-scope")
	checkAnswer(t, e.get(t, addrDB0, eventsURL("2020-07-01")), http.StatusForbidden,
		`{"error":"Forbidden. The address 127.0.0.4 belongs to no VM"}`)
	checkDocumentHeaders(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), `"4"`)
	// Re-created, it starts again.
	e.publish(dbSnapshot())
	checkDocumentHeaders(t, e.get(t, addrDB0, eventsURL("2020-07-01")), `"1"`)
}

// TestStalePublishIgnored: the endpoint never goes back to an older state.
func TestStalePublishIgnored(t *testing.T) {
	e := mustStartEnv(t)
	e.publish(webSnapshot(3))
	checkDocumentHeaders(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), `"4"`)
	e.srv.PublishScope(nil)
	e.srv.PublishScope(&forewarn.ScopeSnapshot{})
	checkDocumentHeaders(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), `"4"`)
}

// TestAddressForms: stored addresses are normalized like source addresses,
// and invalid ones are skipped.
func TestAddressForms(t *testing.T) {
	e := mustStartEnv(t)
	snap := webSnapshot(5)
	snap.VMs[0].Addresses = []string{"not-an-address", "::ffff:127.0.0.2"}
	e.publish(snap)
	checkDocumentHeaders(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), `"5"`)

	cases := map[string]string{
		"127.0.0.2:80":          "127.0.0.2",
		"[::ffff:127.0.0.2]:80": "127.0.0.2",
		"[fe80::1%eth0]:80":     "fe80::1",
		"[::1]:5":               "::1",
		"127.0.0.2":             "127.0.0.2",
		"@":                     "invalid IP",
		"":                      "invalid IP",
	}
	for in, want := range cases {
		if got := remoteAddr(in).String(); got != want {
			t.Errorf("remoteAddr(%q) = %s, want %s", in, got, want)
		}
	}
	if _, ok := e.srv.lookup(netip.MustParseAddr("127.0.0.2")); !ok {
		t.Error("127.0.0.2 does not resolve")
	}
}

// TestCallerResolvesThroughPublishes: an address keeps resolving while its
// scope is published again and again (the lookup takes no lock, so a
// publish must never drop an address it then adds back).
func TestCallerResolvesThroughPublishes(t *testing.T) {
	s := New(Config{Metadata: &fakeMetadata{}})
	addr := netip.MustParseAddr("127.0.0.5")
	snap := func(inc int64) *forewarn.ScopeSnapshot {
		return &forewarn.ScopeSnapshot{
			Scope: &forewarn.Scope{Name: "web", Incarnation: inc},
			VMs:   []*forewarn.VM{{Name: "web-0", Scope: "web", Addresses: []string{addr.String()}}},
		}
	}
	s.PublishScope(snap(1))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for inc := int64(2); inc < 2000; inc++ {
			s.PublishScope(snap(inc))
		}
	}()
	for misses := 0; ; {
		select {
		case <-done:
			if misses > 0 {
				t.Fatalf("127.0.0.5 did not resolve %d times during the publishes", misses)
			}
			return
		default:
		}
		if _, ok := s.lookup(addr); !ok {
			misses++
		}
	}
}
