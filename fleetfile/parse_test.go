package fleetfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/yamlnode"
)

// mustParse parses a fleet file that must be good.
func mustParse(tb testing.TB, text string) *File {
	tb.Helper()
	f, err := Parse("fleet.yaml", []byte(text))
	if err != nil {
		tb.Fatalf("parse:\n%s\nerror:\n%v", text, err)
	}
	return f
}

// problems parses a fleet file that must be bad and returns its problems.
func problems(tb testing.TB, text string) []Problem {
	tb.Helper()
	_, err := Parse("fleet.yaml", []byte(text))
	var pe *ParseError
	if !errors.As(err, &pe) {
		tb.Fatalf("parse:\n%s\nwant a *ParseError, got %v", text, err)
	}
	return pe.Problems
}

func TestParseExample(t *testing.T) {
	f, err := Load(filepath.Join("..", "examples", "fleet.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[forewarn.ScopeKind]int{}
	spot := 0
	for _, s := range f.Scopes {
		kinds[s.Spec.Kind]++
		for _, vm := range s.VMs {
			if vm.Spec.Priority == forewarn.Spot {
				spot++
				if s.Spec.Kind != forewarn.ScaleSet {
					t.Errorf("spot vm %s in a %s", vm.Spec.Name, s.Spec.Kind)
				}
			}
			for _, a := range vm.Spec.Addresses {
				if !strings.HasPrefix(a, "127.") {
					t.Errorf("vm %s has address %s, outside 127.0.0.0/8", vm.Spec.Name, a)
				}
			}
		}
	}
	if kinds[forewarn.AvailabilitySet] != 3 || kinds[forewarn.ScaleSet] != 1 || spot == 0 || len(f.VMs) != 1 {
		t.Errorf("example has kinds %v, %d spot VMs, %d standalone VMs; want 3 availability sets, "+
			"a scale set of spot VMs and a standalone VM", kinds, spot, len(f.VMs))
	}
	var web *Scope
	for i := range f.Scopes {
		if f.Scopes[i].Spec.Name == "web" {
			web = &f.Scopes[i]
		}
	}
	if web == nil {
		t.Fatal("example has no scope web")
	}
	uds := map[int]bool{}
	for _, vm := range web.VMs {
		uds[*vm.Spec.UpdateDomain] = true
	}
	if len(uds) < 2 {
		t.Errorf("web's VMs are in update domains %v, want them spread", uds)
	}
}

func TestServeExampleIsYAML(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "serve.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"data-dir", "metadata-addr", "admin-addr", "dev", "time-scale", "rate-limit", "fleet", "actuator"} {
		if _, ok := cfg[k]; !ok {
			t.Errorf("serve.yaml has no key %s", k)
		}
	}
	for k, v := range cfg {
		switch v.(type) {
		case map[string]any, []any:
			t.Errorf("serve.yaml key %s is not a plain value: %v", k, v)
		}
	}
}

func TestParseDefaults(t *testing.T) {
	f := mustParse(t, `
scopes:
  - name: web
    vms:
      - name: web-0
        addresses: ["::ffff:127.0.0.5", " 127.0.0.6 "]
  - name: pool
    kind: Scale-Set
    vms:
      - {name: p-0, priority: spot}
  - name: pool2
    kind: scale-set
    terminateNotice: 0d10m
vms:
  - name: batch-1
    updateDomain: 0
`)
	web := f.Scopes[0]
	want := forewarn.ScopeSpec{Name: "web", Kind: forewarn.AvailabilitySet, UpdateDomains: 5, FaultDomains: 3}
	if web.Spec != want || web.Line != 3 {
		t.Errorf("web = %+v at line %d, want %+v at line 3", web.Spec, web.Line, want)
	}
	vm := web.VMs[0]
	if vm.Spec.Scope != "web" || vm.Spec.Priority != forewarn.Regular || vm.Spec.UpdateDomain != nil ||
		vm.Spec.FaultDomain != nil || strings.Join(vm.Spec.Addresses, " ") != "127.0.0.5 127.0.0.6" || vm.Line != 5 {
		t.Errorf("web-0 = %+v at line %d", vm.Spec, vm.Line)
	}
	pool := f.Scopes[1]
	if pool.Spec.Kind != forewarn.ScaleSet || time.Duration(pool.Spec.TerminateNotice) != 5*time.Minute ||
		pool.VMs[0].Spec.Priority != forewarn.Spot {
		t.Errorf("pool = %+v, vm %+v", pool.Spec, pool.VMs[0].Spec)
	}
	if d := time.Duration(f.Scopes[2].Spec.TerminateNotice); d != 10*time.Minute {
		t.Errorf("pool2 terminate notice = %s, want 10m", d)
	}
	batch := f.VMs[0]
	if batch.Spec.Scope != "" || batch.Spec.UpdateDomain == nil || *batch.Spec.UpdateDomain != 0 {
		t.Errorf("batch-1 = %+v", batch.Spec)
	}
}

func TestParseEmptyLists(t *testing.T) {
	for _, text := range []string{"{}", "scopes: []", "scopes:\nvms:", "scopes: [{name: a, vms: []}]"} {
		mustParse(t, text)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		// want is the first problem as "line:column: field: message",
		// where the message need only be a prefix.
		want string
	}{
		{"empty file", "", `fleet.yaml: the file is empty`},
		{"only comments", "# nothing\n", `fleet.yaml: the file is empty`},
		{"null document", "null\n", `fleet.yaml:1:1: the file declares nothing`},
		{"bad indentation", "scopes:\n  - name: web\n   kind: x\n", `fleet.yaml:2: invalid YAML: did not find expected '-' indicator`},
		{"no key", "scopes: []\nvms: []\nfleet: 'x' y\n", `fleet.yaml:3: invalid YAML: did not find expected key`},
		{"unclosed list", "scopes: []\nvms: [{name: a}\n", `fleet.yaml:2: invalid YAML: did not find expected ',' or ']'`},
		{"bad token", "scopes: []\nvms: @x\n", `fleet.yaml:2: invalid YAML: found character that cannot start any token`},
		{"tabs", "scopes:\n\t- name: web\n", `fleet.yaml:2: invalid YAML: `},
		{"two documents", "scopes: []\n---\nvms: []\n", `fleet.yaml:2:1: a fleet file holds a single YAML document`},
		{"root is a list", "- name: web\n", `fleet.yaml:1:1: want a mapping with the fields scopes, vms, got a list`},
		{"unknown top field", "scopes: []\nvm: []\n", `fleet.yaml:2:1: vm: unknown field: want one of scopes, vms`},
		{"field twice", "scopes: []\nscopes: []\n", `fleet.yaml:2:1: scopes: given twice (first at line 1)`},
		{"scopes not a list", "scopes: {name: web}\n", `fleet.yaml:1:9: scopes: want a list, got a mapping`},
		{"scope not a mapping", "scopes:\n  - web\n", `fleet.yaml:2:5: scopes[0]: want a mapping with the fields name, kind,`},
		{"unknown scope field", "scopes:\n  - name: web\n    updatedomains: 3\n",
			`fleet.yaml:3:5: scopes[0].updatedomains: unknown field (did you mean updateDomains?): want one of name, kind,`},
		{"unknown vm field", "scopes:\n  - name: web\n    vms:\n      - name: a\n        zone: 1\n",
			`fleet.yaml:5:9: scopes[0].vms[0].zone: unknown field: want one of name, updateDomain,`},
		{"missing scope name", "scopes:\n  - kind: scale-set\n", `fleet.yaml:2:5: scopes[0].name: missing: every scope needs a name`},
		{"missing vm name", "vms:\n  - priority: Spot\n", `fleet.yaml:2:5: vms[0].name: missing: every vm needs a name`},
		{"name is a list", "scopes:\n  - name: [a, b]\n", `fleet.yaml:2:11: scopes[0].name: want a string, got a list`},
		{"name is null", "vms:\n  - name:\n", `fleet.yaml:2:10: vms[0].name: want a string, got nothing`},
		{"invalid scope name", "scopes:\n  - name: web tier\n", `fleet.yaml:2:11: scopes[0].name: "web tier" is not a valid name`},
		{"invalid vm name", "vms:\n  - name: ..\n", `fleet.yaml:2:11: vms[0].name: ".." is not a valid name`},
		{"long name", "vms:\n  - name: " + strings.Repeat("a", 65) + "\n", `fleet.yaml:2:11: vms[0].name: "aaaa`},
		{"duplicate scope", "scopes:\n  - name: web\n  - name: WEB\n",
			`fleet.yaml:3:11: scopes[1].name: scope "WEB" is declared twice: also as "web" at line 2 (names are case-insensitive)`},
		{"duplicate vm across scopes", "scopes:\n  - name: a\n    vms: [{name: x}]\n  - name: b\n    vms: [{name: X}]\n",
			`fleet.yaml:5:18: scopes[1].vms[0].name: vm "X" is declared twice: also as "x" at line 3`},
		{"duplicate standalone and scoped vm", "scopes:\n  - name: a\n    vms: [{name: x}]\nvms:\n  - name: x\n",
			`fleet.yaml:5:11: vms[0].name: vm "x" is declared twice`},
		{"standalone named like a scope", "vms:\n  - name: Web\nscopes:\n  - name: web\n",
			`fleet.yaml:2:11: vms[0].name: standalone vm "Web" has the name of scope "web" at line 4`},
		{"bad kind", "scopes:\n  - name: web\n    kind: availability_set\n",
			`fleet.yaml:3:11: scopes[0].kind: "availability_set" is not a kind of scope: want availability-set, scale-set or cloud-service`},
		{"standalone kind", "scopes:\n  - name: web\n    kind: standalone\n",
			`fleet.yaml:3:11: scopes[0].kind: standalone VMs go in the top-level vms list`},
		{"update domains not a number", "scopes:\n  - name: web\n    updateDomains: five\n",
			`fleet.yaml:3:20: scopes[0].updateDomains: want an integer, got "five"`},
		{"update domains a float", "scopes:\n  - name: web\n    updateDomains: 2.5\n",
			`fleet.yaml:3:20: scopes[0].updateDomains: want an integer, got "2.5"`},
		{"update domains quoted", "scopes:\n  - name: web\n    updateDomains: \"3\"\n",
			`fleet.yaml:3:20: scopes[0].updateDomains: want an integer, got "3"`},
		{"update domains zero", "scopes:\n  - name: web\n    updateDomains: 0\n",
			`fleet.yaml:3:20: scopes[0].updateDomains: 0 is out of range 1..20`},
		{"fault domains too many", "scopes:\n  - name: web\n    faultDomains: 6\n",
			`fleet.yaml:3:19: scopes[0].faultDomains: 6 is out of range 1..5`},
		{"update domain out of range", "scopes:\n  - name: web\n    vms:\n      - name: a\n      - name: b\n        updateDomain: 7\n",
			`fleet.yaml:6:23: scopes[0].vms[1].updateDomain: 7 is out of range 0..4`},
		{"update domain of a custom count", "scopes:\n  - name: web\n    updateDomains: 2\n    vms: [{name: a, updateDomain: 2}]\n",
			`fleet.yaml:4:35: scopes[0].vms[0].updateDomain: 2 is out of range 0..1`},
		{"negative fault domain", "scopes:\n  - name: web\n    vms: [{name: a, faultDomain: -1}]\n",
			`fleet.yaml:3:34: scopes[0].vms[0].faultDomain: -1 is out of range 0..2`},
		{"fault domain of a custom count", "scopes:\n  - name: web\n    vms: [{name: a, faultDomain: 3}]\n    faultDomains: 2\n",
			`fleet.yaml:3:34: scopes[0].vms[0].faultDomain: 3 is out of range 0..1`},
		{"standalone update domain", "vms:\n  - name: a\n    updateDomain: 1\n",
			`fleet.yaml:3:19: vms[0].updateDomain: 1 is out of range 0..0`},
		{"domain not a number", "vms:\n  - name: a\n    faultDomain: [0]\n",
			`fleet.yaml:3:18: vms[0].faultDomain: want an integer, got a list`},
		{"bad priority", "vms:\n  - name: a\n    priority: Low\n",
			`fleet.yaml:3:15: vms[0].priority: "Low" is not a priority: want Regular or Spot`},
		{"addresses not a list", "vms:\n  - name: a\n    addresses: 10.0.0.4\n",
			`fleet.yaml:3:16: vms[0].addresses: want a list, got "10.0.0.4"`},
		{"bad address", "vms:\n  - name: a\n    addresses: [127.0.0.1, 127.0.0.300]\n",
			`fleet.yaml:3:28: vms[0].addresses[1]: "127.0.0.300" is not an IP address`},
		{"address with a port", "vms:\n  - name: a\n    addresses: [\"127.0.0.1:80\"]\n",
			`fleet.yaml:3:17: vms[0].addresses[0]: "127.0.0.1:80" is not an IP address`},
		{"unspecified address", "vms:\n  - name: a\n    addresses: [0.0.0.0]\n",
			`fleet.yaml:3:17: vms[0].addresses[0]: 0.0.0.0 is not a unicast address`},
		{"multicast address", "vms:\n  - name: a\n    addresses: [ff02::1]\n",
			`fleet.yaml:3:17: vms[0].addresses[0]: ff02::1 is not a unicast address`},
		{"address twice in a vm", "vms:\n  - name: a\n    addresses: [127.0.0.7, 127.0.0.7]\n",
			`fleet.yaml:3:28: vms[0].addresses[1]: address 127.0.0.7 is given twice: also to vm "a" at line 3`},
		{"address twice across vms", "scopes:\n  - name: web\n    vms:\n      - {name: a, addresses: [127.0.0.7]}\n" +
			"vms:\n  - name: b\n    addresses: [\"::ffff:127.0.0.7\"]\n",
			`fleet.yaml:7:17: vms[0].addresses[0]: address 127.0.0.7 is given twice: also to vm "a" at line 4`},
		{"terminate notice too long", "scopes:\n  - name: pool\n    kind: scale-set\n    terminateNotice: 20m\n",
			`fleet.yaml:4:22: scopes[0].terminateNotice: 20m is out of range 5m..15m`},
		{"terminate notice too short", "scopes:\n  - name: pool\n    kind: scale-set\n    terminateNotice: 4m59s\n",
			`fleet.yaml:4:22: scopes[0].terminateNotice: 4m59s is out of range 5m..15m`},
		{"terminate notice in days", "scopes:\n  - name: pool\n    kind: scale-set\n    terminateNotice: 7d\n",
			`fleet.yaml:4:22: scopes[0].terminateNotice: 168h is out of range 5m..15m`},
		{"terminate notice not a duration", "scopes:\n  - name: pool\n    kind: scale-set\n    terminateNotice: 10\n",
			`fleet.yaml:4:22: scopes[0].terminateNotice: "10" is not a duration: want one such as 10m`},
		{"terminate notice on an availability set", "scopes:\n  - name: web\n    terminateNotice: 10m\n",
			`fleet.yaml:3:22: scopes[0].terminateNotice: only a scale set has a terminate notice; this scope is of kind availability-set`},
		{"terminate notice on a standalone vm", "vms:\n  - name: a\n    terminateNotice: 10m\n",
			`fleet.yaml:3:5: vms[0].terminateNotice: unknown field`},
		{"anchor", "scopes:\n  - &web\n    name: web\n", `fleet.yaml:2:5: anchors and aliases are not supported`},
		{"alias", "scopes:\n  - name: &n web\n    vms: [{name: *n}]\n", `fleet.yaml:2:11: anchors and aliases are not supported`},
		{"merge key", "scopes:\n  - name: web\n    <<: {kind: scale-set}\n", `fleet.yaml:3:5: scopes[0].<<: unknown field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := problems(t, tt.text)
			if len(ps) == 0 {
				t.Fatal("no problem reported")
			}
			if got := ps[0].String(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("got  %s\nwant %s...", got, tt.want)
			}
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	ps := problems(t, `
scopes:
  - name: web
    kind: blue
    vms:
      - name: a
        priority: High
      - name: A
vms:
  - name: b
    addresses: [nowhere]
`)
	want := []string{"scopes[0].kind", "scopes[0].vms[0].priority", "scopes[0].vms[1].name", "vms[0].addresses[0]"}
	if len(ps) != len(want) {
		t.Fatalf("got %d problems, want %d: %v", len(ps), len(want), ps)
	}
	for i, p := range ps {
		if p.Field != want[i] || p.File != "fleet.yaml" || p.Line == 0 || p.Column == 0 {
			t.Errorf("problem %d = %+v, want field %s with a position", i, p, want[i])
		}
	}
}

func TestParseErrorIsInvalid(t *testing.T) {
	_, err := Parse("f.yaml", []byte("scopes: [{name: web, kind: blue}]"))
	if !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("error %v does not wrap ErrInvalid", err)
	}
	if got := forewarn.ErrorMessage(err); got != err.Error() || !strings.HasPrefix(got, "f.yaml:1:28: scopes[0].kind:") {
		t.Errorf("user message = %q, error = %q", got, err.Error())
	}
}

func TestParseErrorSumsUpMany(t *testing.T) {
	var b strings.Builder
	b.WriteString("vms:\n")
	for range yamlnode.MaxProblems + 5 {
		b.WriteString("  - name: bad name\n")
	}
	_, err := Parse("fleet.yaml", []byte(b.String()))
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != yamlnode.MaxProblems+1 || lines[yamlnode.MaxProblems] != "... and 5 more problems" {
		t.Errorf("got %d lines ending %q", len(lines), lines[len(lines)-1])
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fleet.yaml")
	if err := os.WriteFile(path, []byte("vms:\n  - name: a b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":2:11: vms[0].name:") {
		t.Errorf("Load error = %v, want it to name %s and the line", err, path)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file = %v, want ErrNotExist", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, MaxSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("Load of a big file = %v, want ErrInvalid", err)
	}
}
