package imds

import (
	"slices"

	"github.com/forewarn/forewarn"
)

// eventVersion is what one api-version of /metadata/scheduledevents shows
// (SPEC.md 2).
type eventVersion struct {
	name string
	// types are the event types the version knows; events of other types
	// are left out of its document.
	types       []forewarn.EventType
	description bool
	source      bool
	duration    bool
}

// shows reports whether the version knows the event type.
func (v *eventVersion) shows(t forewarn.EventType) bool {
	return slices.Contains(v.types, t)
}

var (
	classicTypes   = []forewarn.EventType{forewarn.Freeze, forewarn.Reboot, forewarn.Redeploy}
	preemptTypes   = append(slices.Clip(classicTypes), forewarn.Preempt)
	terminateTypes = append(slices.Clip(preemptTypes), forewarn.Terminate)
)

// eventVersions lists the api-versions of /metadata/scheduledevents, oldest
// first; each adds to the one before it.
var eventVersions = []eventVersion{
	{name: "2017-03-01", types: classicTypes},
	{name: "2017-08-01", types: classicTypes},
	{name: "2017-11-01", types: preemptTypes},
	{name: "2019-01-01", types: terminateTypes},
	{name: "2019-04-01", types: terminateTypes, description: true},
	{name: "2019-08-01", types: terminateTypes, description: true, source: true},
	{name: "2020-07-01", types: terminateTypes, description: true, source: true, duration: true},
}

// instanceVersions lists the api-versions of /metadata/instance, oldest
// first (SPEC.md 7); they all show the same fields.
var instanceVersions = []string{
	"2017-03-01", "2017-04-02", "2017-08-01", "2017-10-01", "2017-12-01",
	"2018-02-01", "2018-04-02", "2018-10-01", "2019-02-01", "2019-03-11",
	"2019-04-30", "2019-06-01", "2019-06-04", "2019-08-01", "2019-08-15",
	"2019-11-01", "2020-06-01", "2020-07-15", "2020-09-01", "2020-10-01",
	"2020-12-01", "2021-01-01", "2021-02-01", "2021-03-01", "2021-05-01",
	"2021-10-01", "2021-11-01", "2021-11-15", "2021-12-13", "2023-07-01",
}

// versionSet is the api-versions one path accepts.
type versionSet struct {
	index map[string]int
	// newest holds the three newest, newest first, for the 400 answer.
	newest []string
}

func newVersionSet(names []string) versionSet {
	vs := versionSet{index: make(map[string]int, len(names))}
	for i, n := range names {
		vs.index[n] = i
	}
	for i := len(names) - 1; i >= 0 && len(vs.newest) < 3; i-- {
		vs.newest = append(vs.newest, names[i])
	}
	return vs
}

func eventVersionNames() []string {
	names := make([]string, len(eventVersions))
	for i, v := range eventVersions {
		names[i] = v.name
	}
	return names
}

var (
	eventVersionSet    = newVersionSet(eventVersionNames())
	instanceVersionSet = newVersionSet(instanceVersions)
)

// allVersions is every api-version of either path, oldest first, without
// repeats: the list /metadata/versions answers.
func allVersions() []string {
	all := append(eventVersionNames(), instanceVersions...)
	slices.Sort(all)
	return slices.Compact(all)
}

// versionsBody is the answer of /metadata/versions.
var versionsBody = func() []byte {
	b, err := marshal(struct {
		APIVersions []string `json:"apiVersions"`
	}{allVersions()})
	if err != nil {
		panic(err)
	}
	return b
}()

// versionsLength is the Content-Length header value of versionsBody.
var versionsLength = lengthValue(versionsBody)
