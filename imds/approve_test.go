package imds

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
)

func TestApprove(t *testing.T) {
	cases := []struct {
		name string
		body string
		hdr  []string
		want []string
	}{
		{"incarnation number", `{"StartRequests":[{"EventId":"602D9444-D2CD-49C7-8624-8643E7171297"}],"DocumentIncarnation":4}`,
			nil, []string{idRebootScheduled}},
		{"incarnation string", `{"DocumentIncarnation":"5", "StartRequests": [{"EventId": "602d9444-d2cd-49c7-8624-8643e7171297"}]}`,
			nil, []string{idRebootScheduled}},
		{"incarnation absent", approveOneBody, nil, []string{idRebootScheduled}},
		{"incarnation null", `{"StartRequests":[{"EventId":"602d9444-d2cd-49c7-8624-8643e7171297"}],"DocumentIncarnation":null}`,
			nil, []string{idRebootScheduled}},
		{"incarnation stale", `{"StartRequests":[{"EventId":"602d9444-d2cd-49c7-8624-8643e7171297"}],"DocumentIncarnation":1}`,
			nil, []string{idRebootScheduled}},
		{"curl -d form type", approveOneBody, []string{"Content-Type", "application/x-www-form-urlencoded"},
			[]string{idRebootScheduled}},
		{"text type", approveOneBody, []string{"Content-Type", "text/plain"}, []string{idRebootScheduled}},
		{"field names in another case", `{"startrequests":[{"eventId":"602d9444-d2cd-49c7-8624-8643e7171297"}]}`,
			nil, []string{idRebootScheduled}},
		{"several, repeats dropped", `{"StartRequests":[{"EventId":"` + idFreezeScheduled + `"},{"EventId":"` +
			idRedeployScheduled + `"},{"EventId":"` + strings.ToLower(idFreezeScheduled) + `","Extra":1}]}`,
			nil, []string{strings.ToLower(idFreezeScheduled), idRedeployScheduled}},
		{"started event", `{"StartRequests":[{"EventId":"` + idRebootStarted + `"}]}`, nil, []string{idRebootStarted}},
		{"exactly 64 KiB", approveOneBody + strings.Repeat(" ", maxBody-len(approveOneBody)), nil,
			[]string{idRebootScheduled}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := mustStartEnv(t)
			for _, target := range []string{eventsURL("2017-03-01"), pathEvents + "/?api-version=2020-07-01&x=1"} {
				a := e.post(t, addrWeb0, target, c.body, c.hdr...)
				checkAnswer(t, a, http.StatusOK, bodyApproved)
				if ct := a.header.Get("Content-Type"); ct != contentTypeJSON {
					t.Errorf("Content-Type %q", ct)
				}
				if a.header.Get(longPollHeader) != "true" {
					t.Errorf("no %s", longPollHeader)
				}
			}
			got := e.meta.approvalsMade()
			if len(got) != 2 {
				t.Fatalf("approvals %v, want 2", got)
			}
			for _, ap := range got {
				if ap.vm != "web-0" || !slices.Equal(ap.ids, c.want) {
					t.Errorf("approval %v, want web-0 %v", ap, c.want)
				}
			}
			if n := len(e.meta.enabledScopes()); n != 0 {
				t.Errorf("a POST enabled %d scopes", n)
			}
		})
	}
}

// TestApproveByOtherVM: any VM of the scope may approve; a VM of another
// scope may not.
func TestApproveByOtherVM(t *testing.T) {
	e := mustStartEnv(t)
	body := `{"StartRequests":[{"EventId":"` + idTerminateScheduled + `"}]}`
	checkAnswer(t, e.post(t, addrWeb1, eventsURL("2019-01-01"), body), http.StatusOK, bodyApproved)
	a := e.post(t, addrDB0, eventsURL("2019-01-01"), body)
	checkAnswer(t, a, http.StatusBadRequest, `{"error":"event `+idTerminateScheduled+` is not in the document of VM db-0"}`)
	got := e.meta.approvalsMade()
	if len(got) != 1 || got[0].vm != "web-1" {
		t.Errorf("approvals %v", got)
	}
}

func TestParseApproval(t *testing.T) {
	cases := []struct {
		body    string
		want    []string
		wantErr string
	}{
		{`{"StartRequests":[{"EventId":"A"}]}`, []string{"a"}, ""},
		{` {"StartRequests" : [ {"EventId" : ""} ] } `, []string{""}, ""},
		{`{"StartRequests":[{"EventId":"a"}],"DocumentIncarnation":-1.5e3}`, []string{"a"}, ""},
		{`null`, nil, "Bad request. StartRequests is missing"},
		{`{"StartRequests":null}`, nil, "Bad request. StartRequests is missing"},
		{`{"StartRequests":"a"}`, nil, "Bad request. StartRequests must be a list"},
		{`{"StartRequests":[null]}`, nil, "Bad request. StartRequests[0] must be an object with an EventId"},
		{`{"StartRequests":[{"EventId":null}]}`, nil, "Bad request. StartRequests[0].EventId is missing"},
		{`{"StartRequests":[{"EventId":["a"]}]}`, nil, "Bad request. StartRequests[0].EventId must be a string"},
		{`{"StartRequests":[{"EventId":"a"}],"DocumentIncarnation":{}}`, nil,
			"Bad request. DocumentIncarnation must be a number or a string"},
		{`{"StartRequests":[{"EventId":"a"}]} {}`, nil, "Bad request. The body is not valid JSON"},
		{`{"StartRequests":[{"EventId":"a"}]`, nil, "Bad request. The body is not valid JSON"},
		{`"x"`, nil, "Bad request. The body must be a JSON object"},
	}
	for _, c := range cases {
		ids, err := parseApproval([]byte(c.body))
		switch {
		case c.wantErr != "":
			if err == nil || err.msg != c.wantErr || err.status != http.StatusBadRequest {
				t.Errorf("%s: error %v, want 400 %q", c.body, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", c.body, err)
		case !slices.Equal(ids, c.want):
			t.Errorf("%s: ids %q, want %q", c.body, ids, c.want)
		}
	}
}

// TestApproveVMDeletedMeanwhile: an approval the control plane finds no VM
// for, its VM deleted since the request was admitted, gets the 403 the VM
// gets from then on (SPEC.md 3), not a 400 that names no EventId.
func TestApproveVMDeletedMeanwhile(t *testing.T) {
	e := mustStartEnv(t)
	e.meta.setApproveErr(forewarn.Errorf(forewarn.ErrNotFound, "VM %q not found", "web-0"))
	a := e.post(t, addrWeb0, eventsURL("2020-07-01"), approveOneBody)
	checkAnswer(t, a, http.StatusForbidden, `{"error":"Forbidden. The address 127.0.0.2 belongs to no VM"}`)
}
