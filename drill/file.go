package drill

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fleetfile"
	"github.com/forewarn/forewarn/internal/yamlmsg"
	"github.com/forewarn/forewarn/internal/yamlnode"
)

// MaxSize is the largest drill file Load reads.
const MaxSize = 1 << 20

// The defaults of a step's timeout and of a health check's.
const (
	DefaultTimeout       = 30 * time.Minute
	DefaultPollsTimeout  = 2 * time.Minute
	DefaultHealthWithin  = 2 * time.Minute
	DefaultHealthBetween = time.Second
)

// File is a drill file that passed every check.
type File struct {
	// Name is the drill's name: the file's name field, else its base name.
	Name string
	// Path is where the file was read from.
	Path string
	// Fleet is the path of the fleet file applied before the first step,
	// relative to the drill file's directory; "" for none. FleetFile is
	// that file, parsed and checked.
	Fleet     string
	FleetFile *fleetfile.File
	Steps     []Step
}

// Kind is what a step does.
type Kind string

// The kinds of step. The user operations and the hardware events are
// named as the operations they run.
const (
	Restart        = Kind(forewarn.OpRestart)
	Redeploy       = Kind(forewarn.OpRedeploy)
	Evict          = Kind(forewarn.OpEvict)
	Terminate      = Kind(forewarn.OpTerminate)
	Fail           = Kind(forewarn.OpFail)
	Degrade        = Kind(forewarn.OpDegrade)
	Campaign  Kind = "campaign"
	Wait      Kind = "wait"
	// WaitForPolls waits until every VM of some scopes has polled: until
	// the applications under test are up.
	WaitForPolls Kind = "waitForPolls"
)

// kinds lists the kinds in the order messages name them.
var kinds = []Kind{Restart, Redeploy, Evict, Terminate, Fail, Degrade, Campaign, Wait, WaitForPolls}

// Step is one step of a drill.
type Step struct {
	Name string
	Kind Kind
	// VM is the target of a user operation, a failure or a degradation.
	VM string
	// Notice is a degradation's notice; zero for the default.
	Notice time.Duration
	// Campaign is a campaign step's rollout.
	Campaign forewarn.CampaignSpec
	// Wait is a wait step's length.
	Wait time.Duration
	// Scopes are the scopes a WaitForPolls step waits for.
	Scopes []string
	// Timeout bounds the step: its events must have ended by then.
	Timeout time.Duration
	Expect  Expect
	// Line and Column are where the step is declared.
	Line, Column int
}

// Expect is what must hold of a step's events.
type Expect struct {
	// ApproveWithin, if not zero: each event is approved by one of its
	// VMs within this long of its appearance.
	ApproveWithin time.Duration
	// Approved: no event reaches its NotBefore unapproved.
	Approved bool
	// Polled: every VM of the hit scopes polls while the step runs, and
	// each hit VM is served its event.
	Polled bool
	// Health, if set, is run for each hit VM once its event has ended,
	// until it succeeds or Within passes.
	Health *Health
}

// Health is a command whose exit status says the application is healthy.
type Health struct {
	Command string
	Within  time.Duration
}

// Events reports whether the step creates events, which its expectations
// are about.
func (s *Step) Events() bool { return s.Kind != Wait && s.Kind != WaitForPolls }

// Title is how the step is shown: its name, or what it does.
func (s *Step) Title() string {
	if s.Name != "" {
		return s.Name
	}
	switch s.Kind {
	case Campaign:
		return fmt.Sprintf("campaign %s over %s", s.Campaign.Type, campaignScopes(s.Campaign))
	case Wait:
		return "wait " + forewarn.FormatDuration(s.Wait)
	case WaitForPolls:
		return "wait for polls from " + strings.Join(s.Scopes, ", ")
	}
	return string(s.Kind) + " " + s.VM
}

