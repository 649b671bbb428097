package sim

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// request sends a request to the VMs' endpoint from addr.
func (d *driver) request(method, addr, version, body string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, "/metadata/scheduledevents?api-version="+version, rd)
	r.RemoteAddr = remote(addr)
	r.Header.Set("Metadata", "true")
	w := httptest.NewRecorder()
	d.w.meta.ServeHTTP(w, r)
	return w
}

func remote(addr string) string {
	if strings.Contains(addr, ":") {
		return "[" + addr + "]:40000"
	}
	return addr + ":40000"
}

// caller returns the address a VM calls from, or "" if it has none.
func (d *driver) caller(op Op) string {
	if op.Addr != "" {
		return op.Addr
	}
	vm := d.m.vms[key(op.Name)]
	if vm == nil || len(vm.Addrs) == 0 {
		return ""
	}
	return vm.Addrs[op.Pick%len(vm.Addrs)]
}

// chaosAnswer checks an answer against the chaos the model has in force
// for the VM; it reports whether a fault answered.
func (d *driver) chaosAnswer(vm *mVM, status int, held bool) (bool, error) {
	if held { // a rule that delays hit it: it answers as usual then
		if slices.Contains(forewarn.ChaosStatuses, status) {
			return false, fmt.Errorf("vm %s answered %d after a chaos delay held it", vm.Name, status)
		}
		return false, nil
	}
	r := d.m.chaosFor(vm)
	if r != nil && r.Delay > 0 { // it holds answers (send), and answers as usual
		r = nil
	}
	switch {
	case r != nil && status == r.Status:
		return true, nil
	case r != nil && r.Fraction >= 1:
		return false, fmt.Errorf("vm %s answered %d, the chaos rule %s (every request, status %d) is in force", vm.Name, status, r.ID, r.Status)
	case r == nil && slices.Contains(forewarn.ChaosStatuses, status):
		return false, fmt.Errorf("vm %s answered %d, and no chaos rule is in force for it", vm.Name, status)
	}
	return false, nil
}

// send sends a VM's request. If a chaos rule that delays answers is in
// force for the VM, and holds the request (the endpoint waits on a timer),
// the clock moves on by the delay (with Twice, the VM is deleted first)
// and the request is answered then; held says so, and the caller releases
// the actuator's runs that came due once it has checked the answer.
func (d *driver) send(method, addr, version, body string, op Op) (resp *httptest.ResponseRecorder, held bool, err error) {
	vm := d.m.owner(addr)
	var rule *forewarn.ChaosRule
	if vm != nil {
		rule = d.m.chaosFor(vm)
	}
	if rule == nil || rule.Delay <= 0 {
		return d.request(method, addr, version, body), false, nil
	}
	d.w.metaClock.drain()
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp = d.request(method, addr, version, body)
	}()
	select {
	case <-done:
		if rule.Fraction >= 1 {
			return nil, false, fmt.Errorf("%s from vm %s was answered at once (%d), the chaos rule %s (every request, delay %s) is in force",
				method, vm.Name, resp.Code, rule.ID, time.Duration(rule.Delay))
		}
		return resp, false, nil
	case <-d.w.metaClock.timers:
		d.stats.Held++
	case <-time.After(settleTimeout):
		return nil, false, fmt.Errorf("%s from vm %s was neither answered nor held", method, vm.Name)
	}
	if op.Twice {
		if err := expect("delete vm "+vm.Name+" while its request is held", d.w.fleet.DeleteVM(d.ctx, vm.Name), d.m.deleteVM(vm.Name)); err != nil {
			<-d.unhold(time.Duration(rule.Delay), done)
			return nil, true, err
		}
	}
	select {
	case <-d.unhold(time.Duration(rule.Delay), done):
	case <-time.After(settleTimeout):
		return nil, true, fmt.Errorf("%s from vm %s, held by chaos rule %s, was not answered after its delay", method, vm.Name, rule.ID)
	}
	return resp, true, nil
}

// unhold moves the clock on by a chaos delay, which ends the wait of a
// held request.
func (d *driver) unhold(delay time.Duration, done chan struct{}) chan struct{} {
	d.m.now = d.m.now.Add(delay)
	d.w.clock.Advance(delay)
	return done
}

