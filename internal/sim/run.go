package sim

import (
	"context"
	"fmt"
)

// Program is what a run does: the first server's settings and the
// operations, all from the seed.
type Program struct {
	Seed uint64
	Conf serverConf
	Ops  []Op
}

func (p Program) String() string {
	return fmt.Sprintf("seed %d, first server %s, %d operations:\n%s", p.Seed, p.Conf, len(p.Ops), listing(p.Ops))
}

// Generate makes the program of a seed, n operations long, generating
// each operation from the state of the model as the run reaches it.
func Generate(seed uint64, n int, opts Options) Program {
	g := newGen(seed, opts)
	p := Program{Seed: seed, Conf: g.conf()}
	m := newModel(p.Conf, opts)
	m.ensureDefaultVM()
	sh := &shadow{m: m}
	for range n {
		op := g.next(m)
		p.Ops = append(p.Ops, op)
		sh.apply(op)
	}
	return p
}

// Failure is a violation a run found.
type Failure struct {
	Step int // the operation after which it was found; -1 at the start
	Op   Op
	Msg  string
}

func (f *Failure) Error() string {
	if f.Step < 0 {
		return "at the start: " + f.Msg
	}
	return fmt.Sprintf("after operation %d (%s): %s", f.Step, f.Op, f.Msg)
}

// Run runs a program against the system and the model, checking every
// invariant after each operation. It returns the first violation, or nil.
func Run(ctx context.Context, p Program, opts Options) (*Failure, Stats) {
	d := &driver{ctx: ctx, opts: opts, m: newModel(p.Conf, opts), obs: newObservations(), accepted: map[string]bool{}, owners: map[string]string{}}
	opens, err := openerOf(opts)
	if err != nil {
		return &Failure{Step: -1, Msg: err.Error()}, d.stats
	}
	w, err := newWorld(ctx, p.Seed, opens, p.Conf)
	if err != nil {
		return &Failure{Step: -1, Msg: err.Error()}, d.stats
	}
	defer w.close()
	d.w = w
	d.m.ensureDefaultVM()
	if err := d.settle(); err != nil {
		return &Failure{Step: -1, Msg: err.Error()}, d.stats
	}
	for i, op := range p.Ops {
		d.step = i
		if err := d.do(op); err != nil {
			return &Failure{Step: i, Op: op, Msg: err.Error()}, d.stats
		}
		if err := d.settle(); err != nil {
			return &Failure{Step: i, Op: op, Msg: err.Error()}, d.stats
		}
		d.stats.Ops++
	}
	if err := d.checkAll(true); err != nil {
		return &Failure{Step: len(p.Ops) - 1, Op: p.Ops[len(p.Ops)-1], Msg: "at the end: " + err.Error()}, d.stats
	}
	return nil, d.stats
}

// Stats count what a run did.
type Stats struct {
	Ops, Events, Campaigns, Restarts, Approvals int
	// Held counts requests a chaos delay held; Wiped2 scopes deleted while
	// two campaigns walked them; Waited admin approvals of an event another
	// campaign waited for; Forced resolves with Force that completed an
	// event with no failed VM; Refused resolves --complete refused without it.
	Held, Wiped2, Waited, Forced, Refused int
}

func (s *Stats) add(o Stats) {
	s.Ops += o.Ops
	s.Events += o.Events
	s.Campaigns += o.Campaigns
	s.Restarts += o.Restarts
	s.Approvals += o.Approvals
	s.Held += o.Held
	s.Wiped2 += o.Wiped2
	s.Waited += o.Waited
	s.Forced += o.Forced
	s.Refused += o.Refused
}
