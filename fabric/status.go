package fabric

import (
	"context"
	"fmt"

	"github.com/forewarn/forewarn"
)

// Status returns where the state lives and the replicas: with a store that
// is a forewarn.Roster, every replica announced there; otherwise this
// replica alone, which leads.
func (f *Fabric) Status(ctx context.Context) (*forewarn.Status, error) {
	status := &forewarn.Status{Store: f.cfg.StoreName, Self: f.cfg.Replica.ID}
	roster, ok := f.store.(forewarn.Roster)
	if !ok {
		self := f.cfg.Replica
		self.Leader = true
		status.Leader, status.Replicas = self.ID, []forewarn.Replica{self}
		return status, nil
	}
	replicas, leader, err := roster.Replicas(ctx)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	status.Leader, status.Replicas = leader, replicas
	return status, nil
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
