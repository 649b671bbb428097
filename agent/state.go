package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/forewarn/forewarn/client"
)

// stateVersion is the format of the state file.
const stateVersion = 1

// keepFinished is how long the state remembers an event whose last hook
// has run.
const keepFinished = 7 * 24 * time.Hour

// Transitions of an event, named as hooks and notifications name them.
const (
	Scheduled = "Scheduled"
	Started   = "Started"
	Completed = "Completed"
	Cancelled = "Cancelled"
)

// eventState is what the agent remembers of one event.
type eventState struct {
	// Event is the last view of the event.
	Event     client.Event `json:"event"`
	FirstSeen time.Time    `json:"firstSeen"`
	// Hooks maps a transition to "ok" or "failed" once its hook finished
	// (or "none" when there was no hook to run).
	Hooks    map[string]string `json:"hooks,omitempty"`
	Started  bool              `json:"started,omitempty"`
	Approved bool              `json:"approved,omitempty"`
	// ApprovalRefused: the service refused the approval (the event had
	// left the document); the agent does not try again.
	ApprovalRefused bool `json:"approvalRefused,omitempty"`
	// Finished is when on_completed or on_cancelled was done.
	Finished time.Time `json:"finished,omitzero"`
}

// stateFile is the file's content.
type stateFile struct {
	Version int                    `json:"version"`
	Events  map[string]*eventState `json:"events"`
}

// store keeps the state in memory and in its file. It is safe for
// concurrent use.
type store struct {
	path string
	mu   sync.Mutex
	data stateFile
}

// openStore reads the state file at path; a missing file is an empty state.
func openStore(path string) (*store, error) {
	s := &store{path: path, data: stateFile{Version: stateVersion, Events: map[string]*eventState{}}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	if err := json.Unmarshal(b, &s.data); err != nil {
		return nil, fmt.Errorf("read state %s: %w", path, err)
	}
	if s.data.Version != stateVersion {
		return nil, fmt.Errorf("read state %s: version %d, want %d", path, s.data.Version, stateVersion)
	}
	if s.data.Events == nil {
		s.data.Events = map[string]*eventState{}
	}
	return s, nil
}

// get returns a copy of the state of an event, and whether there is one.
func (s *store) get(id string) (eventState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.data.Events[id]
	if !ok {
		return eventState{}, false
	}
	return st.clone(), true
}

// ids lists the events the state knows.
func (s *store) ids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.data.Events))
	for id := range s.data.Events {
		out = append(out, id)
	}
	return out
}

// update changes the state of an event (created when missing) and writes
// the file.
func (s *store) update(id string, fn func(*eventState)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.data.Events[id]
	if !ok {
		st = &eventState{}
		s.data.Events[id] = st
	}
	fn(st)
	return s.save()
}

// put replaces the state of an event and writes the file.
func (s *store) put(id string, st eventState) error {
	c := st.clone()
	return s.update(id, func(cur *eventState) { *cur = c })
}

// prune forgets events finished before cutoff.
func (s *store) prune(cutoff time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.data.Events)
	for id, st := range s.data.Events {
		if !st.Finished.IsZero() && st.Finished.Before(cutoff) {
			delete(s.data.Events, id)
		}
	}
	if len(s.data.Events) == n {
		return nil
	}
	return s.save()
}

// save writes the file atomically: a temporary file in the same
// directory, synced, renamed over the old one, and the directory synced.
func (s *store) save() error {
	b, err := json.MarshalIndent(s.data, "", "  ")
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(s.path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write state: sync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return syncDir(dir)
}

// checkWritable makes sure save can write the state file at path, and
// leaves nothing behind: its directory must take a new file or, if it is
// missing, the nearest directory above it that exists must take a new
// directory (save creates the missing ones).
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	existing := dir
	for {
		fi, err := os.Stat(existing)
		if err == nil && !fi.IsDir() {
			return fmt.Errorf("%s: %s is not a directory", path, existing)
		}
		parent := filepath.Dir(existing)
		if err == nil || parent == existing {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("%s: %w", path, err)
		}
		existing = parent
	}
	var probe string
	var err error
	if existing == dir {
		var f *os.File
		if f, err = os.CreateTemp(dir, filepath.Base(path)+".tmp*"); err == nil {
			probe = f.Name()
			f.Close()
		}
	} else {
		probe, err = os.MkdirTemp(existing, filepath.Base(dir)+".tmp*")
	}
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err // the probe's name says nothing
		}
		return fmt.Errorf("%s: cannot write in %s: %w", path, existing, err)
	}
	return os.Remove(probe)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("write state: sync directory: %w", err)
	}
	return nil
}

// clone copies the state, its map included.
func (st *eventState) clone() eventState {
	c := *st
	c.Hooks = make(map[string]string, len(st.Hooks))
	for k, v := range st.Hooks {
		c.Hooks[k] = v
	}
	return c
}

// ran reports whether the hook of a transition has finished.
func (st eventState) ran(transition string) bool {
	_, ok := st.Hooks[transition]
	return ok
}
