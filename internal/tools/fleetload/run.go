package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
)

// usage is printed for a missing or unknown mode.
const usage = `usage: fleetload fleet|longpoll|poll|soak [flags]   (fleetload MODE -h for the flags)`

// errFailed is returned by a load that ran but saw errors; its summary has
// said which.
var errFailed = errors.New("the load saw errors")

// run runs the mode args[0] names, and returns the exit code: 0, 1 when
// the load failed or saw errors, 2 for a bad command line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "fleet":
		err = runFleet(args[1:], stdout, stderr)
	case "longpoll":
		err = runLongpoll(ctx, args[1:], stdout, stderr)
	case "poll":
		err = runPoll(ctx, args[1:], stdout, stderr)
	case "soak":
		err = runSoak(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "fleetload: unknown mode %q\n%s\n", args[0], usage)
		return 2
	}
	var usageErr usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usageErr):
		fmt.Fprintf(stderr, "fleetload %s: %v\n", args[0], err)
		return 2
	case errors.Is(err, errFailed):
		return 1
	default:
		fmt.Fprintf(stderr, "fleetload %s: %v\n", args[0], err)
		return 1
	}
}

// usageError is a bad command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// parseFlags parses args, which must hold flags only, then check tells
// what is wrong with the values, if anything: a usage error either way
// (but -help's flag.ErrHelp, as it is).
func parseFlags(fs *flag.FlagSet, args []string, check func() error) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if err := check(); err != nil {
		return usageError{err}
	}
	return nil
}

// mustAddr parses a literal address of the defaults.
func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

// adminToken is the token of -token-file, else $FOREWARN_TOKEN.
func adminToken(file string) (string, error) {
	if file == "" {
		if t := os.Getenv("FOREWARN_TOKEN"); t != "" {
			return t, nil
		}
		return "", errors.New("no admin token: give -token-file or set $FOREWARN_TOKEN")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