// campaignScopes names the scopes a campaign walks.
func campaignScopes(spec forewarn.CampaignSpec) string {
	if spec.All {
		return "every scope"
	}
	return strings.Join(spec.Scopes, ", ")
}

// Load reads and parses the drill file at path; messages name it by path.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("drill file: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("drill file: read %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "%s: drill file is larger than %d bytes", path, MaxSize)
	}
	return Parse(path, data)
}

// Parse parses and checks a drill file; path is what messages call it, and
// where a fleet file it names is looked for. The error is a
// *yamlnode.ParseError listing every problem found.
func Parse(path string, data []byte) (*File, error) {
	root, err := yamlnode.Document(path, data, "drill file", "steps")
	if err != nil {
		return nil, err
	}
	p := &parser{Parser: yamlnode.Parser{Name: path}}
	f := p.file(root)
	f.Path = path
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if f.Fleet != "" && !filepath.IsAbs(f.Fleet) {
		f.Fleet = filepath.Join(filepath.Dir(path), f.Fleet)
	}
	var fleetProblems []yamlnode.Problem
	if f.Fleet != "" {
		f.FleetFile, err = fleetfile.Load(f.Fleet)
		if pe, ok := errors.AsType[*fleetfile.ParseError](err); ok {
			fleetProblems = pe.Problems
		} else if err != nil {
			p.Addf(p.fleetNode, "fleet", "%v", err)
		}
	}
	// The drill file's problems, then the fleet file's.
	if err := p.Err(); err != nil || fleetProblems != nil {
		var problems []yamlnode.Problem
		if pe, ok := errors.AsType[*yamlnode.ParseError](err); ok {
			problems = pe.Problems
		}
		return nil, &yamlnode.ParseError{Problems: append(problems, fleetProblems...)}
	}
	return f, nil
}

// parser reads the nodes of one drill file.
type parser struct {
	yamlnode.Parser
	// fleetNode is the value of the fleet field, where a fleet file that
	// cannot be read is at fault.
	fleetNode *yaml.Node
}

// The fields of each part of a drill file.
var (
	fileFields     = []string{"name", "fleet", "timeout", "steps"}
	stepFields     = []string{"name", "restart", "redeploy", "evict", "terminate", "fail", "degrade", "campaign", "wait", "waitForPolls", "timeout", "expect"}
	degradeFields  = []string{"vm", "notice"}
	campaignFields = []string{"type", "scopes", "all", "notice", "duration", "description", "parallelScopes"}
	expectFields   = []string{"approveWithin", "approved", "polled", "health"}
	healthFields   = []string{"command", "within"}
)

func (p *parser) file(root *yaml.Node) *File {
	f := &File{}
	if !p.Plain(root) {
		return f
	}
	fs, ok := p.Fields(root, "", fileFields...)
	if !ok {
		return f
	}
	if n := fs["name"]; n != nil {
		f.Name, _ = p.Str(n, "name")
	}
	if n := fs["fleet"]; n != nil {
		f.Fleet, _ = p.Str(n, "fleet")
		p.fleetNode = n
	}
	timeout := DefaultTimeout
	if n := fs["timeout"]; n != nil {
		timeout, _ = p.Duration(n, "timeout")
	}
	steps := fs["steps"]
	if steps == nil || yamlnode.IsNull(steps) || steps.Kind == yaml.SequenceNode && len(steps.Content) == 0 {
		p.Addf(root, "steps", "the drill has no steps: want a list of steps")
	}
	items := p.List(steps, "steps")
	for _, it := range items {
		f.Steps = append(f.Steps, p.step(it, timeout))
	}
	return f
}

