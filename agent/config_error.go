package agent

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one fault of a configuration.
type Problem struct {
	// Key is the path of the key at fault ("hooks.Reboot.on_scheduled"),
	// or what set its value instead of the file ("--endpoint"); empty for
	// the file as a whole.
	Key string
	// Line is the key's line in the file, from 1; zero when the value did
	// not come from the file.
	Line    int
	Message string
}

// String formats the problem as "key (line N): message".
func (p Problem) String() string {
	switch {
	case p.Key == "" && p.Line > 0:
		return fmt.Sprintf("line %d: %s", p.Line, p.Message)
	case p.Line > 0:
		return fmt.Sprintf("%s (line %d): %s", p.Key, p.Line, p.Message)
	case p.Key != "":
		return p.Key + ": " + p.Message
	}
	return p.Message
}

// ConfigError lists every problem of a configuration.
type ConfigError struct {
	// File is the configuration file, "" when there was none.
	File     string
	Problems []Problem
}

// Error gives the problems one a line, those not tied to a line of the file
// first, then in the order of the file. A single problem stays on one line.
func (e *ConfigError) Error() string {
	head := "agent config"
	if e.File != "" {
		head += " " + e.File
	}
	ps := slices.Clone(e.Problems)
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Key, b.Key))
	})
	ps = slices.Compact(ps) // an anchor merged twice says the same twice
	if len(ps) == 1 {
		return head + ": " + ps[0].String()
	}
	lines := []string{fmt.Sprintf("%s: %d problems:", head, len(ps))}
	for _, p := range ps {
		lines = append(lines, "  "+p.String())
	}
	return strings.Join(lines, "\n")
}

// join appends a key to a key path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// didYouMean suggests the word of known that s most likely misspells, as
// " (did you mean x?)", or else lists known as ": want a, b or c".
func didYouMean(s string, known []string) string {
	if k := closest(s, known); k != "" {
		return fmt.Sprintf(" (did you mean %s?)", k)
	}
	return ": want " + orList(known)
}

// closest returns the word of known nearest to s, ignoring case and
// taking - for _, if it is near enough to be a slip; else "".
func closest(s string, known []string) string {
	norm := func(w string) string { return strings.ReplaceAll(strings.ToLower(w), "-", "_") }
	best, bestDist := "", 0
	for _, k := range known {
		d := editDistance(norm(s), norm(k))
		if d <= min(max(1, len(k)/4), 3) && (best == "" || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// orList writes words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
