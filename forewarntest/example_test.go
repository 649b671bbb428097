package forewarntest_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/client"
	"github.com/forewarn/forewarn/forewarntest"
)

// drainer is an application's handler of Scheduled Events, the code under
// test: before maintenance hits its VM it drains it, then approves the
// event so that the maintenance starts at once rather than at NotBefore.
type drainer struct {
	vm      string
	sdk     *client.Client
	drained []string // the events it drained for
}

// handle reads the Scheduled Events once and handles those of its VM.
func (d *drainer) handle(ctx context.Context) error {
	doc, err := d.sdk.Get(ctx)
	if err != nil {
		return err
	}
	for _, e := range doc.Events {
		if e.EventStatus != "Scheduled" || !slices.Contains(e.Resources, d.vm) {
			continue
		}
		d.drained = append(d.drained, e.EventId) // stop taking work, finish what is in flight
		if err := d.sdk.Approve(ctx, e.EventId); err != nil {
			return err
		}
	}
	return nil
}

// A test of the handler: restart its VM, see that it drained and approved,
// then that the restart ended. In a test file this is the body of
// func TestDrainer(t *testing.T); an Example has no t, so runTest lends it
// one.
func Example() {
	runTest(func(t testing.TB) {
		ctx := context.Background()
		srv := forewarntest.New(t)
		fleet := srv.Fleet()
		if _, err := fleet.CreateVM(ctx, forewarn.VMSpec{Name: "web-0"}); err != nil {
			t.Fatal(err)
		}
		app := &drainer{vm: "web-0", sdk: client.New(
			client.WithEndpoint(srv.URL), client.WithHTTPClient(srv.Client("web-0")))}
		// The application's first request enables Scheduled Events for its
		// VM, as on Azure: from then on, maintenance gives it notice.
		if err := app.handle(ctx); err != nil {
			t.Fatal(err)
		}

		e, err := fleet.Operate(ctx, "web-0", forewarn.OpRestart)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(e.Type, e.Status, "with notice", e.NotBefore.Sub(srv.Now()))
		if err := app.handle(ctx); err != nil {
			t.Fatal(err)
		}
		fmt.Println("drained for the restart:", slices.Equal(app.drained, []string{e.ID}))
		e, err = fleet.Event(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(e.Status, "approved by", e.ApprovedBy)

		srv.Advance(5 * time.Minute) // the restart takes a minute or so
		ended, err := fleet.History(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(ended[0].ID == e.ID, ended[0].Outcome)
	})
	// Output:
	// Reboot Scheduled with notice 15m0s
	// drained for the restart: true
	// Started approved by web-0
	// true Completed
}

// A campaign of platform maintenance over an availability set, an update
// domain at a time: Advance steps through it, each event starting at its
// NotBefore (15 minutes of notice), the next update domain's scheduled
// once the reboot before it ended.
func ExampleServer_Advance() {
	runTest(func(t testing.TB) {
		ctx := context.Background()
		srv := forewarntest.New(t, forewarntest.WithDev())
		fleet := srv.Fleet()
		if _, err := fleet.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", UpdateDomains: 2}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"web-0", "web-1"} {
			if _, err := fleet.CreateVM(ctx, forewarn.VMSpec{Name: name, Scope: "web"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := fleet.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}}); err != nil {
			t.Fatal(err)
		}
		for range 8 {
			events, _, err := fleet.Events(ctx, forewarn.EventQuery{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range events {
				fmt.Println(srv.Now().Sub(forewarntest.Start), e.Type, e.Resources, e.Status)
			}
			srv.Advance(5 * time.Minute)
		}
		c, err := fleet.Campaigns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(srv.Now().Sub(forewarntest.Start), "campaign", c[0].State)
	})
	// Output:
	// 0s Reboot [web-0] Scheduled
	// 5m0s Reboot [web-0] Scheduled
	// 10m0s Reboot [web-0] Scheduled
	// 15m0s Reboot [web-0] Started
	// 20m0s Reboot [web-1] Scheduled
	// 25m0s Reboot [web-1] Scheduled
	// 30m0s Reboot [web-1] Scheduled
	// 40m0s campaign done
}

// runTest runs a test function as go test would, with a testing.TB that
// prints failures, and its cleanups at the end.
func runTest(test func(t testing.TB)) {
	t := &exampleT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		test(t)
	}()
	<-done
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// exampleT is the testing.TB of runTest: the methods forewarntest and the
// examples call.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                   {}
func (t *exampleT) Cleanup(fn func())         { t.cleanups = append(t.cleanups, fn) }
func (t *exampleT) Errorf(f string, a ...any) { fmt.Printf("FAIL: "+f+"\n", a...) }
func (t *exampleT) Fatal(a ...any)            { fmt.Println(append([]any{"FAIL:"}, a...)...); runtime.Goexit() }
func (t *exampleT) Fatalf(f string, a ...any) {
	t.Errorf(f, a...)
	runtime.Goexit()
}
