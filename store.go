package forewarn

import "context"

// Store keeps the state of the fleet: scopes, VMs, events in flight, the
// history of finished events, and a few settings. Every change is made in a
// transaction; an Update that returned nil is durable.
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction and commits it if fn
	// returns nil. The store may run fn more than once (etcd retries on
	// conflicts), so fn must have no effects outside tx.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the store.
	Close() error
}

// Tx is one transaction. Names are matched case-insensitively. Getters
// return an error wrapping ErrNotFound for a missing record; the values
// returned are copies the caller may change and Put back.
type Tx interface {
	Scope(name string) (*Scope, error)
	// Scopes returns every scope, ordered by name.
	Scopes() ([]*Scope, error)
	PutScope(s *Scope) error
	DeleteScope(name string) error

	VM(name string) (*VM, error)
	// VMs returns the VMs of scope, or of every scope if scope is "",
	// ordered by name.
	VMs(scope string) ([]*VM, error)
	// ScanVMs calls fn with the VMs of scope, or of every scope if scope is
	// "", in name order (case-insensitively), beginning after the name
	// after ("" for the first), until fn returns false. It reads a VM only
	// when fn asks for it, so that a page of a large fleet costs a page.
	// fn must not write through the transaction.
	ScanVMs(scope, after string, fn func(*VM) bool) error
	// VMsAt returns the VMs that have the address, ordered by name.
	VMsAt(address string) ([]*VM, error)
	PutVM(vm *VM) error
	DeleteVM(name string) error

	Event(id string) (*Event, error)
	// Events returns the events in flight of scope, or of every scope if
	// scope is "", oldest first.
	Events(scope string) ([]*Event, error)
	PutEvent(e *Event) error
	DeleteEvent(id string) error

	// AppendHistory adds a finished event to the history, dropping the
	// oldest entries beyond keep.
	AppendHistory(e *Event, keep int) error
	// History returns up to limit finished events, newest first.
	History(limit int) ([]*Event, error)

	Campaign(id string) (*Campaign, error)
	// Campaigns returns every campaign, oldest first.
	Campaigns() ([]*Campaign, error)
	// CampaignHeaders returns every campaign without its progress (Scopes
	// nil), oldest first: a list that costs the campaigns, not their
	// scopes.
	CampaignHeaders() ([]*Campaign, error)
	PutCampaign(c *Campaign) error

	// Meta returns a setting, or nil if it is not set.
	Meta(key string) ([]byte, error)
	PutMeta(key string, value []byte) error
}

// WriteLimited is a Tx whose store bounds the writes of one transaction
// (etcd's --max-txn-ops). The scheduler fills its transactions up to the
// bound rather than find it by failing.
type WriteLimited interface {
	// Writes returns how many writes the transaction holds, counting the
	// store's own, and the most it may hold.
	Writes() (n, limit int)
}

// Watcher is a Store whose changes made by others (other replicas) can be
// followed.
type Watcher interface {
	// Watch sends what changed, from any writer, until ctx ends; then it
	// closes the channel.
	Watch(ctx context.Context) <-chan Change
}

// Change is what a Watcher saw changed.
type Change struct {
	// All says changes may have been missed: everything must be read again.
	All bool
	// Scopes are the scopes whose scope record, VMs or events changed.
	Scopes []string
	// Meta are the settings that changed.
	Meta []string
	// Campaigns says a campaign changed, and CampaignIDs which, if the
	// store knows (else every campaign may have).
	Campaigns   bool
	CampaignIDs []string
}

// Elector is a Store whose replicas elect one leader for the time-driven
// work: starting and completing events, actuations and campaigns.
type Elector interface {
	// Lead blocks until this replica, named id, is the leader or ctx ends.
	// It then returns a context that ends when leadership is lost or ctx
	// ends (leadership is then given up), and a fence: a check to run
	// first in each transaction of the leader, which fails with an error
	// wrapping ErrConflict once another replica may lead, so that a
	// deposed leader's transaction does not commit.
	Lead(ctx context.Context, id string) (leading context.Context, fence func(Tx) error, err error)
}
