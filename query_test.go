package forewarn_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
)

func TestQueriesMatchInAnyCase(t *testing.T) {
	ud := 2
	vm := &forewarn.VM{Name: "web-1", Scope: "Web", UpdateDomain: 2, Priority: forewarn.Spot}
	for q, want := range map[*forewarn.VMQuery]bool{
		{}:                                     true,
		{Scope: "WEB", Priority: "spot"}:       true,
		{UpdateDomain: &ud}:                    true,
		{Scope: "db"}:                          false,
		{Priority: forewarn.Regular}:           false,
		{Scope: "web", UpdateDomain: new(int)}: false,
	} {
		if got := q.Match(vm); got != want {
			t.Errorf("%+v matches %v, want %v", *q, got, want)
		}
	}
	e := &forewarn.Event{Scope: "web", Type: forewarn.Reboot, Status: forewarn.Started, Source: forewarn.User}
	for q, want := range map[forewarn.EventQuery]bool{
		{}: true,
		{Scope: "Web", Type: "REBOOT", Status: "started", Source: "user"}: true,
		{Type: forewarn.Freeze}:      false,
		{Status: forewarn.Scheduled}: false,
		{Source: forewarn.Platform}:  false,
	} {
		if got := q.Match(e); got != want {
			t.Errorf("%+v matches %v, want %v", q, got, want)
		}
	}
}

func TestQueriesCheck(t *testing.T) {
	minus := -1
	for _, tc := range []struct {
		err  error
		says string
	}{
		{forewarn.VMQuery{Priority: "spot", Limit: 5}.Check(), ""},
		{forewarn.VMQuery{Priority: "cheap"}.Check(), `invalid priority "cheap": want Regular or Spot`},
		{forewarn.VMQuery{UpdateDomain: &minus}.Check(), "invalid update domain -1: want 0 or more"},
		{forewarn.VMQuery{Limit: -1}.Check(), "invalid limit -1"},
		{forewarn.EventQuery{Type: "terminate", Status: "SCHEDULED", Source: "platform"}.Check(), ""},
		{forewarn.EventQuery{Type: "Explode"}.Check(), `invalid type "Explode": want Freeze, Reboot, Redeploy, Preempt or Terminate`},
		{forewarn.EventQuery{Status: "Completed"}.Check(), `invalid status "Completed": want Scheduled or Started`},
		{forewarn.EventQuery{Source: "Me"}.Check(), `invalid source "Me": want Platform or User`},
		{forewarn.EventQuery{Limit: -2}.Check(), "invalid limit -2"},
	} {
		switch {
		case tc.says == "" && tc.err != nil:
			t.Errorf("refused: %v", tc.err)
		case tc.says != "" && (!errors.Is(tc.err, forewarn.ErrInvalid) || !strings.Contains(tc.err.Error(), tc.says)):
			t.Errorf("%v, want ErrInvalid saying %s", tc.err, tc.says)
		}
	}
}
