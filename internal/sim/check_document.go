package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"

	"github.com/forewarn/forewarn"
)

// wireDoc is a document as a VM reads it.
type wireDoc struct {
	DocumentIncarnation int64
	Events              []wireEvent
}

type wireEvent struct {
	EventId, EventType, ResourceType string
	Resources                        []string
	EventStatus, NotBefore           string
	Description                      *string `json:",omitempty"`
	EventSource                      *string `json:",omitempty"`
	DurationInSeconds                *int    `json:",omitempty"`
}

// render is the JSON of a document, compact, as the wire has it.
func render(doc wireDoc) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(doc)
	return strings.TrimSuffix(b.String(), "\n")
}

// versionTypes are the event types each api-version shows.
func versionShows(version string, t forewarn.EventType) bool {
	switch t {
	case forewarn.Preempt:
		return version >= "2017-11-01"
	case forewarn.Terminate:
		return version >= "2019-01-01"
	}
	return true
}

// wantDocument is the document the model says a VM of the scope gets.
func (d *driver) wantDocument(scope, version string) []wireEvent {
	out := []wireEvent{}
	for _, e := range d.m.eventsOf(scope) {
		if !versionShows(version, e.Type) {
			continue
		}
		nb := ""
		if e.Status == forewarn.Scheduled {
			nb = ceilSecond(e.NotBefore).UTC().Format(http.TimeFormat)
		}
		we := wireEvent{EventId: e.ID, EventType: string(e.Type), ResourceType: "VirtualMachine",
			EventStatus: string(e.Status), NotBefore: nb, Resources: e.Resources}
		if version >= "2019-04-01" {
			we.Description = &e.Description
		}
		if version >= "2019-08-01" {
			src := string(e.Source)
			we.EventSource = &src
		}
		if version >= "2020-07-01" {
			we.DurationInSeconds = &e.DurationInSeconds
		}
		out = append(out, we)
	}
	return out
}

// checkDocument compares a document a VM got with the model's.
func (d *driver) checkDocument(vm *mVM, version string, body []byte, what string) error {
	var doc wireDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("%s: vm %s: %v: %s", what, vm.Name, err, body)
	}
	got, _ := json.Marshal(doc.Events)
	want, _ := json.Marshal(d.wantDocument(vm.Scope, version))
	if string(got) != string(want) {
		return fmt.Errorf("%s: vm %s of scope %s (api-version %s) shows\n  %s\nthe model says\n  %s", what, vm.Name, vm.Scope, version, got, want)
	}
	return nil
}

// checkDocuments asks the observer, for every address a run uses, what
// the VM that has it sees: its scope's events, and nothing for an address
// no VM has.
func (d *driver) checkDocuments(s *state, full bool) error {
	incs := map[string]int64{}
	for _, sc := range s.scopes {
		incs[key(sc.Name)] = sc.Incarnation
	}
	rendered := map[string]string{} // by scope: the document the model expects
	checked := map[string]bool{}    // scopes a VM of which was asked
	for _, addr := range append(slices.Clone(addrPool), defaultAddrs...) {
		// Every address every 8 steps; else one VM of each scope, and the
		// addresses whose VM changed.
		o := d.m.owner(addr)
		owner := ""
		if o != nil {
			owner = key(o.Scope) + "/" + key(o.Name)
		}
		changed := d.owners[addr] != owner
		d.owners[addr] = owner
		if !full && d.step%8 != 0 && !changed && (o == nil || checked[key(o.Scope)]) {
			continue
		}
		if o != nil {
			checked[key(o.Scope)] = true
		}
		r := httptest.NewRequest(http.MethodGet, "/metadata/scheduledevents?api-version=2020-07-01", nil)
		r.RemoteAddr = remote(addr)
		r.Header.Set("Metadata", "true")
		w := httptest.NewRecorder()
		d.w.obs.ServeHTTP(w, r)
		vm := d.m.owner(addr)
		if vm == nil {
			if w.Code != http.StatusForbidden {
				return fmt.Errorf("document: %s, which no VM has, is answered %d %s", addr, w.Code, w.Body)
			}
			continue
		}
		if w.Code != http.StatusOK {
			return fmt.Errorf("document: vm %s (%s) is answered %d %s", vm.Name, addr, w.Code, w.Body)
		}
		want, ok := rendered[key(vm.Scope)]
		if !ok {
			want = render(wireDoc{DocumentIncarnation: incs[key(vm.Scope)], Events: d.wantDocument(vm.Scope, "2020-07-01")})
			rendered[key(vm.Scope)] = want
		}
		if w.Body.String() == want {
			continue // the quick way; else compare what it says
		}
		if err := d.checkDocument(vm, "2020-07-01", w.Body.Bytes(), "document"); err != nil {
			return err
		}
		var doc wireDoc
		_ = json.Unmarshal(w.Body.Bytes(), &doc)
		if inc := incs[key(vm.Scope)]; doc.DocumentIncarnation != inc {
			return fmt.Errorf("document: vm %s shows incarnation %d, the admin API %d for scope %s", vm.Name, doc.DocumentIncarnation, inc, vm.Scope)
		}
	}
	return nil
}

// checkIncarnations follows every scope's incarnation and events, as
// listed, from step to step.
func (d *driver) checkIncarnations(s *state) error {
	for _, sc := range s.scopes {
		var shown []string
		for _, e := range s.events {
			if forewarn.SameName(e.Scope, sc.Name) {
				shown = append(shown, eventKey(e)+"/"+e.Description+"/"+string(e.Source)+"/"+strconv.Itoa(e.DurationInSeconds))
			}
		}
		if err := d.obs.document(d.m.scopes[key(sc.Name)], sc.Incarnation, strings.Join(shown, "\n")); err != nil {
			return err
		}
	}
	return nil
}

// eventKey is what a document shows of an event, but its texts.
func eventKey(e *forewarn.Event) string {
	return e.ID + "/" + string(e.Type) + "/" + string(e.Status) + "/" + strings.Join(e.Resources, ",") + "/" +
		strconv.FormatInt(e.NotBefore.Unix(), 10)
}

type seenDoc struct {
	scope *mScope
	inc   int64
	doc   string
}

// document checks a scope's document against the ones seen before: its
// incarnation never goes down, one incarnation never shows two event sets,
// and it changes when and only when the events do.
func (o *observations) document(s *mScope, inc int64, doc string) error {
	k := key(s.Name)
	body := doc
	if inc < o.maxInc[k] {
		return fmt.Errorf("incarnation: scope %s shows %d after %d", s.Name, inc, o.maxInc[k])
	}
	o.maxInc[k] = inc
	at := fmt.Sprintf("%s@%d", k, inc)
	if prev, ok := o.docAt[at]; ok && prev != body {
		return fmt.Errorf("incarnation: scope %s shows two event sets at incarnation %d:\n  %s\n  %s", s.Name, inc, prev, body)
	}
	o.docAt[at] = body
	if l, ok := o.last[k]; ok && l.scope == s && l.doc == body && l.inc != inc {
		return fmt.Errorf("incarnation: scope %s went from %d to %d with no change of its events: %s", s.Name, l.inc, inc, body)
	}
	o.last[k] = seenDoc{scope: s, inc: inc, doc: body}
	return nil
}
