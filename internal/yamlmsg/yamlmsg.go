// Package yamlmsg words the problems found in a YAML file (a fleet file,
// the agent's config) the same way: values quoted and cut short, and
// yaml.v3's syntax errors with the line they are on.
package yamlmsg

import (
	"regexp"
	"strconv"
	"strings"
)

// maxQuote is how much of a value or key a message quotes.
const maxQuote = 40

// Quote quotes a value from a file for a message, cut short if long.
func Quote(s string) string {
	if len(s) > maxQuote {
		return strconv.Quote(s[:maxQuote]) + "..."
	}
	return strconv.Quote(s)
}

// Shorten cuts a long key short for a key path.
func Shorten(s string) string {
	if len(s) > maxQuote {
		return s[:maxQuote] + "..."
	}
	return s
}

// yamlLine finds the line in the message of a YAML syntax error.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Syntax words a yaml.v3 syntax error: "invalid YAML: ...", and the line
// it is on, from 1, or 0 if the error gives none. yaml.v3 counts the lines
// of its parser's errors, unlike its scanner's, from 0, and names the line
// where the enclosing block starts if it can.
func Syntax(err error) (line int, msg string) {
	text := err.Error()
	m := yamlLine.FindStringSubmatch(text)
	if m == nil {
		return 0, "invalid YAML: " + strings.TrimPrefix(text, "yaml: ")
	}
	line, _ = strconv.Atoi(m[1])
	if parserError(m[2]) {
		line++
	}
	return line, "invalid YAML: " + m[2]
}

// parserError reports whether a message of yaml.v3 comes from its parser
// rather than its scanner.
func parserError(msg string) bool {
	return strings.HasPrefix(msg, "did not find expected ") ||
		strings.HasPrefix(msg, "found duplicate %") ||
		msg == "found incompatible YAML document" ||
		msg == "found undefined tag handle"
}
