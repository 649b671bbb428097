package fleetfile

import (
	"fmt"
	"io"
	"os"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/yamlnode"
)

// MaxSize is the largest fleet file Load reads.
const MaxSize = 8 << 20

// File is a fleet file that passed every check. Build one with Parse or
// Load: Plan and Apply rely on its checks.
type File struct {
	// Name is the name the file was parsed under, used in messages.
	Name string
	// Scopes are the scopes the file declares, with their VMs, in the
	// order of the file.
	Scopes []Scope
	// VMs are the standalone VMs, each in a scope of its own.
	VMs []VM
}

// Scope is a scope the file declares. Its spec has the defaults filled in:
// kind, domain counts, and for a scale set the terminate notice.
type Scope struct {
	Spec forewarn.ScopeSpec
	VMs  []VM
	// Line is where the scope is declared.
	Line int
}

// VM is a VM the file declares. Its spec names its scope, or none for a
// standalone VM; its priority is Regular or Spot and its addresses are in
// canonical form. Domains the file leaves out are nil.
type VM struct {
	Spec forewarn.VMSpec
	// Line is where the VM is declared.
	Line int
}

// Load reads and parses the fleet file at path; messages name it by path.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fleet file: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("fleet file: read %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, forewarn.Errorf(forewarn.ErrInvalid,
			"%s: fleet file is larger than %d bytes", path, MaxSize)
	}
	return Parse(path, data)
}

// Parse parses and checks a fleet file; name is what messages call it. The
// error is a *ParseError listing every problem found.
func Parse(name string, data []byte) (*File, error) {
	root, err := yamlnode.Document(name, data, "fleet file", "scopes or vms")
	if err != nil {
		return nil, err
	}
	p := newParser(name)
	f := p.file(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return f, nil
}
