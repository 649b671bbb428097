package forewarn

import "strings"

// VMQuery selects the VMs that Fleet.VMs lists, in name order
// (case-insensitively), a page at a time. The zero value lists every VM.
type VMQuery struct {
	// Scope keeps the VMs of this scope; "" keeps every scope. A scope that
	// does not exist is ErrNotFound.
	Scope string
	// UpdateDomain, if not nil, keeps the VMs of this update domain.
	UpdateDomain *int
	// Priority, if not "", keeps the VMs of this priority, Regular or Spot
	// in any case.
	Priority Priority
	// After resumes a listing: it is the next cursor of the previous page
	// (that page's last VM name), and the page begins after it. "" begins
	// at the first VM.
	After string
	// Limit is the most VMs one page holds; 0 lists every VM that matches.
	Limit int
}

// EventQuery selects the events in flight that Fleet.Events lists, oldest
// first (by CreatedAt, then ID), a page at a time. The zero value lists
// every event in flight.
type EventQuery struct {
	// Scope keeps the events of this scope; "" keeps every scope. A scope
	// that does not exist is ErrNotFound.
	Scope string
	// Type, if not "", keeps the events of this type, in any case.
	Type EventType
	// Status, if not "", keeps the events of this status, in any case.
	Status EventStatus
	// Source, if not "", keeps the events of this source, in any case.
	Source Source
	// After resumes a listing: it is the next cursor of the previous page,
	// opaque, and the page begins after the event it stands for, even if
	// that event has finished since. "" begins at the oldest event. A
	// cursor that no page returned is ErrInvalid.
	After string
	// Limit is the most events one page holds; 0 lists every event that
	// matches.
	Limit int
}

// HistoryQuery selects the page of the history, finished and cancelled
// events, that Fleet.HistoryPage lists, newest first (the order in which
// they ended).
type HistoryQuery struct {
	// After resumes a listing: it is the next cursor of the previous page,
	// opaque, and the page begins with the event that ended before the one
	// it stands for. "" begins at the newest. A cursor that no page
	// returned is ErrInvalid.
	After string
	// Limit is the most events one page holds; 0 lists the whole history.
	Limit int
}

// Check refuses a query that cannot be answered: a negative limit.
func (q HistoryQuery) Check() error { return checkLimit(q.Limit) }

// Check refuses a query that cannot be answered: a negative update domain
// or limit, or an unknown priority. It leaves the cursor to the listing.
func (q VMQuery) Check() error {
	if q.UpdateDomain != nil && *q.UpdateDomain < 0 {
		return Errorf(ErrInvalid, "invalid update domain %d: want 0 or more", *q.UpdateDomain)
	}
	if err := checkChoice("priority", q.Priority, Priorities); err != nil {
		return err
	}
	return checkLimit(q.Limit)
}

// Match reports whether vm passes the filters of q; the page bounds
// (After, Limit) are the listing's.
func (q VMQuery) Match(vm *VM) bool {
	return (q.Scope == "" || SameName(vm.Scope, q.Scope)) &&
		(q.UpdateDomain == nil || vm.UpdateDomain == *q.UpdateDomain) &&
		(q.Priority == "" || strings.EqualFold(string(vm.Priority), string(q.Priority)))
}

// Check refuses a query that cannot be answered: an unknown type, status
// or source, or a negative limit. It leaves the cursor to the listing.
func (q EventQuery) Check() error {
	if err := checkChoice("type", q.Type, EventTypes); err != nil {
		return err
	}
	if err := checkChoice("status", q.Status, EventStatuses); err != nil {
		return err
	}
	if err := checkChoice("source", q.Source, Sources); err != nil {
		return err
	}
	return checkLimit(q.Limit)
}

// Match reports whether e passes the filters of q; the page bounds
// (After, Limit) are the listing's.
func (q EventQuery) Match(e *Event) bool {
	return (q.Scope == "" || SameName(e.Scope, q.Scope)) &&
		(q.Type == "" || strings.EqualFold(string(e.Type), string(q.Type))) &&
		(q.Status == "" || strings.EqualFold(string(e.Status), string(q.Status))) &&
		(q.Source == "" || strings.EqualFold(string(e.Source), string(q.Source)))
}

// checkLimit refuses a negative page size.
func checkLimit(limit int) error {
	if limit < 0 {
		return Errorf(ErrInvalid, "invalid limit %d: want 0 (no limit) or more", limit)
	}
	return nil
}
