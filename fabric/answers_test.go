package fabric

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// TestCreateScopeShowsEnabled checks that a new scope comes back as Scope
// reads it: enabled at once when every scope is, not otherwise.
func TestCreateScopeShowsEnabled(t *testing.T) {
	for _, always := range []bool{true, false} {
		h := mustOpenHarness(t, Config{AlwaysEnabled: always})
		created := h.scope(forewarn.ScopeSpec{Name: "web"})
		read, err := h.f.Scope(h.ctx, "web")
		if err != nil {
			t.Fatal(err)
		}
		if created.Enabled != always || created.Enabled != read.Enabled {
			t.Errorf("AlwaysEnabled %v: CreateScope says enabled %v, Scope %v", always, created.Enabled, read.Enabled)
		}
	}
}

// TestCampaignRecordsNoticeUsed checks that a campaign's spec holds the
// notice its events get: the type's minimum when less, or none, is asked.
func TestCampaignRecordsNoticeUsed(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web", UpdateDomains: 1})
	for _, tc := range []struct {
		typ         forewarn.EventType
		asked, want time.Duration
	}{
		{forewarn.Reboot, 10 * time.Minute, 15 * time.Minute},
		{forewarn.Freeze, 0, 15 * time.Minute},
		{forewarn.Redeploy, 0, 10 * time.Minute},
		{forewarn.Redeploy, 20 * time.Minute, 20 * time.Minute},
	} {
		c := startCampaign(h, forewarn.CampaignSpec{Type: tc.typ, Scopes: []string{"web"}, Notice: forewarn.Duration(tc.asked)})
		stored, err := h.f.Campaign(h.ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if time.Duration(c.Spec.Notice) != tc.want || stored.Spec.Notice != c.Spec.Notice {
			t.Errorf("%s with notice %v: campaign records %v (stored %v), want %v", tc.typ, tc.asked, c.Spec.Notice, stored.Spec.Notice, tc.want)
		}
	}
}

// TestHistoryPage pages through the history, newest first, also while it
// grows and drops its oldest events.
func TestHistoryPage(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, HistoryKeep: 4})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	var ids []string // oldest first
	cancel := func() {
		t.Helper()
		name := fmt.Sprintf("web-%d", len(ids))
		h.vm(forewarn.VMSpec{Name: name, Scope: "web"})
		e := h.operate(name, forewarn.OpRestart)
		if _, err := h.f.Cancel(h.ctx, e.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
		h.clock.Advance(time.Second)
	}
	page := func(after string, limit int) ([]string, string) {
		t.Helper()
		events, next, err := h.f.HistoryPage(h.ctx, forewarn.HistoryQuery{After: after, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events {
			got = append(got, e.ID)
		}
		return got, next
	}
	for range 4 {
		cancel()
	}
	first, next := page("", 2)
	if !slices.Equal(first, []string{ids[3], ids[2]}) || next == "" {
		t.Fatalf("first page = %q, next %q", first, next)
	}
	cancel() // drops ids[0]
	if second, last := page(next, 2); !slices.Equal(second, []string{ids[1]}) || last != "" {
		t.Errorf("second page = %q, next %q; want %s and no more", second, last, ids[1])
	}
	cancel()
	cancel() // drops ids[1] and ids[2], the page's cursor
	if rest, last := page(next, 2); len(rest) != 0 || last != "" {
		t.Errorf("page after a cursor dropped from the history = %q, next %q; want none", rest, last)
	}
	if all, last := page("", 0); !slices.Equal(all, []string{ids[6], ids[5], ids[4], ids[3]}) || last != "" {
		t.Errorf("whole history = %q, next %q", all, last)
	}
	for _, bad := range []forewarn.HistoryQuery{{After: "not a cursor"}, {Limit: -1}} {
		if _, _, err := h.f.HistoryPage(h.ctx, bad); !errors.Is(err, forewarn.ErrInvalid) {
			t.Errorf("HistoryPage(%+v): %v, want ErrInvalid", bad, err)
		}
	}
}

// TestSteerCampaignIdempotent steers a campaign twice in each way, then
// refuses to pause or resume it once cancelled, and to cancel a done one.
func TestSteerCampaignIdempotent(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web", UpdateDomains: 1})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web"})
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"web"}})
	steps := []struct {
		action forewarn.CampaignAction
		want   forewarn.CampaignState
	}{
		{forewarn.PauseCampaign, forewarn.CampaignPaused}, {forewarn.PauseCampaign, forewarn.CampaignPaused},
		{forewarn.ResumeCampaign, forewarn.CampaignRunning}, {forewarn.ResumeCampaign, forewarn.CampaignRunning},
		{forewarn.CancelCampaign, forewarn.CampaignCancelled}, {forewarn.CancelCampaign, forewarn.CampaignCancelled},
	}
	var endedAt time.Time
	for _, s := range steps {
		got, err := h.f.SteerCampaign(h.ctx, c.ID, s.action)
		if err != nil || got.State != s.want {
			t.Fatalf("%s: %v, %+v; want state %s", s.action, err, got, s.want)
		}
		if s.action == forewarn.CancelCampaign && endedAt.IsZero() {
			endedAt = got.EndedAt
			h.clock.Advance(time.Minute)
		} else if s.action == forewarn.CancelCampaign && !got.EndedAt.Equal(endedAt) {
			t.Errorf("a second cancel changed the campaign's end from %v to %v", endedAt, got.EndedAt)
		}
	}
	for _, a := range []forewarn.CampaignAction{forewarn.PauseCampaign, forewarn.ResumeCampaign} {
		_, err := h.f.SteerCampaign(h.ctx, c.ID, a)
		if !errors.Is(err, forewarn.ErrConflict) || !strings.Contains(err.Error(), "is cancelled: an ended campaign cannot be") {
			t.Errorf("%s of a cancelled campaign: %v, want a conflict that says why", a, err)
		}
	}

	h.vm(forewarn.VMSpec{Name: "db-0"}) // a standalone VM, its own scope of one update domain
	done := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"db-0"}})
	h.tick(16 * time.Minute) // the notice: the Freeze starts
	h.tick(time.Minute)      // its impact is over: it completes, and the campaign with it
	if got, _ := h.f.Campaign(h.ctx, done.ID); got.State != forewarn.CampaignDone {
		t.Fatalf("campaign did not finish: %+v", got)
	}
	if _, err := h.f.SteerCampaign(h.ctx, done.ID, forewarn.CancelCampaign); !errors.Is(err, forewarn.ErrConflict) ||
		!strings.Contains(err.Error(), "is done: it has nothing left to cancel") {
		t.Errorf("cancel of a done campaign: %v", err)
	}
}

// TestMessagesCount checks the counts in messages: "1 VM", not "1 VMs",
// and that the limit of user operations names serve's flag.
func TestMessagesCount(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, MaxUserOps: 1})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web"})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web"})
	if err := h.f.DeleteScope(h.ctx, "web"); err == nil || !strings.Contains(err.Error(), `scope "web" still has 2 VMs:`) {
		t.Errorf("DeleteScope of a scope of 2 VMs: %v", err)
	}
	h.operate("web-0", forewarn.OpRestart)
	_, err := h.f.Operate(h.ctx, "web-1", forewarn.OpRestart)
	if !errors.Is(err, forewarn.ErrLimit) ||
		!strings.Contains(err.Error(), "already has 1 user operation in flight, the most allowed (serve --max-user-ops)") {
		t.Errorf("second operation with MaxUserOps 1: %v", err)
	}
	if err := h.f.DeleteVM(h.ctx, "web-1"); err != nil {
		t.Fatal(err)
	}
	if err := h.f.DeleteScope(h.ctx, "web"); err == nil || !strings.Contains(err.Error(), `scope "web" still has 1 VM:`) {
		t.Errorf("DeleteScope of a scope of 1 VM: %v", err)
	}
}
