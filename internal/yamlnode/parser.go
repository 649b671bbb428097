package yamlnode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/yamlmsg"
)

// Parser collects the problems of one file while its reader walks the
// nodes.
type Parser struct {
	// Name is what messages call the file.
	Name     string
	problems []Problem
}

// Err returns the problems found, in the order of the file, as a
// *ParseError; nil if there is none.
func (p *Parser) Err() error {
	if len(p.problems) == 0 {
		return nil
	}
	sortProblems(p.problems)
	return &ParseError{Problems: p.problems}
}

// Addf records a problem at node n.
func (p *Parser) Addf(n *yaml.Node, field, format string, args ...any) {
	p.problems = append(p.problems, Problem{
		File: p.Name, Line: n.Line, Column: n.Column, Field: field,
		Message: fmt.Sprintf(format, args...),
	})
}

// Fields returns the values of mapping n by key, and false if n is not a
// mapping. It reports a node that is not a mapping, unknown keys and keys
// given twice. A null node is an empty mapping.
func (p *Parser) Fields(n *yaml.Node, path string, known ...string) (map[string]*yaml.Node, bool) {
	out := map[string]*yaml.Node{}
	if IsNull(n) {
		return out, true
	}
	if n.Kind != yaml.MappingNode {
		p.Addf(n, path, "want a mapping with the fields %s, got %s", strings.Join(known, ", "), Describe(n))
		return out, false
	}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kp := Join(path, yamlmsg.Shorten(k.Value))
		switch {
		case k.Kind != yaml.ScalarNode:
			p.Addf(k, path, "want a field name, got %s", Describe(k))
		case !slices.Contains(known, k.Value):
			p.Addf(k, kp, "unknown field%s: want one of %s", hint(k.Value, known), strings.Join(known, ", "))
		case keys[k.Value] != nil:
			p.Addf(k, kp, "given twice (first at line %d)", keys[k.Value].Line)
		default:
			keys[k.Value] = k
			out[k.Value] = v
		}
	}
	return out, true
}

// Plain reports every anchor and alias under n, which the files read here
// do not take, and whether there was none. It does not follow aliases.
func (p *Parser) Plain(n *yaml.Node) bool {
	ok := true
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		p.Addf(n, "", "anchors and aliases are not supported")
		ok = false
	}
	for _, c := range n.Content {
		ok = p.Plain(c) && ok
	}
	return ok
}

// Item is one item of a list and its path.
type Item struct {
	Node *yaml.Node
	Path string
}

// List returns the items of sequence n; a missing or null node is an
// empty list.
func (p *Parser) List(n *yaml.Node, path string) []Item {
	if n == nil || IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.Addf(n, path, "want a list, got %s", Describe(n))
		return nil
	}
	items := make([]Item, len(n.Content))
	for i, node := range n.Content {
		items[i] = Item{node, Index(path, i)}
	}
	return items
}

// Str returns the text of scalar n.
func (p *Parser) Str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || IsNull(n) {
		p.Addf(n, path, "want a string, got %s", Describe(n))
		return "", false
	}
	return n.Value, true
}

// Integer returns the value of integer scalar n.
func (p *Parser) Integer(n *yaml.Node, path string) (int, bool) {
	var i int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		p.Addf(n, path, "want an integer, got %s", Describe(n))
		return 0, false
	}
	return i, true
}

// IsNull reports whether n is an explicit or implicit null.
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// Describe names what node n holds, for messages.
func Describe(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.AliasNode:
		return "an alias"
	case IsNull(n):
		return "nothing"
	default:
		return yamlmsg.Quote(n.Value)
	}
}

// hint suggests the known field that key misspells in case only.
func hint(key string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return fmt.Sprintf(" (did you mean %s?)", k)
		}
	}
	return ""
}

// Join appends a field name to a path.
func Join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// Index appends a list index to a path.
func Index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}

// Document decodes the single YAML document of a file and returns its root
// node, or the problem that stops the reading: a syntax error, an empty
// file, or more than one document. kind names the file ("fleet file") and
// want what it should declare ("scopes or vms").
func Document(name string, data []byte, kind, want string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, only(Problem{File: name, Message: "the file is empty: want " + want})
	} else if err != nil {
		return nil, syntaxProblem(name, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, only(Problem{File: name, Line: next.Line, Column: next.Column,
			Message: "a " + kind + " holds a single YAML document"})
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxProblem(name, err)
	}
	return doc.Content[0], nil
}

// only returns a ParseError of one problem.
func only(p Problem) *ParseError {
	return &ParseError{Problems: []Problem{p}}
}

// syntaxProblem turns a YAML syntax error into a problem with its line.
func syntaxProblem(name string, err error) *ParseError {
	line, msg := yamlmsg.Syntax(err)
	return only(Problem{File: name, Line: line, Message: msg})
}

// Bool returns the value of boolean scalar n.
func (p *Parser) Bool(n *yaml.Node, path string) (bool, bool) {
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		p.Addf(n, path, "want true or false, got %s", Describe(n))
		return false, false
	}
	return b, true
}

// Duration returns the value of a duration scalar such as "90s" or "15m",
// which must be more than zero.
func (p *Parser) Duration(n *yaml.Node, path string) (time.Duration, bool) {
	s, ok := p.Str(n, path)
	if !ok {
		return 0, false
	}
	d, err := forewarn.ParseDuration(s)
	switch {
	case err != nil && strings.Contains(err.Error(), "missing unit"):
		p.Addf(n, path, "%s has no unit: want one such as 90s or 10m", yamlmsg.Quote(s))
	case err != nil:
		p.Addf(n, path, "%s is not a duration (or too long): want one such as 90s or 10m", yamlmsg.Quote(s))
	case d <= 0:
		p.Addf(n, path, "%s: want more than 0", yamlmsg.Quote(s))
	default:
		return d, true
	}
	return 0, false
}
