package execact

import (
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/forewarn/forewarn"
)

// parseCommand parses the command as a template and checks it against
// sample fields, so that an unknown field is refused up front.
func parseCommand(command string) (*template.Template, error) {
	t, err := template.New("command").
		Option("missingkey=error").
		Funcs(template.FuncMap{"quote": shellQuote}).
		Parse(command)
	if err != nil {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "exec actuator: bad command template: %v", err)
	}
	if err := t.Execute(io.Discard, sampleVars); err != nil {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "exec actuator: bad command template: %v", err)
	}
	return t, nil
}

// expand returns the command of one attempt.
func expand(t *template.Template, v Vars) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		return "", fmt.Errorf("expand command: %w", err)
	}
	return b.String(), nil
}

// shellQuote quotes s as one word for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
