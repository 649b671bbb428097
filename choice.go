package forewarn

import "strings"

// Priorities lists every priority of a VM.
var Priorities = []Priority{Regular, Spot}

// EventStatuses lists every status an event in flight shows.
var EventStatuses = []EventStatus{Scheduled, Started}

// Sources lists every source of an event.
var Sources = []Source{Platform, User}

// Canonical returns the one of choices that s names, case-insensitively,
// so that "spot" is Spot.
func Canonical[T ~string](s string, choices []T) (T, bool) {
	for _, c := range choices {
		if strings.EqualFold(s, string(c)) {
			return c, true
		}
	}
	return "", false
}

// OneOf lists choices for a message: "A, B or C".
func OneOf[T ~string](choices []T) string {
	names := make([]string, len(choices))
	for i, c := range choices {
		names[i] = string(c)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// checkChoice refuses a filter that is set to none of its choices.
func checkChoice[T ~string](what string, v T, choices []T) error {
	if _, ok := Canonical(string(v), choices); v != "" && !ok {
		return Errorf(ErrInvalid, "invalid %s %q: want %s", what, v, OneOf(choices))
	}
	return nil
}
