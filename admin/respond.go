package admin

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/forewarn/forewarn"
)

// writeJSON answers with v as JSON.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encode response", "err", err)
		status = http.StatusInternalServerError
		b = []byte(`{"error":"internal error","code":"` + codeInternal + `"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers with the status and message of err. The message of an
// error that is not meant for the user is generic; the error itself goes to
// the log.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status := StatusCode(err)
	if status >= http.StatusInternalServerError {
		s.logFailure(r, err)
	}
	body := errorBody{Error: forewarn.ErrorMessage(err), Code: codeInternal}
	if k, ok := kindOf(err); ok {
		body.Code = k.code
	}
	s.writeJSON(w, status, body)
}

// logFailure logs a request that failed on the server's side, or whose
// client went away.
func (s *Server) logFailure(r *http.Request, err error) {
	level := slog.LevelError
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		level = slog.LevelDebug
	}
	s.log.Log(r.Context(), level, "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
}

// nonNil returns list, or an empty list for nil, so that JSON shows [].
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
