package replbench

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// BenchmarkOperate measures user operations (vm restart) a second through
// the admin API, from 8 clients spread evenly over the replicas, on a fleet
// of 8 availability sets of 4 VMs ($REPLBENCH_SCOPES sets). Each round
// restarts every VM once; between rounds, untimed, the events are
// cancelled, so that every restart finds its VM free and the fleet holds
// between 0 and 32 events in flight.
//
//	go test ./internal/replbench -run '^$' -bench Operate -benchtime 2s
func BenchmarkOperate(b *testing.B) {
	for _, s := range setups {
		b.Run(s.name, func(b *testing.B) {
			rs, _ := operateRounds(b, s, newFleet(b, scopesFromEnv(b), vmsPerScope))
			reportRate(b, rs.run(b, b))
		})
	}
}

// BenchmarkApprove measures approvals a second: each a POST to the
// metadata endpoint by the VM of a Scheduled restart (15 minutes of
// notice), from the VMs' own addresses, 8 at once, spread evenly over the
// replicas, on the fleet of BenchmarkOperate. Before each round, untimed,
// every VM is restarted; after it, each approved event is checked Started
// and approved by its VM, and its VM deleted (which completes the event)
// and created again.
//
//	go test ./internal/replbench -run '^$' -bench Approve -benchtime 2s
func BenchmarkApprove(b *testing.B) {
	for _, s := range setups {
		b.Run(s.name, func(b *testing.B) {
			rs, _ := approveRounds(b, s, newFleet(b, scopesFromEnv(b), vmsPerScope))
			reportRate(b, rs.run(b, b))
		})
	}
}

// reportRate reports operations a second over the timed part of the
// benchmark.
func reportRate(b *testing.B, n int) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "ops/s")
}

// startFleet starts the replicas of s and creates the fleet through the
// first.
func startFleet(tb testing.TB, s setup, f *fleet) []*replica {
	tb.Helper()
	replicas := s.start(tb)
	if err := f.create(tb.Context(), replicas[0].fab); err != nil {
		tb.Fatal(err)
	}
	return replicas
}

// operateRounds returns the rounds of BenchmarkOperate: worker w restarts
// its VMs through the admin API of its replica, with a connection of its
// own. It returns the replicas too.
func operateRounds(tb testing.TB, s setup, f *fleet) (rounds, []*replica) {
	tb.Helper()
	replicas := startFleet(tb, s, f)
	var clients [workers]*admin.Client
	for w := range workers {
		hc := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
		tb.Cleanup(hc.CloseIdleConnections)
		clients[w] = admin.NewClient(replicas[w%len(replicas)].adminURL, adminToken, admin.WithHTTPClient(hc))
	}
	events := make([]string, f.size()) // by VM, written by its worker
	return rounds{
		fleet: f,
		do: func(ctx context.Context, w, vm int) error {
			e, err := clients[w].Operate(ctx, f.vms[vm].name, forewarn.OpRestart)
			if err != nil {
				return fmt.Errorf("restart %s: %w", f.vms[vm].name, err)
			}
			if e.Status != forewarn.Scheduled {
				return fmt.Errorf("restart %s: event %s is %s, want Scheduled", f.vms[vm].name, e.ID, e.Status)
			}
			events[vm] = e.ID
			return nil
		},
		between: func(ctx context.Context, used int) error {
			return eachWorker(replicas, func(w int, r *replica) error {
				for j := w; j < used; j += workers {
					_, vm := f.job(j)
					if _, err := r.fab.Cancel(ctx, events[vm]); err != nil {
						return fmt.Errorf("cancel the restart of %s: %w", f.vms[vm].name, err)
					}
				}
				return nil
			})
		},
	}, replicas
}

// approveRounds returns the rounds of BenchmarkApprove: every VM approves
// its own event on the metadata endpoint of its worker's replica, through
// which its event was created, with a connection of its own kept from round
// to round. It returns the replicas too.
func approveRounds(tb testing.TB, s setup, f *fleet) (rounds, []*replica) {
	tb.Helper()
	replicas := startFleet(tb, s, f)
	clients := make([]*http.Client, f.size())
	for i, vm := range f.vms {
		clients[i] = vmClient(vm.addr)
		tb.Cleanup(clients[i].CloseIdleConnections)
	}
	events := make([]string, f.size())
	return rounds{
		fleet: f,
		do: func(ctx context.Context, w, vm int) error {
			return approve(ctx, clients[vm], replicas[w%len(replicas)].metaURL, events[vm])
		},
		between: func(ctx context.Context, used int) error {
			return eachWorker(replicas, func(w int, r *replica) error {
				for j := w; j < used; j += workers {
					if err := renew(ctx, r, f, events, j); err != nil {
						return err
					}
				}
				for _, vm := range f.owned[w] {
					e, err := r.fab.Operate(ctx, f.vms[vm].name, forewarn.OpRestart)
					if err != nil {
						return fmt.Errorf("restart %s: %w", f.vms[vm].name, err)
					}
					events[vm] = e.ID
				}
				return nil
			})
		},
	}, replicas
}

// renew checks that the event of the j-th approval of a round started,
// approved by its VM, then deletes the VM, which completes the event, and
// creates it again, through r.
func renew(ctx context.Context, r *replica, f *fleet, events []string, j int) error {
	_, vm := f.job(j)
	name := f.vms[vm].name
	e, err := r.fab.Event(ctx, events[vm])
	if err != nil {
		return fmt.Errorf("event approved by %s: %w", name, err)
	}
	if e.Status != forewarn.Started || !forewarn.SameName(e.ApprovedBy, name) {
		return fmt.Errorf("event %s approved by %s is %s, approved by %q", e.ID, name, e.Status, e.ApprovedBy)
	}
	if err := r.fab.DeleteVM(ctx, name); err != nil {
		return err
	}
	return f.createVM(ctx, r.fab, vm)
}
