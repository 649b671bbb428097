package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
)

// runFleet is `fleetload fleet`: it writes the fleet file of a layout,
// for `forewarn apply -f` or `forewarn serve --fleet`.
func runFleet(args []string, stdout, stderr io.Writer) error {
	l := defaultPollLayout()
	fs := flag.NewFlagSet("fleetload fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	l.register(fs)
	if err := parseFlags(fs, args, func() error { return l.check() }); err != nil {
		return err
	}
	return writeFleet(stdout, l)
}

// writeFleet writes the fleet file of l: one availability set per scope,
// each VM with its update domain and its one address.
func writeFleet(w io.Writer, l layout) error {
	addrs, err := l.addrs()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %d scopes of %d VMs, written by fleetload fleet.\nscopes:\n", l.scopes, l.vms)
	for s := range l.scopes {
		fmt.Fprintf(bw, "  - name: %s\n    kind: availability-set\n    updateDomains: %d\n    vms:\n",
			l.scopeName(s), l.updateDomains)
		for i := s * l.vms; i < (s+1)*l.vms; i++ {
			fmt.Fprintf(bw, "      - {name: %s, updateDomain: %d, addresses: [%s]}\n",
				l.vmName(i), l.updateDomain(i), addrs[i])
		}
	}
	return bw.Flush()
}
