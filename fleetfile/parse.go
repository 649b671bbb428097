package fleetfile

import (
	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn"

	"github.com/forewarn/forewarn/internal/yamlmsg"
	"github.com/forewarn/forewarn/internal/yamlnode"
)

// The fields of each part of a fleet file.
var (
	fileFields  = []string{"scopes", "vms"}
	scopeFields = []string{"name", "kind", "updateDomains", "faultDomains", "terminateNotice", "vms"}
	vmFields    = []string{"name", "updateDomain", "faultDomain", "addresses", "priority"}
)

// file reads the root of a fleet file: its scopes first, so that the
// standalone VMs' names can be checked against them. A file with anchors
// or aliases is read no further.
func (p *parser) file(root *yaml.Node) *File {
	f := &File{Name: p.Name}
	if !p.Plain(root) {
		return f
	}
	if yamlnode.IsNull(root) {
		p.Addf(root, "", "the file declares nothing: want scopes or vms")
		return f
	}
	fs, ok := p.Fields(root, "", fileFields...)
	if !ok {
		return f
	}
	for _, it := range p.List(fs["scopes"], "scopes") {
		f.Scopes = append(f.Scopes, p.scope(it))
	}
	for _, it := range p.List(fs["vms"], "vms") {
		f.VMs = append(f.VMs, p.vm(it, "", 1, 1))
	}
	return f
}

// scope reads one scope and its VMs.
func (p *parser) scope(it yamlnode.Item) Scope {
	s := Scope{Line: it.Node.Line}
	fs, ok := p.Fields(it.Node, it.Path, scopeFields...)
	if !ok {
		return s
	}
	s.Spec.Name = p.declName(fs, it, "scope", p.scopes)
	s.Spec.Kind = p.kind(fs["kind"], yamlnode.Join(it.Path, "kind"))
	s.Spec.UpdateDomains = p.count(fs["updateDomains"], yamlnode.Join(it.Path, "updateDomains"),
		forewarn.DefaultUpdateDomains, forewarn.MaxUpdateDomains)
	s.Spec.FaultDomains = p.count(fs["faultDomains"], yamlnode.Join(it.Path, "faultDomains"),
		forewarn.DefaultFaultDomains, forewarn.MaxFaultDomains)
	s.Spec.TerminateNotice = p.terminateNotice(fs["terminateNotice"],
		yamlnode.Join(it.Path, "terminateNotice"), s.Spec.Kind)
	for _, v := range p.List(fs["vms"], yamlnode.Join(it.Path, "vms")) {
		s.VMs = append(s.VMs, p.vm(v, s.Spec.Name, s.Spec.UpdateDomains, s.Spec.FaultDomains))
	}
	return s
}

// vm reads one VM of scope, or a standalone VM if scope is "". Its
// domains are checked against the counts given, unless a count is 0
// because it was invalid itself.
func (p *parser) vm(it yamlnode.Item, scope string, uds, fds int) VM {
	vm := VM{Line: it.Node.Line, Spec: forewarn.VMSpec{Scope: scope}}
	fs, ok := p.Fields(it.Node, it.Path, vmFields...)
	if !ok {
		return vm
	}
	vm.Spec.Name = p.declName(fs, it, "vm", p.vms)
	if scope == "" {
		p.standalone(fs["name"], yamlnode.Join(it.Path, "name"), vm.Spec.Name)
	}
	vm.Spec.UpdateDomain = p.domain(fs["updateDomain"], yamlnode.Join(it.Path, "updateDomain"), uds)
	vm.Spec.FaultDomain = p.domain(fs["faultDomain"], yamlnode.Join(it.Path, "faultDomain"), fds)
	vm.Spec.Addresses = p.addresses(fs["addresses"], yamlnode.Join(it.Path, "addresses"), vm.Spec.Name)
	vm.Spec.Priority = p.priority(fs["priority"], yamlnode.Join(it.Path, "priority"))
	return vm
}

// declName reads the name of a scope or VM and checks that it is valid and
// not declared before among seen.
func (p *parser) declName(fs map[string]*yaml.Node, it yamlnode.Item, what string, seen map[forewarn.Key]declared) string {
	path := yamlnode.Join(it.Path, "name")
	n := fs["name"]
	if n == nil {
		p.Addf(it.Node, path, "missing: every %s needs a name", what)
		return ""
	}
	name, ok := p.Str(n, path)
	if !ok {
		return ""
	}
	if !forewarn.ValidName(name) {
		p.Addf(n, path, "%s is not a valid name: want 1 to 64 letters, digits, '-', '_' or '.'", yamlmsg.Quote(name))
		return name
	}
	key := forewarn.KeyOf(name)
	if d, dup := seen[key]; dup {
		p.Addf(n, path, "%s %q is declared twice: also as %q at line %d (names are case-insensitive)",
			what, name, d.name, d.line)
		return name
	}
	seen[key] = declared{name: name, line: n.Line}
	return name
}

// standalone refuses a standalone VM named like a scope: its own scope
// takes its name.
func (p *parser) standalone(n *yaml.Node, path, name string) {
	if name == "" || !forewarn.ValidName(name) {
		return
	}
	if d, taken := p.scopes[forewarn.KeyOf(name)]; taken {
		p.Addf(n, path, "standalone vm %q has the name of scope %q at line %d: "+
			"a standalone VM's own scope is named after it", name, d.name, d.line)
	}
}
