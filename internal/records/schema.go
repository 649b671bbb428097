package records

import (
	"strconv"

	"github.com/forewarn/forewarn"
)

// CheckSchema judges the schema version a store holds, when it opens,
// against current, the version this release writes. stored is the version
// as stored and versioned whether there is one; empty is whether the store
// holds nothing at all.
//
// It returns the version found, which the caller upgrades if it is below
// current, or 0 for an empty store, which the caller creates. It refuses,
// with an error of kind forewarn.ErrSchema, a store with data but no
// version (another program's), a version that is not one, and a version
// newer than current (a newer release's).
func CheckSchema(stored string, versioned, empty bool, current int) (int, error) {
	if !versioned {
		if !empty {
			return 0, forewarn.Errorf(forewarn.ErrSchema,
				"store has data but no schema version; it was not written by forewarn")
		}
		return 0, nil
	}
	found, err := strconv.Atoi(stored)
	if err != nil || found < 1 {
		return 0, forewarn.Errorf(forewarn.ErrSchema, "store schema version %q is not valid", stored)
	}
	if found > current {
		return 0, forewarn.Errorf(forewarn.ErrSchema,
			"store schema version %d is newer than this release supports (%d); run a newer forewarn",
			found, current)
	}
	return found, nil
}
