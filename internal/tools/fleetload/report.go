package main

import (
	"encoding/json"
	"io"
)

// result is what a load measured.
type result interface {
	// summary writes the human summary.
	summary(w io.Writer)
	// failed reports whether the load saw errors, which make the exit code 1.
	failed() bool
}

// report prints r: the summary on stdout, or with asJSON the JSON on
// stdout and the summary on stderr. It returns errFailed if r failed.
func report(stdout, stderr io.Writer, asJSON bool, r result) error {
	if asJSON {
		r.summary(stderr)
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		r.summary(stdout)
	}
	if r.failed() {
		return errFailed
	}
	return nil
}

// maxSamples is how many error messages a result keeps.
const maxSamples = 5

// mark is PASS or MISS: a latency against its -target, which does not fail
// the load.
func mark(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

// passFail is PASS or FAIL: the soak's verdict, and its checks'.
func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