// step reads one step: exactly one action, its timeout and expectations.
func (p *parser) step(it yamlnode.Item, timeout time.Duration) Step {
	s := Step{Line: it.Node.Line, Column: it.Node.Column, Timeout: timeout,
		Expect: Expect{Approved: true, Polled: true}}
	fs, ok := p.Fields(it.Node, it.Path, stepFields...)
	if !ok {
		return s
	}
	if n := fs["name"]; n != nil {
		s.Name, _ = p.Str(n, yamlnode.Join(it.Path, "name"))
	}
	var given []Kind
	for _, k := range kinds {
		if n := fs[string(k)]; n != nil {
			given = append(given, k)
			p.action(&s, k, n, yamlnode.Join(it.Path, string(k)))
		}
	}
	switch {
	case len(given) == 0:
		p.Addf(it.Node, it.Path, "the step does nothing: want one of %s", forewarn.OneOf(kinds))
	case len(given) > 1:
		p.Addf(it.Node, it.Path, "the step does %s and %s: want one action a step", given[0], given[1])
	}
	if s.Kind == WaitForPolls {
		s.Timeout = min(timeout, DefaultPollsTimeout)
	}
	if n := fs["timeout"]; n != nil {
		if s.Kind == Wait {
			p.Addf(n, yamlnode.Join(it.Path, "timeout"), "a wait step lasts its wait: it has no timeout")
		}
		s.Timeout, _ = p.Duration(n, yamlnode.Join(it.Path, "timeout"))
	}
	if n := fs["expect"]; n != nil {
		path := yamlnode.Join(it.Path, "expect")
		if len(given) == 1 && !s.Events() {
			p.Addf(n, path, "a %s step creates no event: it has nothing to expect", s.Kind)
		}
		p.expect(&s.Expect, n, path)
		if s.Kind == Fail {
			p.noApproval(n, path)
		}
	}
	return s
}

// noApproval refuses the approval expectations of a hardware failure,
// which starts at once.
func (p *parser) noApproval(n *yaml.Node, path string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value == "approveWithin" || k.Value == "approved" {
			p.Addf(k, yamlnode.Join(path, k.Value), "a hardware failure starts at once: there is no approval to expect")
		}
	}
}

// action reads the value of a step's action field.
func (p *parser) action(s *Step, k Kind, n *yaml.Node, path string) {
	s.Kind = k
	switch k {
	case Campaign:
		s.Campaign = p.campaign(n, path)
	case Wait:
		s.Wait, _ = p.Duration(n, path)
	case WaitForPolls:
		s.Scopes = p.names(n, path, "scope")
		if len(s.Scopes) == 0 {
			p.Addf(n, path, "want the scopes whose VMs must poll")
		}
	case Degrade:
		if n.Kind != yaml.MappingNode {
			s.VM = p.name(n, path, "VM")
			return
		}
		fs, _ := p.Fields(n, path, degradeFields...)
		if fs["vm"] == nil {
			p.Addf(n, path, "want the vm to degrade")
		} else {
			s.VM = p.name(fs["vm"], yamlnode.Join(path, "vm"), "VM")
		}
		if v := fs["notice"]; v != nil {
			s.Notice, _ = p.Duration(v, yamlnode.Join(path, "notice"))
		}
	default:
		s.VM = p.name(n, path, "VM")
	}
}

