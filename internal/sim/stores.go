package sim

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/memstore"
)

func openerOf(opts Options) (storeOpener, error) {
	switch opts.Store {
	case "", "mem":
		return memOpener{}, nil
	case "bolt":
		if opts.Dir == "" {
			return nil, fmt.Errorf("the bolt store needs a directory")
		}
		return boltOpener{path: filepath.Join(opts.Dir, fmt.Sprintf("sim-%d.db", runCount.Add(1)))}, nil
	case "etcd":
		if opts.Etcd == "" {
			return nil, fmt.Errorf("the etcd store needs an endpoint")
		}
		return etcdOpener{endpoint: opts.Etcd, prefix: fmt.Sprintf("/forewarn-sim/%d", runCount.Add(1))}, nil
	}
	return nil, fmt.Errorf("unknown store %q", opts.Store)
}

// runCount numbers the runs of the process, for their files and prefixes.
var runCount atomic.Int64

// memOpener keeps one in-memory store over every restart.
type memOpener struct{}

func (memOpener) open(context.Context) (forewarn.Store, error) { return memstore.New(), nil }
func (memOpener) reopens() bool                                { return false }

// boltOpener closes the file at a restart and opens it again.
type boltOpener struct{ path string }

func (o boltOpener) open(context.Context) (forewarn.Store, error) {
	return bolt.Open(o.path, bolt.Options{})
}
func (boltOpener) reopens() bool { return true }

// etcdOpener connects again at each restart, under the run's prefix.
type etcdOpener struct{ endpoint, prefix string }

func (o etcdOpener) open(ctx context.Context) (forewarn.Store, error) {
	return etcd.Open(ctx, etcd.Config{Endpoints: []string{o.endpoint}, Prefix: o.prefix})
}
func (etcdOpener) reopens() bool { return true }
