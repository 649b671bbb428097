package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/fleetfile"
)

// loadFleet reads and checks the --fleet file, or returns nil without one.
func (o *serveOptions) loadFleet() (*fleetfile.File, error) {
	if o.fleet == "" {
		return nil, nil
	}
	file, err := fleetfile.Load(o.fleet)
	if err != nil {
		return nil, fmt.Errorf("--fleet: %w", oneLine(err))
	}
	return file, nil
}

// applyFleet applies the --fleet file, if there is one, as
// fleetfile.ApplyRetrying does: without pruning, logging what it changed,
// planning again after a race with another replica starting with it.
func applyFleet(ctx context.Context, fleet forewarn.Fleet, file *fleetfile.File, log *slog.Logger) error {
	if file == nil {
		return nil
	}
	if err := fleetfile.ApplyRetrying(ctx, fleet, file, log); err != nil {
		return fmt.Errorf("--fleet: %w", oneLine(err))
	}
	return nil
}

// ensureDefaultVM creates the host's VM at the first start and gives it its
// addresses: 127.0.0.1, ::1 and the metadata listener's own (SPEC.md 8).
func (o *serveOptions) ensureDefaultVM(ctx context.Context, fab *fabric.Fabric, metaAddr net.Addr, log *slog.Logger) error {
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("host name: %w", err)
	}
	addrs := []string{"127.0.0.1", "::1"}
	if ip, err := listenIP(metaAddr.String()); err == nil && ip.IsValid() && !ip.IsUnspecified() {
		if s := ip.Unmap().String(); s != "127.0.0.1" && s != "::1" {
			addrs = append(addrs, s)
		}
	}
	vm, err := fab.EnsureDefaultVM(ctx, host, addrs)
	if err != nil {
		return fmt.Errorf("default VM: %w", err)
	}
	if vm != nil {
		log.Info("default VM", "name", vm.Name, "scope", vm.Scope, "addresses", vm.Addresses)
	}
	return nil
}

// seedFleet makes the scopes and VMs serve makes at start: the host's own
// VM, unless the fleet is shared on etcd, then those of the --fleet file.
func (o *serveOptions) seedFleet(ctx context.Context, fab *fabric.Fabric, file *fleetfile.File, metaAddr net.Addr, log *slog.Logger) error {
	if !o.store.usesEtcd() { // many hosts share the fleet: no default VM (SPEC.md 8)
		if err := o.ensureDefaultVM(ctx, fab, metaAddr, log); err != nil {
			return err
		}
	}
	return applyFleet(ctx, fab, file, log)
}
