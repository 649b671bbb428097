package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/fleetfile"
	"github.com/forewarn/forewarn/imds"
	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// run serves until ctx ends, then shuts down: held long-polls answer,
// in-flight requests finish, the store is closed.
func (o *serveOptions) run(ctx context.Context, stderr io.Writer) error {
	log, err := newLogger(stderr, o.logLevel, o.logFormat)
	if err != nil {
		return err
	}
	if err := o.namingEnv(o.check()); err != nil {
		return err
	}
	fleet, err := o.loadFleet()
	if err != nil {
		return err
	}
	if err := o.makeDataDir(); err != nil {
		return err
	}
	token, err := o.token()
	if err != nil {
		return err
	}
	store, err := o.openStore(ctx, log)
	if err != nil {
		return err
	}
	defer store.Close()
	lns, err := o.listen(log)
	if err != nil {
		return err
	}
	defer lns.release()
	fab, srvs, err := o.buildServers(ctx, store, lns, fleet, token, log)
	if err != nil {
		lns.close()
		return err
	}
	return o.serve(ctx, log, fab, srvs)
}

// makeDataDir creates the data directory, where the store and the admin
// token are kept; with etcd, nothing is kept there.
func (o *serveOptions) makeDataDir() error {
	if o.store.usesEtcd() {
		return nil
	}
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	return nil
}

// buildServers builds what serve runs: the control plane over the store,
// with the scopes and VMs serve makes at start, and the servers on the
// listeners (the metadata endpoint, the admin API, the profiles).
func (o *serveOptions) buildServers(ctx context.Context, store forewarn.Store, lns *listeners,
	fleet *fleetfile.File, token string, log *slog.Logger) (*fabric.Fabric, servers, error) {
	reg := newRegistry()
	hub := admin.NewHub()
	fab, endpoint, err := o.newControlPlane(ctx, store, o.replica(lns), hub, log, reg)
	if err != nil {
		return nil, nil, err
	}
	if err := o.seedFleet(ctx, fab, fleet, lns.metadata.Addr(), log); err != nil {
		return nil, nil, err
	}
	adminAPI := o.newAdminAPI(fab, endpoint, token, hub, log, reg)
	o.logDashboard(log, lns.admin.Addr())
	return fab, lns.servers(endpoint, adminAPI, log), nil
}

// newRegistry returns the process's one Prometheus registry, with Go's
// and the process's collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// replica is this replica as the others see it: its ID, version and the
// addresses of its metadata and admin listeners.
func (o *serveOptions) replica(lns *listeners) forewarn.Replica {
	return forewarn.Replica{ID: o.replicaID, Version: build.Version,
		MetadataAddr: lns.metadata.Addr().String(), AdminAddr: lns.admin.Addr().String()}
}

// newControlPlane returns the fabric, with its actuator, and the metadata
// endpoint it publishes to, as it does to the dashboard's hub.
func (o *serveOptions) newControlPlane(ctx context.Context, store forewarn.Store, self forewarn.Replica,
	hub *admin.Hub, log *slog.Logger, reg *prometheus.Registry) (*fabric.Fabric, *imds.Server, error) {
	clock := clockwork.NewRealClock()
	actuator, err := o.newActuator(clock, log, reg)
	if err != nil {
		return nil, nil, err
	}
	fab, err := fabric.New(ctx, fabric.Config{
		Store:          store,
		Clock:          clock,
		TimeScale:      o.timeScale,
		MaxUserOps:     o.maxUserOps,
		FirstCallDelay: time.Duration(o.firstCallDelay),
		EnableIdle:     time.Duration(o.enableIdle),
		AlwaysEnabled:  o.dev,
		Actuator:       actuator,
		HistoryKeep:    o.historyKeep,
		Replica:        self,
		StoreName:      o.storeName(),
		Logger:         log,
		Registerer:     reg,
	})
	if err != nil {
		return nil, nil, err
	}
	endpoint := imds.New(imds.Config{
		Metadata:   fab.Metadata(),
		Clock:      clock,
		RateLimit:  o.rateLimit,
		Location:   o.location,
		Logger:     log,
		Registerer: reg,
	})
	if err := fab.PublishTo(ctx, forewarn.Publishers{endpoint, hub}); err != nil {
		return nil, nil, err
	}
	return fab, endpoint, nil
}

// newAdminAPI returns the admin API over the control plane and the
// endpoint's poll record, whose dashboard streams from hub.
func (o *serveOptions) newAdminAPI(fab *fabric.Fabric, endpoint *imds.Server, token string, hub *admin.Hub,
	log *slog.Logger, reg *prometheus.Registry) *admin.Server {
	return admin.NewServer(admin.Config{Fleet: fab, Polls: endpoint, Token: token, Gatherer: reg, Registerer: reg,
		Logger: log, Hub: hub, Replica: fab.Replica().ID, Version: build.Version, TrustedOrigins: o.dashOrigins,
		RequestTimeout: time.Duration(o.adminTimeout)})
}

// logDashboard logs the dashboard's address on the admin listener.
func (o *serveOptions) logDashboard(log *slog.Logger, adminAddr net.Addr) {
	scheme := "http"
	if o.adminTLSCert != "" {
		scheme = "https"
	}
	log.Info("dashboard", "url", scheme+"://"+adminAddr.String()+"/ui/")
}

// server is one HTTP listener of serve and the server that serves it.
type server struct {
	name string
	ln   net.Listener
	http httpServer
}

// httpServer serves a listener until shut down: an *http.Server, or the
// metadata endpoint's fasthttp server (metadataServer).
type httpServer interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// servers are the HTTP listeners of serve.
type servers []server

// serve runs the fabric and the HTTP servers until ctx ends or one fails.
func (o *serveOptions) serve(ctx context.Context, log *slog.Logger, fab *fabric.Fabric, srvs servers) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- fab.Run(ctx) }()
	errc := make(chan error, len(srvs))
	for _, s := range srvs {
		log.Info("listening", "api", s.name, "addr", s.ln.Addr().String())
		go func() { errc <- s.http.Serve(s.ln) }()
		if o.listening != nil {
			o.listening(s.name, s.ln.Addr())
		}
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		err = fmt.Errorf("serve: %w", err)
	case err = <-ran:
		// The control plane ends with ctx too: when both are ready, select
		// may take this case for what is a shutdown.
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			err = nil
		} else {
			err = fmt.Errorf("control plane: %w", err)
		}
		ran <- nil
	}
	log.Info("shutting down")
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(o.shutdownTimeout))
	defer scancel()
	for _, s := range srvs {
		if serr := s.http.Shutdown(sctx); serr != nil && !errors.Is(serr, context.DeadlineExceeded) {
			log.Warn("shutdown", "err", serr)
		}
	}
	cancel()
	<-ran // the store closes after the control plane stops
	return err
}
