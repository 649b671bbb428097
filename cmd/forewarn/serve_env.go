package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// serveEnvPrefix begins the environment variables of serve's flags.
const serveEnvPrefix = "FOREWARN_"

// serveEnvName returns the environment variable of serve's flag name:
// FOREWARN_ and the name upper-cased, '-' as '_' (FOREWARN_ADMIN_ADDR for
// --admin-addr).
func serveEnvName(flag string) string {
	return serveEnvPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// applyServeEnv sets each flag of cmd that the command line did not give
// from its environment variable, if that is set and not empty, and marks it
// given, so that the --config file, read after, does not override it and
// --dev's defaults neither: a flag wins over the environment, which wins
// over the file, which wins over the default. lookup is os.LookupEnv but
// in tests. A value the flag refuses is an error naming the variable. It
// returns the flags it set, with their variables.
func applyServeEnv(cmd *cobra.Command, lookup func(string) (string, bool)) (map[string]string, error) {
	var err error
	set := map[string]string{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || f.Name == "help" {
			return
		}
		name := serveEnvName(f.Name)
		value, ok := lookup(name)
		if !ok || value == "" {
			return
		}
		if e := f.Value.Set(value); e != nil {
			err = fmt.Errorf("$%s: invalid value %q for --%s: %v", name, value, f.Name, e)
			return
		}
		f.Changed = true
		set[f.Name] = name
	})
	return set, err
}

// namingEnv adds to an error of check the variable of each flag it names
// that was set from the environment: the user gave the variable, not the
// flag.
func (o *serveOptions) namingEnv(err error) error {
	if err == nil {
		return nil
	}
	var vars []string
	for flag, name := range o.fromEnv {
		if strings.Contains(err.Error(), "--"+flag) {
			vars = append(vars, "$"+name)
		}
	}
	if len(vars) == 0 {
		return err
	}
	slices.Sort(vars)
	return fmt.Errorf("%w (set by %s)", err, strings.Join(vars, ", "))
}
