package imds

import (
	"encoding/json"
	"strconv"
)

// A tree is the instance metadata document: an object, a list ([]any) or a
// string leaf. Objects keep their keys in order, as the wire shows them.
type object []field

// field is one key of an object.
type field struct {
	name  string
	value any // object, []any or string
}

// MarshalJSON writes the object's fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, err := json.Marshal(f.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	return append(buf, '}'), nil
}

// walk follows path segments from node: a key of an object, or the index of
// an item of a list. It reports false if a segment leads nowhere.
func walk(node any, segs []string) (any, bool) {
	for _, seg := range segs {
		switch n := node.(type) {
		case object:
			next, ok := n.get(seg)
			if !ok {
				return nil, false
			}
			node = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(n) || strconv.Itoa(i) != seg {
				return nil, false
			}
			node = n[i]
		default:
			return nil, false
		}
	}
	return node, true
}

// get returns the value of a key.
func (o object) get(name string) (any, bool) {
	for _, f := range o {
		if f.name == name {
			return f.value, true
		}
	}
	return nil, false
}
