package fleetfile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/forewarn/forewarn"
	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn/internal/yamlmsg"
)

// MaxSize is the largest fleet file Load reads.
const MaxSize = 8 << 20

// File is a fleet file that passed every check. Build one with Parse or
// Load: Plan and Apply rely on its checks.
type File struct {
	// Name is the name the file was parsed under, used in messages.
	Name string
	// Scopes are the scopes the file declares, with their VMs, in the
	// order of the file.
	Scopes []Scope
	// VMs are the standalone VMs, each in a scope of its own.
	VMs []VM
}

// Scope is a scope the file declares. Its spec has the defaults filled in:
// kind, domain counts, and for a scale set the terminate notice.
type Scope struct {
	Spec forewarn.ScopeSpec
	VMs  []VM
	// Line is where the scope is declared.
	Line int
}

// VM is a VM the file declares. Its spec names its scope, or none for a
// standalone VM; its priority is Regular or Spot and its addresses are in
// canonical form. Domains the file leaves out are nil.
type VM struct {
	Spec forewarn.VMSpec
	// Line is where the VM is declared.
	Line int
}

// Load reads and parses the fleet file at path; messages name it by path.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fleet file: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("fleet file: read %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, forewarn.Errorf(forewarn.ErrInvalid,
			"%s: fleet file is larger than %d bytes", path, MaxSize)
	}
	return Parse(path, data)
}

// Parse parses and checks a fleet file; name is what messages call it. The
// error is a *ParseError listing every problem found.
func Parse(name string, data []byte) (*File, error) {
	root, problem := document(name, data)
	if problem != nil {
		return nil, &ParseError{Problems: []Problem{*problem}}
	}
	p := newParser(name)
	f := p.file(root)
	if len(p.problems) > 0 {
		slices.SortStableFunc(p.problems, func(a, b Problem) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
		})
		return nil, &ParseError{Problems: p.problems}
	}
	return f, nil
}

// document decodes the single YAML document of a fleet file and returns its
// root node.
func document(name string, data []byte) (*yaml.Node, *Problem) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, &Problem{File: name, Message: "the file is empty: want scopes or vms"}
	} else if err != nil {
		return nil, syntaxProblem(name, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &Problem{File: name, Line: next.Line, Column: next.Column,
			Message: "a fleet file holds a single YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxProblem(name, err)
	}
	return doc.Content[0], nil
}

// syntaxProblem turns a YAML syntax error into a problem with its line.
func syntaxProblem(name string, err error) *Problem {
	line, msg := yamlmsg.Syntax(err)
	return &Problem{File: name, Line: line, Message: msg}
}
