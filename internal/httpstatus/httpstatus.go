// Package httpstatus records the status of an HTTP answer, for the request
// metrics of the admin API.
package httpstatus

import "net/http"

// Writer is an http.ResponseWriter that remembers the status it sent.
type Writer struct {
	http.ResponseWriter
	status int
}

// WriteHeader sends and remembers the first status.
func (w *Writer) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write sends b, with status 200 if none was sent.
func (w *Writer) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Status returns the status sent, or 0 if the handler sent nothing.
func (w *Writer) Status() int { return w.status }
