package fleetfile

import "github.com/forewarn/forewarn/internal/yamlnode"

// Problem is one fault of a fleet file, placed by line and column.
type Problem = yamlnode.Problem

// ParseError is every fault found in a fleet file, in the order of the
// file. It wraps a *forewarn.Error of kind forewarn.ErrInvalid with the same
// text, so that errors.Is(err, forewarn.ErrInvalid) holds and
// forewarn.ErrorMessage shows it.
type ParseError = yamlnode.ParseError
