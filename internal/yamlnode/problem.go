package yamlnode

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// MaxProblems is how many problems a ParseError lists before it sums up the
// rest.
const MaxProblems = 50

// Problem is one fault of a file.
type Problem struct {
	// File is the name the file was parsed under.
	File string
	// Line and Column locate the fault, from 1; zero when unknown.
	Line, Column int
	// Field is the path of the field at fault, such as
	// "scopes[0].vms[1].updateDomain"; empty for the file as a whole.
	Field   string
	Message string
}

// String formats the problem as "file:line:column: field: message".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
		if p.Column > 0 {
			fmt.Fprintf(&b, ":%d", p.Column)
		}
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ParseError is every fault found in a file, in the order of the file. It
// wraps a *forewarn.Error of kind forewarn.ErrInvalid with the same text,
// so that errors.Is(err, forewarn.ErrInvalid) holds and
// forewarn.ErrorMessage shows it.
type ParseError struct {
	Problems []Problem
}

// Error lists the problems, one a line.
func (e *ParseError) Error() string {
	lines := make([]string, 0, min(len(e.Problems), MaxProblems)+1)
	for i, p := range e.Problems {
		if i == MaxProblems {
			lines = append(lines, "... and "+plural.Count(len(e.Problems)-i, "more problem", "more problems"))
			break
		}
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems as a user error of kind forewarn.ErrInvalid.
func (e *ParseError) Unwrap() error {
	return &forewarn.Error{Kind: forewarn.ErrInvalid, Message: e.Error()}
}

// sortProblems orders problems as the file does.
func sortProblems(problems []Problem) {
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}
