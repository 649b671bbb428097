package fabric

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/forewarn/forewarn"
)

// rosterTimeout bounds the read of the replicas in Status.
const rosterTimeout = 3 * time.Second

// Status returns where the state lives and the replicas: with a store that
// is a forewarn.Roster, every replica announced there; otherwise this
// replica alone, which leads. If the roster cannot be read within
// rosterTimeout (etcd out of reach), it shows this replica alone, whether
// it leads as far as it knows, and a warning.
func (f *Fabric) Status(ctx context.Context) (*forewarn.Status, error) {
	status := &forewarn.Status{Store: f.cfg.StoreName, Self: f.cfg.Replica.ID}
	roster, ok := f.store.(forewarn.Roster)
	if !ok {
		self := f.cfg.Replica
		self.Leader = true
		status.Leader, status.Replicas = self.ID, []forewarn.Replica{self}
		return status, nil
	}
	rctx, cancel := context.WithTimeout(ctx, rosterTimeout)
	defer cancel()
	replicas, leader, err := roster.Replicas(rctx)
	if err != nil {
		self := f.cfg.Replica
		self.Leader = f.leading.Load()
		status.Replicas = []forewarn.Replica{self}
		status.Warning = fmt.Sprintf("the store did not answer (%v): only this replica is shown", err)
		return status, nil
	}
	status.Leader, status.Replicas = leader, replicas
	return status, nil
}

// setLeading records whether this replica runs the time-driven work, for
// Status and the forewarn_leader metric.
func (f *Fabric) setLeading(leading bool) {
	f.leading.Store(leading)
	if leading {
		f.metrics.leader.Set(1)
	} else {
		f.metrics.leader.Set(0)
	}
}

// join announces this replica to the others until ctx ends, if the store is
// a forewarn.Roster; the returned channel closes when it stops.
func (f *Fabric) join(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	roster, ok := f.store.(forewarn.Roster)
	if !ok {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		if err := roster.Join(ctx, f.cfg.Replica); err != nil {
			f.log.Error("announce this replica", "replica", f.cfg.Replica.ID, "err", err)
		}
	}()
	return done
}

// completeReplica fills in what r leaves out: the host, the process, the
// start and an ID made of the host and the process.
func completeReplica(r forewarn.Replica, now time.Time) forewarn.Replica {
	if r.Host == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "unknown-host"
		}
		r.Host = host
	}
	if r.PID == 0 {
		r.PID = os.Getpid()
	}
	if r.ID == "" {
		r.ID = fmt.Sprintf("%s-%d", r.Host, r.PID)
	}
	if r.Started.IsZero() {
		r.Started = now
	}
	return r
}

// Replica returns this replica, as forewarn status shows it.
func (f *Fabric) Replica() forewarn.Replica { return f.cfg.Replica }
