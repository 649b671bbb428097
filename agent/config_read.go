package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn/internal/yamlmsg"
)

// source is where the values of a Config came from, so that its problems
// can say where to look.
type source struct {
	// file is the configuration file, "" if none.
	file string
	// lines are the lines of the file's keys, by key path.
	lines map[string]int
	// setBy names what set a key's value instead of the file, by key path
	// (a command-line flag).
	setBy map[string]string
	// problems were found while reading the file.
	problems []Problem
	// unknownKeys are the key paths whose mappings hold an unknown key.
	unknownKeys map[string]bool
}

// LoadConfig reads the YAML file at path and checks it with Validate. The
// error lists every problem of the file, each with its key and line.
func LoadConfig(path string) (*Config, error) {
	cfg, err := ReadConfig(path)
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// ReadConfig reads the YAML file at path without checking it, for a caller
// that changes the Config before New checks it; it fails only when the
// file cannot be read. What is wrong with the file (an unknown key, a
// value of the wrong kind, a key given twice) is kept in the Config, and
// Validate and New report it with their own findings.
func ReadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agent config: %w", err)
	}
	cfg := decodeConfig(data)
	cfg.src.file = path
	return cfg, nil
}

// ParseConfig reads a YAML configuration and checks it with Validate. The
// error, a *ConfigError, lists every problem, each with its key and line.
func ParseConfig(data []byte) (*Config, error) {
	cfg := decodeConfig(data)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// SetBy records that something other than the file, such as the
// command-line flag "--endpoint", set the value of key: problems with the
// value then name it instead of the file's line.
func (c *Config) SetBy(key, what string) {
	if c.src == nil {
		c.src = &source{}
	}
	if c.src.setBy == nil {
		c.src.setBy = map[string]string{}
	}
	c.src.setBy[key] = what
}

// decodeConfig reads a configuration as far as it can, keeping the line of
// every key and a Problem for every fault.
func decodeConfig(data []byte) *Config {
	cfg := &Config{}
	d := &decoder{lines: map[string]int{}, unknownKeys: map[string]bool{}, merging: map[*yaml.Node]bool{}}
	if root := d.document(data); root != nil {
		d.decode(root, "", reflect.ValueOf(cfg).Elem())
	}
	cfg.src = &source{lines: d.lines, problems: d.problems, unknownKeys: d.unknownKeys}
	return cfg
}

// decoder reads a YAML node tree into a Config key by key, as yaml.v3's
// Decode would but without stopping at the first fault, and with messages
// that name keys rather than Go types.
type decoder struct {
	lines       map[string]int
	problems    []Problem
	unknownKeys map[string]bool
	// merging are the mappings being merged (<<), against cycles.
	merging map[*yaml.Node]bool
}

// addf records a problem of key at node n.
func (d *decoder) addf(n *yaml.Node, key, format string, args ...any) {
	d.problems = append(d.problems, Problem{Key: key, Line: n.Line, Message: fmt.Sprintf(format, args...)})
}

// document returns the root node of the single YAML document in data, nil
// when there is none or it cannot be parsed.
func (d *decoder) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if !errors.Is(err, io.EOF) {
			d.problems = append(d.problems, syntaxProblem(err))
		}
		return nil
	}
	// A second document would be ignored, unknown keys and all.
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		d.addf(&next, "", "a second YAML document: the configuration is a single document")
	} else if !errors.Is(err, io.EOF) {
		d.problems = append(d.problems, syntaxProblem(err))
	}
	if len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// decode reads node n, the value of key, into v, and reports whether n
// was of the kind v takes: when it was not, v is left as it was, so that
// nothing else is said about a value that was not read. A null leaves v as
// it is too: the key might as well be absent.
func (d *decoder) decode(n *yaml.Node, key string, v reflect.Value) bool {
	n = resolve(n)
	switch {
	case isNull(n):
		return true
	case v.Type() == durationType:
		return d.duration(n, key, v.Addr().Interface().(*Duration))
	case v.Kind() == reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if !d.decode(n, key, elem.Elem()) {
			return false
		}
		v.Set(elem)
		return true
	case v.Kind() == reflect.Struct:
		return d.structure(n, key, v)
	case v.Kind() == reflect.Map:
		return d.mapping(n, key, v)
	}
	// yaml.v3 would cut 1.5 down to 1.
	notInt := v.Kind() == reflect.Int && n.ShortTag() != "!!int"
	if n.Kind != yaml.ScalarNode || notInt || n.Decode(v.Addr().Interface()) != nil {
		d.addf(n, key, "want %s, got %s", wanted(v.Kind()), describe(n))
		return false
	}
	return true
}

