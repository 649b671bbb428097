package fleetfile

import (
	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/yamlnode"
)

// parser walks the nodes of one fleet file and collects its problems.
type parser struct {
	yamlnode.Parser
	// Names and addresses declared so far, by the name's key and by
	// canonical address, for the checks across the file.
	vms    map[forewarn.Key]declared
	scopes map[forewarn.Key]declared
	addrs  map[string]declared
}

// declared is a name or address already declared, and where.
type declared struct {
	name string
	line int
}

func newParser(name string) *parser {
	return &parser{
		Parser: yamlnode.Parser{Name: name},
		vms:    map[forewarn.Key]declared{},
		scopes: map[forewarn.Key]declared{},
		addrs:  map[string]declared{},
	}
}
