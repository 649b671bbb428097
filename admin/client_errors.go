package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/forewarn/forewarn"
)

// maxErrorBytes is as much of an error answer as the client reads.
const maxErrorBytes = 64 << 10

// ErrNotAdminAPI is returned when the server at the client's base URL
// answers an API path with a 404 that is not the admin API's: the URL
// names another server, such as forewarn's metadata listener.
var ErrNotAdminAPI = errors.New("not forewarn's admin API")

// responseError turns an error answer back into the error the server's
// Fleet returned: an *forewarn.Error wrapping the sentinel the code (or
// else the status) names, with the server's message; or a plain error for a
// status that no sentinel answers.
func (c *Client) responseError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	var body errorBody
	if json.Unmarshal(b, &body) != nil || body.Error == "" {
		body = errorBody{Error: fallbackMessage(resp.StatusCode, b)}
	}
	if k, ok := kindByCode(body.Code); ok {
		return &forewarn.Error{Kind: k.err, Message: body.Error}
	}
	if resp.StatusCode == http.StatusNotFound && body.Code == "" {
		// The admin API answers every path it does not serve with a code:
		// this is another server, such as the metadata listener.
		return fmt.Errorf("%s answered %s %s with 404 %q: %w",
			c.base, resp.Request.Method, resp.Request.URL.Path, body.Error, ErrNotAdminAPI)
	}
	if sentinel := statusSentinel(resp.StatusCode); sentinel != nil {
		return &forewarn.Error{Kind: sentinel, Message: body.Error}
	}
	return fmt.Errorf("admin API at %s: %s (HTTP %d)", c.base, body.Error, resp.StatusCode)
}

// statusSentinel returns the sentinel an error status stands for, or nil.
func statusSentinel(status int) error {
	switch status {
	case http.StatusNotFound:
		return forewarn.ErrNotFound
	case http.StatusConflict:
		return forewarn.ErrConflict
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		return forewarn.ErrInvalid
	case http.StatusUnauthorized:
		return forewarn.ErrUnauthorized
	case http.StatusForbidden:
		return forewarn.ErrForbidden
	}
	return nil
}

// fallbackMessage describes an error answer that is not the API's JSON,
// such as one from a proxy.
func fallbackMessage(status int, body []byte) string {
	text := strings.TrimSpace(string(body))
	if text == "" || len(text) > 200 {
		return http.StatusText(status)
	}
	return text
}