// durationType is the type decode reads with Duration's syntax.
var durationType = reflect.TypeFor[Duration]()

// duration reads a Duration.
func (d *decoder) duration(n *yaml.Node, key string, out *Duration) bool {
	if n.Kind != yaml.ScalarNode {
		d.addf(n, key, "want a duration such as 30s or 5m, got %s", describe(n))
		return false
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		d.addf(n, key, "%v", err)
		return false
	}
	*out = v
	return true
}

// structure reads a mapping into struct v, by the fields' yaml tags.
func (d *decoder) structure(n *yaml.Node, key string, v reflect.Value) bool {
	names, index := yamlFields(v.Type())
	kvs, ok := d.pairs(n, key, "a mapping (keys: "+strings.Join(names, ", ")+")")
	for _, kv := range kvs {
		path := join(key, yamlmsg.Shorten(kv.key.Value))
		i, known := index[kv.key.Value]
		if !known {
			d.addf(kv.key, path, "unknown key%s", didYouMean(kv.key.Value, names))
			d.unknownKeys[key] = true
			continue
		}
		d.lines[path] = kv.key.Line
		d.decode(kv.value, path, v.Field(i))
	}
	return ok
}

// mapping reads a mapping into map v, whatever its keys: Validate checks
// them.
func (d *decoder) mapping(n *yaml.Node, key string, v reflect.Value) bool {
	kvs, ok := d.pairs(n, key, "a mapping")
	if ok && v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for _, kv := range kvs {
		path := join(key, yamlmsg.Shorten(kv.key.Value))
		d.lines[path] = kv.key.Line
		elem := reflect.New(v.Type().Elem()).Elem()
		if d.decode(kv.value, path, elem) {
			v.SetMapIndex(reflect.ValueOf(kv.key.Value).Convert(v.Type().Key()), elem)
		}
	}
	return ok
}

// pair is a key of a mapping and its value.
type pair struct{ key, value *yaml.Node }

// pairs returns the keys of mapping n and their values, then the keys
// merged in with << that n does not have itself (the first mapping
// merged wins), and whether n is a mapping. It reports a node that is no
// mapping (saying that want is wanted), a key that is not a scalar and a
// key given twice.
func (d *decoder) pairs(n *yaml.Node, key, want string) ([]pair, bool) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		d.addf(n, key, "want %s, got %s", want, describe(n))
		return nil, false
	}
	var own, merged []pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		switch {
		case k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge":
			merged = append(merged, d.merge(v, key)...)
		case k.Kind != yaml.ScalarNode:
			d.addf(k, key, "want a key, got %s", describe(k))
		case seen[k.Value] != nil:
			d.addf(k, join(key, yamlmsg.Shorten(k.Value)), "given twice (first at line %d)", seen[k.Value].Line)
		default:
			seen[k.Value] = k
			own = append(own, pair{k, v})
		}
	}
	for _, kv := range merged {
		if seen[kv.key.Value] == nil {
			seen[kv.key.Value] = kv.key
			own = append(own, kv)
		}
	}
	return own, true
}

// merge returns the pairs the value of a << key merges in: those of a
// mapping, or of each mapping of a list.
func (d *decoder) merge(v *yaml.Node, key string) []pair {
	v = resolve(v)
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	var out []pair
	for _, s := range sources {
		s = resolve(s)
		switch {
		case d.merging[s]:
			d.addf(s, key, "<<: a mapping merges itself")
		default:
			d.merging[s] = true
			kvs, _ := d.pairs(s, key, "a mapping or a list of mappings to merge (<<)")
			out = append(out, kvs...)
			delete(d.merging, s)
		}
	}
	return out
}

// yamlFields returns the YAML names of the fields of struct type t, in
// order, and their indexes by name.
func yamlFields(t reflect.Type) ([]string, map[string]int) {
	var names []string
	index := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		names = append(names, name)
		index[name] = i
	}
	return names, index
}

// resolve follows an alias to its anchored node.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is an explicit or implicit null.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// wanted says what a value of kind k is, for messages.
func wanted(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int:
		return "a whole number"
	case reflect.String:
		return "a string"
	}
	return "a mapping"
}

// describe says what node n holds, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return yamlmsg.Quote(n.Value)
}

// syntaxProblem turns a YAML syntax error into a problem with its line.
func syntaxProblem(err error) Problem {
	line, msg := yamlmsg.Syntax(err)
	return Problem{Line: line, Message: msg}
}
