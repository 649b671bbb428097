package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// maxBodyBytes is the largest request body the API reads: 1 MiB.
const maxBodyBytes = 1 << 20

// decodeBody reads the request body, at most maxBodyBytes of JSON, into v,
// which must point to a struct. The body must be one JSON object with only
// the fields v has. Every error is a user error that says what was wrong.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := readBody(w, r)
	if err != nil {
		return err
	}
	return decodeJSON(b, v)
}

// requireEmptyBody accepts a request that has no body, or an empty JSON
// object, for the routes that take no input.
func requireEmptyBody(w http.ResponseWriter, r *http.Request) error {
	return decodeOptionalBody(w, r, &struct{}{})
}

// decodeOptionalBody is decodeBody for the routes whose input is optional:
// a request without a body (or with only white space) leaves v as it is.
func decodeOptionalBody(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := readBody(w, r)
	if err != nil || len(bytes.TrimLeft(b, jsonSpace)) == 0 {
		return err
	}
	return decodeJSON(b, v)
}

// readBody checks the Content-Type and reads the whole body, refusing more
// than maxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &bodyError{http.StatusRequestEntityTooLarge,
			invalid("request body is larger than %d bytes (1 MiB)", maxBodyBytes)}
	case err != nil:
		return nil, invalid("read request body: %v", err)
	}
	return b, nil
}

// checkContentType accepts no Content-Type, application/json, and any
// application/*+json type.
func checkContentType(value string) error {
	if value == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(value)
	if err == nil && (mt == "application/json" ||
		strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return &bodyError{http.StatusUnsupportedMediaType,
		invalid("request body must be JSON (Content-Type: application/json), not %q", value)}
}

// jsonSpace is the white space JSON allows between tokens.
const jsonSpace = " \t\r\n"

// decodeJSON decodes b, one JSON object, into v, refusing unknown fields and
// anything after the object.
func decodeJSON(b []byte, v any) error {
	trimmed := bytes.TrimLeft(b, jsonSpace)
	if len(trimmed) == 0 {
		return invalid("request body is empty")
	}
	if trimmed[0] != '{' {
		if err := json.Unmarshal(b, new(any)); err != nil {
			return jsonError(err)
		}
		return invalid("request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if rest := bytes.TrimLeft(b[dec.InputOffset():], jsonSpace); len(rest) > 0 {
		return invalid("request body has data after the JSON object: %q", excerpt(rest))
	}
	return nil
}

// jsonError turns an error of encoding/json into a user error that says what
// was wrong, and where.
func jsonError(err error) error {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return invalid("request body is not valid JSON: %v (at byte %d)", syntax, syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("request body is not valid JSON: it ends in the middle of a value")
	}
	if typ, ok := err.(*json.UnmarshalTypeError); ok && typ.Field != "" {
		return invalid("field %q must be %s (got %s)", typ.Field, jsonTypeName(typ.Type), typ.Value)
	}
	if field, ok := unknownField(err); ok {
		return invalid("unknown field %q in request body", field)
	}
	return invalid("invalid request body: %v", strings.TrimPrefix(err.Error(), "json: "))
}

// unknownField returns the field an error of DisallowUnknownFields names
// (`json: unknown field "x"`). encoding/json has no type for this error,
// only its text.
func unknownField(err error) (string, bool) {
	_, field, ok := strings.Cut(err.Error(), "unknown field ")
	if !ok {
		return "", false
	}
	if unquoted, err := strconv.Unquote(field); err == nil {
		return unquoted, true
	}
	return strings.Trim(field, `"`), true
}

// jsonTypeName says, for an error message, which JSON value a Go type takes.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

// excerpt shortens b for an error message.
func excerpt(b []byte) string {
	const max = 32
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
