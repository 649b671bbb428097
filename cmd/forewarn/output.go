package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// outputFormat is the value of -o: how a command prints what it returns.
type outputFormat string

// The formats -o accepts.
const (
	outputTable outputFormat = "table"
	outputJSON  outputFormat = "json"
)

func (f *outputFormat) String() string { return string(*f) }

func (f *outputFormat) Set(s string) error {
	switch v := outputFormat(s); v {
	case outputTable, outputJSON:
		*f = v
		return nil
	}
	return fmt.Errorf("%q is not table or json", s)
}

func (f *outputFormat) Type() string { return "format" }

// addOutputFlag adds -o/--output to cmd, bound to f, table by default.
func addOutputFlag(cmd *cobra.Command, f *outputFormat) {
	*f = outputTable
	cmd.Flags().VarP(f, "output", "o", "output format: table or json")
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// table says how values of T print as the rows of a table.
type table[T any] struct {
	header []string
	row    func(T) []string
}

// printList writes items as a JSON array (never null) or as a table.
func (t table[T]) printList(w io.Writer, format outputFormat, items []T) error {
	if format == outputJSON {
		if items == nil {
			items = []T{}
		}
		return writeJSON(w, items)
	}
	return t.write(w, items)
}

// printOne writes one item as a JSON object or as a table of one row.
func (t table[T]) printOne(w io.Writer, format outputFormat, item T) error {
	if format == outputJSON {
		return writeJSON(w, item)
	}
	return t.write(w, []T{item})
}

// write writes the header and one row per item, aligned in columns.
func (t table[T]) write(w io.Writer, items []T) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	writeRow(tw, t.header)
	for _, it := range items {
		writeRow(tw, t.row(it))
	}
	return tw.Flush()
}

// writeRow writes one line of cells separated by tabs; an empty cell shows
// as "-", and tabs or line breaks inside a cell become spaces.
func writeRow(w io.Writer, cells []string) {
	out := make([]string, len(cells))
	for i, c := range cells {
		c = strings.Join(strings.Fields(c), " ")
		if c == "" {
			c = "-"
		}
		out[i] = c
	}
	fmt.Fprintln(w, strings.Join(out, "\t"))
}

// timeCell formats a time for a table: RFC 3339 in UTC, "" for the zero time.
func timeCell(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// listCell joins a list for a table cell.
func listCell(items []string) string { return strings.Join(items, ",") }

// durationCell shows a DurationInSeconds: "unknown" for -1.
func durationCell(seconds int) string {
	if seconds < 0 {
		return "unknown"
	}
	return (time.Duration(seconds) * time.Second).String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
