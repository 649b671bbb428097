package client

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseNotBefore(t *testing.T) {
	want := time.Date(2016, 9, 19, 18, 29, 47, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
	}{
		{"Mon, 19 Sep 2016 18:29:47 GMT", want},
		{"2016-09-19T18:29:47Z", want},
		{"2016-09-19T20:29:47+02:00", want},
		{"Mon, 19 Sep 2016 18:29:47 +0000", want},
		{"  Mon, 19 Sep 2016 18:29:47 GMT ", want},
		{"Fri, 9 Sep 2016 18:29:47 GMT", time.Date(2016, 9, 9, 18, 29, 47, 0, time.UTC)},
		{"2016-09-19T18:29:47", want},
		{"", time.Time{}},
	}
	for _, tt := range tests {
		got, err := ParseNotBefore(tt.in)
		if err != nil {
			t.Errorf("ParseNotBefore(%q): %v", tt.in, err)
			continue
		}
		if !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseNotBefore(%q) = %v, want %v in UTC", tt.in, got, tt.want)
		}
	}
}

func TestParseNotBeforeRejectsGarbage(t *testing.T) {
	for _, in := range []string{"tomorrow", "19/09/2016", "1474309787"} {
		if _, err := ParseNotBefore(in); err == nil {
			t.Errorf("ParseNotBefore(%q): no error", in)
		}
	}
}

func TestFormatNotBefore(t *testing.T) {
	at := time.Date(2016, 9, 19, 20, 29, 47, 0, time.FixedZone("CEST", 2*3600))
	if got := FormatNotBefore(at); got != "Mon, 19 Sep 2016 18:29:47 GMT" {
		t.Errorf("FormatNotBefore = %q", got)
	}
	if got := FormatNotBefore(time.Time{}); got != "" {
		t.Errorf("FormatNotBefore(zero) = %q, want empty", got)
	}
}

func TestDocumentIncarnationNumberOrString(t *testing.T) {
	for _, in := range []string{`4`, `"4"`, `" 4 "`, `4.0`} {
		var doc Document
		if err := json.Unmarshal([]byte(`{"DocumentIncarnation":`+in+`,"Events":[]}`), &doc); err != nil {
			t.Errorf("incarnation %s: %v", in, err)
			continue
		}
		if doc.DocumentIncarnation != 4 {
			t.Errorf("incarnation %s decoded as %d", in, doc.DocumentIncarnation)
		}
	}
	for _, in := range []string{`"four"`, `4.5`, `true`, `[4]`} {
		var doc Document
		if err := json.Unmarshal([]byte(`{"DocumentIncarnation":`+in+`}`), &doc); err == nil {
			t.Errorf("incarnation %s: no error", in)
		}
	}
}

func TestDocumentDecodesWireForm(t *testing.T) {
	const wire = `{"DocumentIncarnation":4,"Events":[{"EventId":"602d9444-d2cd-49c7-8624-8643e7171297",` +
		`"EventType":"Reboot","ResourceType":"VirtualMachine","Resources":["web-0","web-3"],` +
		`"EventStatus":"Scheduled","NotBefore":"Mon, 19 Sep 2016 18:29:47 GMT",` +
		`"Description":"Virtual machine is going to be restarted as requested by authorized user.",` +
		`"EventSource":"User","DurationInSeconds":-1},` +
		`{"EventId":"b","EventType":"Freeze","EventStatus":"Started","NotBefore":"","DurationInSeconds":5}]}`
	var doc Document
	if err := json.Unmarshal([]byte(wire), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Events) != 2 {
		t.Fatalf("got %d events, want 2", len(doc.Events))
	}
	e := doc.Events[0]
	if e.EventId != "602d9444-d2cd-49c7-8624-8643e7171297" || e.EventType != EventTypeReboot ||
		e.ResourceType != "VirtualMachine" || strings.Join(e.Resources, ",") != "web-0,web-3" ||
		e.EventStatus != EventStatusScheduled || e.EventSource != EventSourceUser ||
		e.DurationInSeconds != -1 || !strings.HasPrefix(e.Description, "Virtual machine") {
		t.Errorf("event 0 decoded as %+v", e)
	}
	if !e.NotBefore.Equal(time.Date(2016, 9, 19, 18, 29, 47, 0, time.UTC)) {
		t.Errorf("NotBefore = %v", e.NotBefore)
	}
	if s := doc.Events[1]; !s.NotBefore.IsZero() || s.DurationInSeconds != 5 || s.EventStatus != EventStatusStarted {
		t.Errorf("event 1 decoded as %+v", s)
	}
}

func TestDocumentLiberalDecoding(t *testing.T) {
	var doc Document
	if err := json.Unmarshal([]byte(`{"DocumentIncarnation":"2","Events":null}`), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Events == nil || len(doc.Events) != 0 {
		t.Errorf("null Events decoded as %#v, want empty non-nil", doc.Events)
	}
	// api-version 2017-03-01: no Description, EventSource, DurationInSeconds.
	old := `{"DocumentIncarnation":1,"Events":[{"EventId":"a","EventType":"Freeze","ResourceType":"VirtualMachine",` +
		`"Resources":["_web-0"],"EventStatus":"Scheduled","NotBefore":"2016-09-19T18:29:47Z"}]}`
	if err := json.Unmarshal([]byte(old), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Events[0].DurationInSeconds; got != -1 {
		t.Errorf("absent DurationInSeconds decoded as %d, want -1", got)
	}
	if !doc.Events[0].Hits("web-0") {
		t.Error("Hits ignores the old _ prefix: got false")
	}
}

func TestDocumentRejectsBadNotBefore(t *testing.T) {
	var doc Document
	err := json.Unmarshal([]byte(`{"DocumentIncarnation":1,"Events":[{"EventId":"x","NotBefore":"soon"}]}`), &doc)
	if err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("err = %v, want an error naming the event", err)
	}
}

func TestEventRoundTrip(t *testing.T) {
	in := Event{EventId: "a", EventType: EventTypeRedeploy, ResourceType: "VirtualMachine",
		Resources: []string{"web-1"}, EventStatus: EventStatusScheduled,
		NotBefore: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), EventSource: EventSourcePlatform, DurationInSeconds: 0}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"NotBefore":"Wed, 02 Jan 2030 03:04:05 GMT"`) ||
		!strings.Contains(string(b), `"DurationInSeconds":0`) {
		t.Errorf("wire form %s", b)
	}
	var out Event
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !out.NotBefore.Equal(in.NotBefore) || out.EventId != in.EventId || out.DurationInSeconds != 0 {
		t.Errorf("round trip gave %+v, want %+v", out, in)
	}
}

func TestEventHits(t *testing.T) {
	e := Event{Resources: []string{"Web-0", "web-3"}}
	for vm, want := range map[string]bool{"web-0": true, "WEB-3": true, "web-1": false, "": false, "web": false} {
		if got := e.Hits(vm); got != want {
			t.Errorf("Hits(%q) = %v, want %v", vm, got, want)
		}
	}
}
