package etcd

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/records"
)

// TestWarmReadsWhatEtcdHolds runs generated sequences of Updates on one
// store (a few reads of keys and prefixes, then a few writes: puts,
// deletes, history appends that trim the history with a range delete),
// interleaved with Updates of a second store on the same prefix, writes
// outside the guard, and a failed Update. Before each Update of the first
// store, a View (which never reads warm) reads the same keys and prefixes:
// the Update, which reads through warm, must see exactly what it saw. It
// also checks that warm served reads: the test would pass, and prove
// nothing, if warm were never valid.
func TestWarmReadsWhatEtcdHolds(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			prefix := newPrefix()
			a, b := mustOpen(t, prefix), mustOpen(t, prefix)
			g := &warmGen{rand: rand.New(rand.NewPCG(seed, 15))}
			served := 0
			for step := range 120 {
				switch n := g.rand.IntN(20); {
				case n == 0:
					if err := b.Update(t.Context(), g.writes); err != nil {
						t.Fatalf("step %d: other store's update: %v", step, err)
					}
				case n == 1: // outside the guard: warm must not serve it after
					if _, err := a.client.Put(t.Context(), a.keys.prefix+"/leader/x", g.value()); err != nil {
						t.Fatal(err)
					}
				case n == 2: // an Update that fails writes nothing, and warm keeps nothing of it
					failed := fmt.Errorf("deliberate")
					err := a.Update(t.Context(), func(tx forewarn.Tx) error {
						if err := g.writes(tx); err != nil {
							return err
						}
						return failed
					})
					if err != failed {
						t.Fatalf("step %d: failing update: %v", step, err)
					}
				default:
					reads := g.reads()
					var want map[string]string
					err := a.View(t.Context(), func(ftx forewarn.Tx) error {
						var err error
						want, err = reads.do(ftx.(*tx))
						return err
					})
					if err != nil {
						t.Fatal(err)
					}
					err = a.Update(t.Context(), func(ftx forewarn.Tx) error {
						etx := ftx.(*tx)
						got, err := reads.do(etx)
						if err != nil {
							return err
						}
						if !maps(got, want) {
							t.Fatalf("step %d: through warm, %s read\n%v\nwant (a View)\n%v", step, reads, got, want)
						}
						if etx.kv.(*optimistic).base != 0 {
							served++
						}
						value, _, err := etx.kv.(*optimistic).pin(a.keys.prefix + "/leader/x")
						if err != nil {
							return err
						}
						if fresh, _ := a.client.Get(t.Context(), a.keys.prefix+"/leader/x"); fresh.Count > 0 && string(fresh.Kvs[0].Value) != value {
							t.Fatalf("step %d: pinned %q, etcd holds %q", step, value, fresh.Kvs[0].Value)
						}
						return g.writes(ftx)
					})
					if err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
				}
			}
			if served < 40 {
				t.Errorf("warm was valid for %d Updates of about 100", served)
			}
		})
	}
}

// warmGen generates the reads and writes of TestWarmReadsWhatEtcdHolds, on
// a small space of keys so that they meet.
type warmGen struct {
	rand *rand.Rand
	n    int
}

var warmKinds = []records.Kind{records.Scopes, records.VMs}

func (g *warmGen) key() string { return fmt.Sprintf("g%d/k%d", g.rand.IntN(3), g.rand.IntN(6)) }

func (g *warmGen) value() string {
	g.n++
	return fmt.Sprintf("v%d", g.n)
}

// writes makes up to 5 writes.
func (g *warmGen) writes(ftx forewarn.Tx) error {
	t := ftx.(*tx)
	for range g.rand.IntN(6) {
		k := warmKinds[g.rand.IntN(len(warmKinds))]
		var err error
		switch g.rand.IntN(4) {
		case 0:
			_, err = t.RawDelete(k, g.key())
		case 1:
			err = t.AppendHistory(&forewarn.Event{ID: g.value()}, 1+g.rand.IntN(4))
		default:
			err = t.RawPut(k, g.key(), []byte(g.value()))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// warmReads is the keys and prefixes an Update reads.
type warmReads struct {
	keys     []string // kind/key
	prefixes []string // kind/prefix
	history  bool
}

func (g *warmGen) reads() warmReads {
	var r warmReads
	for range g.rand.IntN(4) {
		r.keys = append(r.keys, fmt.Sprintf("%d/%s", g.rand.IntN(len(warmKinds)), g.key()))
	}
	for range g.rand.IntN(3) {
		p := []string{"", "g0/", "g1/", "g2/", "g1/k"}[g.rand.IntN(5)]
		r.prefixes = append(r.prefixes, fmt.Sprintf("%d/%s", g.rand.IntN(len(warmKinds)), p))
	}
	r.history = g.rand.IntN(3) == 0
	return r
}

func (r warmReads) String() string {
	return fmt.Sprintf("keys %v, prefixes %v, history %v", r.keys, r.prefixes, r.history)
}

// do reads them, into what they saw by a name of each read.
func (r warmReads) do(t *tx) (map[string]string, error) {
	out := map[string]string{}
	kindOf := func(s string) (records.Kind, string) {
		i, rest, _ := strings.Cut(s, "/")
		n := int(i[0] - '0')
		return warmKinds[n], rest
	}
	for _, s := range r.keys {
		k, key := kindOf(s)
		data, found, err := t.RawGet(k, key)
		if err != nil {
			return nil, err
		}
		out["get "+s] = fmt.Sprint(found, string(data))
	}
	for _, s := range r.prefixes {
		k, p := kindOf(s)
		var seen []string
		err := t.RawScan(k, p, "", func(key string, data []byte) (bool, error) {
			seen = append(seen, key+"="+string(data))
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		out["scan "+s] = strings.Join(seen, " ")
	}
	if r.history {
		events, err := t.History(0)
		if err != nil {
			return nil, err
		}
		out["history"] = strings.Join(slices.Collect(func(yield func(string) bool) {
			for _, e := range events {
				if !yield(e.ID) {
					return
				}
			}
		}), " ")
		// An entry, and the whole of it, as warm keeps them: the range
		// deletes that trim the history must reach them.
		vals, err := t.kv.get(t.keys.history(uint64(len(r.keys) + 1))) // before the scan, not from it
		if err != nil {
			return nil, err
		}
		out["history entry"] = fmt.Sprint(vals)
		dir := t.keys.historyDir()
		var entries []string
		err = t.kv.scan(dir, clientv3.GetPrefixRangeEnd(dir), func(key, _ string) (bool, error) {
			entries = append(entries, key)
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		out["history entries"] = strings.Join(entries, " ")
	}
	return out, nil
}
