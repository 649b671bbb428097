package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// Kind is a kind of operation of the driver.
type Kind int

// The operations: every call the public interfaces offer, and the passing
// of time and restarts.
const (
	OpCreateScope Kind = iota
	OpDeleteScope
	OpCreateVM
	OpDeleteVM
	OpOperate  // restart, redeploy, evict, terminate
	OpFail     // hardware failure
	OpDegrade  // degraded hardware
	OpApprove  // by the admin
	OpCancel   // an event
	OpResolve  // a started event
	OpGet      // a VM asks for its document
	OpPost     // a VM approves
	OpCampaign // maintenance start
	OpSteer    // pause, resume, cancel a campaign
	OpChaos    // add a chaos rule
	OpUnchaos  // delete one
	OpApply    // a fleet file
	OpAdvance  // time passes
	OpRestart  // a new server over the same store
	OpWipe     // delete every VM of a scope, then the scope, while campaigns walk it
)

// lastKind is the last Kind.
const lastKind = OpWipe

// Op is one operation. Which fields count depends on Kind. Events and
// campaigns are named by Pick, an index into those in flight (or ended)
// when the operation runs, so that a sequence stays meaningful when the
// shrinker drops operations before it.
type Op struct {
	Kind     Kind
	Name     string // the scope or VM
	Scope    forewarn.ScopeSpec
	VM       forewarn.VMSpec
	Op       forewarn.Operation
	D        time.Duration
	Pick     int
	Target   Target
	Action   string
	Campaign forewarn.CampaignSpec
	Chaos    forewarn.ChaosSpec
	Fleet    string // the YAML of a fleet file
	Prune    bool
	Version  string // api-version
	Addr     string // an address no VM may own, for OpGet
	Conf     serverConf
	// Twice steers a campaign twice in a row (OpSteer); for a request that
	// a chaos delay holds (OpGet, OpPost), it deletes the VM meanwhile.
	Twice bool
}

// Target says which event a VM's approval names.
type Target int

// The targets of a VM's approval.
const (
	OwnEvent     Target = iota // an event of its scope
	OtherScope                 // an event of another scope
	EndedEvent                 // an event that has completed or been cancelled
	UnknownEvent               // an id no event ever had
	TwoEvents                  // its scope's event and another scope's
)

func (t Target) String() string {
	return [...]string{"own", "other-scope", "ended", "unknown", "own+other"}[t]
}

func (o Op) String() string {
	switch o.Kind {
	case OpCreateScope:
		s := o.Scope
		return fmt.Sprintf("scope create %s kind=%s uds=%d fds=%d terminate-notice=%s", s.Name, s.Kind, s.UpdateDomains, s.FaultDomains, time.Duration(s.TerminateNotice))
	case OpDeleteScope:
		return "scope delete " + o.Name
	case OpCreateVM:
		v := o.VM
		return fmt.Sprintf("vm create %s scope=%q ud=%s fd=%s addresses=%s priority=%s", v.Name, v.Scope,
			intp(v.UpdateDomain), intp(v.FaultDomain), strings.Join(v.Addresses, ","), v.Priority)
	case OpDeleteVM:
		return "vm delete " + o.Name
	case OpOperate:
		return fmt.Sprintf("vm %s %s", o.Op, o.Name)
	case OpFail:
		return "vm fail " + o.Name
	case OpDegrade:
		return fmt.Sprintf("vm degrade %s notice=%s", o.Name, o.D)
	case OpApprove:
		if o.Twice {
			return fmt.Sprintf("maintenance approve event#%d (an event another campaign waits for)", o.Pick)
		}
		return fmt.Sprintf("maintenance approve event#%d", o.Pick)
	case OpCancel:
		return fmt.Sprintf("maintenance cancel event#%d", o.Pick)
	case OpResolve:
		return fmt.Sprintf("maintenance resolve event#%d %s", o.Pick, o.Action)
	case OpGet:
		if o.Addr != "" {
			return fmt.Sprintf("GET scheduledevents from %s api-version=%s", o.Addr, o.Version)
		}
		return fmt.Sprintf("GET scheduledevents from vm %s api-version=%s%s", o.Name, o.Version, heldDelete(o.Twice))
	case OpPost:
		return fmt.Sprintf("POST approval from vm %s of %s event#%d%s", o.Name, o.Target, o.Pick, heldDelete(o.Twice))
	case OpCampaign:
		c := o.Campaign
		scopes := strings.Join(c.Scopes, ",")
		if c.All {
			scopes = "all"
		}
		return fmt.Sprintf("maintenance start %s scopes=%s notice=%s duration=%s parallel=%d", c.Type, scopes,
			time.Duration(c.Notice), time.Duration(c.Duration), c.ParallelScopes)
	case OpSteer:
		if o.Twice {
			return fmt.Sprintf("maintenance %s campaign#%d, twice", o.Action, o.Pick)
		}
		return fmt.Sprintf("maintenance %s campaign#%d", o.Action, o.Pick)
	case OpChaos:
		c := o.Chaos
		return fmt.Sprintf("chaos add scope=%q vm=%q status=%d delay=%s fraction=%g for=%s", c.Scope, c.VM, c.Status, time.Duration(c.Delay), c.Fraction, time.Duration(c.For))
	case OpUnchaos:
		return fmt.Sprintf("chaos delete rule#%d", o.Pick)
	case OpApply:
		return fmt.Sprintf("apply prune=%t <<EOF\n%sEOF", o.Prune, o.Fleet)
	case OpAdvance:
		return "advance " + o.D.String()
	case OpRestart:
		return "restart " + o.Conf.String()
	case OpWipe:
		return fmt.Sprintf("wipe scope#%d (delete its VMs, then it; one that campaigns walk first)", o.Pick)
	}
	return fmt.Sprintf("op %d", o.Kind)
}

func heldDelete(b bool) string {
	if b {
		return " (if a chaos delay holds it, its VM is deleted meanwhile)"
	}
	return ""
}

func intp(p *int) string {
	if p == nil {
		return "auto"
	}
	return fmt.Sprint(*p)
}

// listing prints operations one a line, numbered.
func listing(ops []Op) string {
	var b strings.Builder
	for i, o := range ops {
		fmt.Fprintf(&b, "%4d  %s\n", i, o)
	}
	return b.String()
}
