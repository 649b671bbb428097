package forewarn

import "strings"

// SameName reports whether two names of scopes, VMs or events (their ids)
// are the same, which they are case-insensitively.
func SameName(a, b string) bool { return strings.EqualFold(a, b) }

// A Key is a name as the key of a map or a store's record: the names of
// scopes, VMs and events (their ids) are the same whatever their case
// (SameName), so everywhere a name is a key it is its Key.
type Key string

// KeyOf returns the key of a scope's, VM's or event's name.
func KeyOf(name string) Key { return Key(strings.ToLower(name)) }

// CompareNames orders names as the stores list them: by their keys.
func CompareNames(a, b string) int { return strings.Compare(string(KeyOf(a)), string(KeyOf(b))) }

// ValidName reports whether s is a valid name of a VM or scope: 1 to 64
// letters, digits, '-', '_' or '.', but not "." or "..", which cannot be
// named in a URL path.
func ValidName(s string) bool {
	if len(s) < 1 || len(s) > 64 || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}
