package fleetfile

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/yamlmsg"
)

// parser walks the nodes of one fleet file and collects its problems.
type parser struct {
	name     string
	problems []Problem
	// Names and addresses declared so far, by the name's key and by
	// canonical address, for the checks across the file.
	vms    map[forewarn.Key]declared
	scopes map[forewarn.Key]declared
	addrs  map[string]declared
}

// declared is a name or address already declared, and where.
type declared struct {
	name string
	line int
}

func newParser(name string) *parser {
	return &parser{
		name:   name,
		vms:    map[forewarn.Key]declared{},
		scopes: map[forewarn.Key]declared{},
		addrs:  map[string]declared{},
	}
}

// addf records a problem at node n.
func (p *parser) addf(n *yaml.Node, field, format string, args ...any) {
	p.problems = append(p.problems, Problem{
		File: p.name, Line: n.Line, Column: n.Column, Field: field,
		Message: fmt.Sprintf(format, args...),
	})
}

// fields returns the values of mapping n by key, and false if n is not a
// mapping. It reports a node that is not a mapping, unknown keys and keys
// given twice. A null node is an empty mapping.
func (p *parser) fields(n *yaml.Node, path string, known ...string) (map[string]*yaml.Node, bool) {
	out := map[string]*yaml.Node{}
	if isNull(n) {
		return out, true
	}
	if n.Kind != yaml.MappingNode {
		p.addf(n, path, "want a mapping with the fields %s, got %s", strings.Join(known, ", "), describe(n))
		return out, false
	}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kp := join(path, yamlmsg.Shorten(k.Value))
		switch {
		case k.Kind != yaml.ScalarNode:
			p.addf(k, path, "want a field name, got %s", describe(k))
		case !slices.Contains(known, k.Value):
			p.addf(k, kp, "unknown field%s: want one of %s", hint(k.Value, known), strings.Join(known, ", "))
		case keys[k.Value] != nil:
			p.addf(k, kp, "given twice (first at line %d)", keys[k.Value].Line)
		default:
			keys[k.Value] = k
			out[k.Value] = v
		}
	}
	return out, true
}

// plain reports every anchor and alias under n, which a fleet file does
// not take, and whether there was none. It does not follow aliases.
func (p *parser) plain(n *yaml.Node) bool {
	ok := true
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		p.addf(n, "", "anchors and aliases are not supported")
		ok = false
	}
	for _, c := range n.Content {
		ok = p.plain(c) && ok
	}
	return ok
}

// item is one item of a list and its path.
type item struct {
	node *yaml.Node
	path string
}

// list returns the items of sequence n; a missing or null node is an
// empty list.
func (p *parser) list(n *yaml.Node, path string) []item {
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.addf(n, path, "want a list, got %s", describe(n))
		return nil
	}
	items := make([]item, len(n.Content))
	for i, node := range n.Content {
		items[i] = item{node, index(path, i)}
	}
	return items
}

// str returns the text of scalar n.
func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		p.addf(n, path, "want a string, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

// integer returns the value of integer scalar n.
func (p *parser) integer(n *yaml.Node, path string) (int, bool) {
	var i int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		p.addf(n, path, "want an integer, got %s", describe(n))
		return 0, false
	}
	return i, true
}

// isNull reports whether n is an explicit or implicit null.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what node n holds, for messages.
func describe(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.AliasNode:
		return "an alias"
	case isNull(n):
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

// join appends a field name to a path.
func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// index appends a list index to a path.
func index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}