// campaign reads a campaign step's rollout, with the checks of maintenance
// start.
func (p *parser) campaign(n *yaml.Node, path string) forewarn.CampaignSpec {
	var spec forewarn.CampaignSpec
	fs, ok := p.Fields(n, path, campaignFields...)
	if !ok {
		return spec
	}
	if v := fs["type"]; v == nil {
		p.Addf(n, path, "want the type: Freeze, Reboot or Redeploy")
	} else if s, ok := p.Str(v, yamlnode.Join(path, "type")); ok {
		t, ok := forewarn.Canonical(s, campaignTypes)
		if !ok {
			p.Addf(v, yamlnode.Join(path, "type"), "%s is not a campaign type: want %s", yamlmsg.Quote(s), forewarn.OneOf(campaignTypes))
		}
		spec.Type = t
	}
	if v := fs["scopes"]; v != nil {
		spec.Scopes = p.names(v, yamlnode.Join(path, "scopes"), "scope")
	}
	if v := fs["all"]; v != nil {
		spec.All, _ = p.Bool(v, yamlnode.Join(path, "all"))
	}
	switch {
	case spec.All && len(spec.Scopes) > 0:
		p.Addf(n, path, "give scopes or all, not both")
	case !spec.All && len(spec.Scopes) == 0:
		p.Addf(n, path, "no scope: give scopes (a list) or all: true")
	}
	if v := fs["notice"]; v != nil {
		d, _ := p.Duration(v, yamlnode.Join(path, "notice"))
		spec.Notice = forewarn.Duration(d)
	}
	if v := fs["duration"]; v != nil {
		d, _ := p.Duration(v, yamlnode.Join(path, "duration"))
		spec.Duration = forewarn.Duration(d)
	}
	if v := fs["description"]; v != nil {
		spec.Description, _ = p.Str(v, yamlnode.Join(path, "description"))
	}
	spec.ParallelScopes = 1
	if v := fs["parallelScopes"]; v != nil {
		if i, ok := p.Integer(v, yamlnode.Join(path, "parallelScopes")); ok && i < 1 {
			p.Addf(v, yamlnode.Join(path, "parallelScopes"), "want at least 1, got %d", i)
		} else {
			spec.ParallelScopes = i
		}
	}
	return spec
}

// campaignTypes are the event types a campaign rolls out.
var campaignTypes = []forewarn.EventType{forewarn.Freeze, forewarn.Reboot, forewarn.Redeploy}

// expect reads a step's expectations.
func (p *parser) expect(e *Expect, n *yaml.Node, path string) {
	fs, ok := p.Fields(n, path, expectFields...)
	if !ok {
		return
	}
	if v := fs["approveWithin"]; v != nil {
		e.ApproveWithin, _ = p.Duration(v, yamlnode.Join(path, "approveWithin"))
	}
	if v := fs["approved"]; v != nil {
		e.Approved, _ = p.Bool(v, yamlnode.Join(path, "approved"))
	}
	if v := fs["polled"]; v != nil {
		e.Polled, _ = p.Bool(v, yamlnode.Join(path, "polled"))
	}
	if v := fs["health"]; v != nil {
		e.Health = p.health(v, yamlnode.Join(path, "health"))
	}
}

// health reads a health check: a command, or a mapping with its command
// and how long it may take to succeed.
func (p *parser) health(n *yaml.Node, path string) *Health {
	h := &Health{Within: DefaultHealthWithin}
	cmd, cmdPath := n, path
	if n.Kind == yaml.MappingNode {
		fs, _ := p.Fields(n, path, healthFields...)
		if cmd = fs["command"]; cmd == nil {
			p.Addf(n, path, "want the command to run")
			return h
		}
		cmdPath = yamlnode.Join(path, "command")
		if v := fs["within"]; v != nil {
			h.Within, _ = p.Duration(v, yamlnode.Join(path, "within"))
		}
	}
	if s, ok := p.Str(cmd, cmdPath); ok && strings.TrimSpace(s) == "" {
		p.Addf(cmd, cmdPath, "the command is empty")
	} else {
		h.Command = s
	}
	return h
}

// names reads a list of names, or a single name, of VMs or scopes.
func (p *parser) names(n *yaml.Node, path, what string) []string {
	if n.Kind == yaml.ScalarNode && !yamlnode.IsNull(n) {
		return []string{p.name(n, path, what)}
	}
	var out []string
	for _, it := range p.List(n, path) {
		out = append(out, p.name(it.Node, it.Path, what))
	}
	return out
}

// name reads the name of a VM or scope.
func (p *parser) name(n *yaml.Node, path, what string) string {
	s, ok := p.Str(n, path)
	if ok && !forewarn.ValidName(s) {
		p.Addf(n, path, "%s is not a valid %s name", yamlmsg.Quote(s), what)
	}
	return s
}
