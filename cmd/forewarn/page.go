package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/forewarn/forewarn/admin"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// pageOptions are the paging flags of vm list and maintenance list.
type pageOptions struct {
	limit int
	after string
}

// addPageFlags adds --limit and --after to cmd, which lists what.
func addPageFlags(cmd *cobra.Command, p *pageOptions, what string) {
	f := cmd.Flags()
	f.IntVar(&p.limit, "limit", 0, fmt.Sprintf(
		"print one page of at most this many %s (1 to %d) and, on stderr, the command for the next; 0, the default, lists them all", what, admin.MaxListLimit))
	f.StringVar(&p.after, "after", "", "begin after this cursor, which the previous page printed")
}

// check refuses a page size the admin API does not answer.
func (p pageOptions) check() error {
	if p.limit < 0 || p.limit > admin.MaxListLimit {
		return fmt.Errorf("--limit must be from 1 to %d, or 0 to list everything, not %d", admin.MaxListLimit, p.limit)
	}
	return nil
}

// printPage prints a page of a listing and, if there is a next page, the
// command line that gets it on stderr, so that stdout stays the listing.
func printPage[T any](cmd *cobra.Command, format outputFormat, tbl table[T], items []T, next string) error {
	if err := tbl.printList(cmd.OutOrStdout(), format, items); err != nil {
		return err
	}
	if next != "" {
		_, err := fmt.Fprintln(cmd.ErrOrStderr(), "next page:", nextPageCommand(cmd, next))
		return err
	}
	return nil
}

// nextPageCommand is the command line that was run, with --after set to
// the cursor of the next page.
func nextPageCommand(cmd *cobra.Command, next string) string {
	words := []string{cmd.CommandPath()}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch {
		case f.Name == "after":
		case f.Value.Type() == "bool":
			words = append(words, "--"+f.Name+"="+f.Value.String())
		default:
			words = append(words, "--"+f.Name, shellQuote(f.Value.String()))
		}
	})
	return strings.Join(append(words, "--after", shellQuote(next)), " ")
}

// shellSafe matches the words a shell takes as they are.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// shellQuote quotes s for a POSIX shell, if it needs quoting.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
