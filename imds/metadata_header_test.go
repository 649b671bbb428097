package imds

import (
	"net/http"
	"strings"
	"testing"
)

// TestMetadataHeaderTwice: two Metadata fields are refused whatever their
// values, as one field "true, true" is (RFC 9110 5.3 makes them the same).
// The endpoint used to read the first one alone.
func TestMetadataHeaderTwice(t *testing.T) {
	e := mustStartEnv(t)
	for _, hdr := range [][]string{
		{"Metadata", "true", "Metadata", "false"},
		{"Metadata", "true", "Metadata", "true"},
		{"Metadata", "false", "Metadata", "true"},
		{"Metadata", "true", "Metadata", ""},
		{"Metadata", "true, true"},
	} {
		a := e.do(t, addrWeb0, http.MethodGet, eventsURL("2020-07-01"), nil, hdr...)
		checkAnswer(t, a, http.StatusBadRequest, bodyMetadata)
		a = e.do(t, addrWeb0, http.MethodPost, eventsURL("2020-07-01"), strings.NewReader(approveOneBody), hdr...)
		checkAnswer(t, a, http.StatusBadRequest, bodyMetadata)
	}
	if got := e.meta.approvalsMade(); len(got) != 0 {
		t.Errorf("approvals made with two Metadata fields: %v", got)
	}
	checkAnswer(t, e.get(t, addrWeb0, pathVersions), http.StatusOK, string(versionsBody))
}