// afterHeld releases the actuator's runs that came due while a request
// was held.
func (d *driver) afterHeld(held bool, err error) error {
	if err != nil || !held {
		return err
	}
	return d.releaseRuns()
}

func (d *driver) get(op Op) error {
	addr := d.caller(op)
	if addr == "" {
		return nil // a VM with no address cannot call
	}
	resp, held, err := d.send(http.MethodGet, addr, op.Version, "", op)
	if err != nil {
		return err
	}
	return d.afterHeld(held, d.checkGet(addr, op, resp, held))
}

func (d *driver) checkGet(addr string, op Op, resp *httptest.ResponseRecorder, held bool) error {
	vm := d.m.owner(addr)
	if vm == nil {
		if resp.Code != http.StatusForbidden {
			return fmt.Errorf("GET from %s, which no VM has: %d, want 403", addr, resp.Code)
		}
		return nil
	}
	if hit, err := d.chaosAnswer(vm, resp.Code, held); hit || err != nil {
		return err
	}
	if resp.Code != http.StatusOK {
		return fmt.Errorf("GET from vm %s (%s): %d %s", vm.Name, addr, resp.Code, resp.Body)
	}
	scope := d.m.scopes[key(vm.Scope)]
	d.m.enable(scope)
	return d.checkDocument(vm, op.Version, resp.Body.Bytes(), "the VM's own GET")
}

func (d *driver) post(op Op) error {
	addr := d.caller(op)
	if addr == "" {
		return nil
	}
	ids := d.approvalTargets(d.m.owner(addr), op)
	var items []string
	for _, id := range ids {
		items = append(items, fmt.Sprintf(`{"EventId":%q}`, id))
	}
	body := fmt.Sprintf(`{"StartRequests":[%s],"DocumentIncarnation":"%d"}`, strings.Join(items, ","), op.Pick)
	resp, held, err := d.send(http.MethodPost, addr, "2020-07-01", body, op)
	if err != nil {
		return err
	}
	return d.afterHeld(held, d.checkPost(addr, ids, resp, held))
}

func (d *driver) checkPost(addr string, ids []string, resp *httptest.ResponseRecorder, held bool) error {
	vm := d.m.owner(addr)
	if vm == nil {
		if resp.Code != http.StatusForbidden {
			return fmt.Errorf("POST from %s, which no VM has: %d, want 403", addr, resp.Code)
		}
		return nil
	}
	if hit, err := d.chaosAnswer(vm, resp.Code, held); hit || err != nil {
		return err
	}
	want := http.StatusOK
	if err := d.m.approveVM(vm, ids); err != nil {
		want = http.StatusBadRequest
	} else {
		d.stats.Approvals++
	}
	if resp.Code != want {
		return fmt.Errorf("POST approval of %v from vm %s (%s): %d %s, the model expects %d", ids, vm.Name, addr, resp.Code, resp.Body, want)
	}
	return nil
}

// approvalTargets chooses the event ids a VM's approval names.
func (d *driver) approvalTargets(vm *mVM, op Op) []string {
	unknown := fmt.Sprintf("0badc0de-0000-4000-8000-%012d", op.Pick)
	if vm == nil {
		return []string{unknown}
	}
	var own, other []string
	for _, e := range d.m.eventsOf("") {
		if forewarn.SameName(e.Scope, vm.Scope) {
			own = append(own, e.ID)
		} else {
			other = append(other, e.ID)
		}
	}
	choose := func(ids []string) string {
		if len(ids) == 0 {
			return unknown
		}
		id := ids[op.Pick%len(ids)]
		if op.Pick%5 == 0 {
			id = strings.ToUpper(id)
		}
		return id
	}
	switch op.Target {
	case OwnEvent:
		return []string{choose(own)}
	case OtherScope:
		return []string{choose(other)}
	case EndedEvent:
		var ended []string
		for _, h := range d.m.history {
			ended = append(ended, h.ID)
		}
		return []string{choose(ended)}
	case TwoEvents:
		return []string{choose(own), choose(other)}
	}
	return []string{unknown}
}
