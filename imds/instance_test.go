package imds

import (
	"net/http"
	"testing"
)

func TestInstanceLeaves(t *testing.T) {
	e := mustStartEnv(t)
	cases := []struct{ src, leaf, want string }{
		{addrWeb0, "compute/name", "web-0"},
		{addrWeb1, "compute/name", "web-1"},
		{addrWeb0, "compute/vmId", "5c1f1b4e-0c6d-4a52-8a3e-6f0d1c2b3a40"},
		{addrWeb1, "compute/platformUpdateDomain", "1"},
		{addrPool0, "compute/platformFaultDomain", "2"},
		{addrPool0, "compute/vmScaleSetName", "pool"},
		{addrWeb0, "compute/vmScaleSetName", ""},
		{addrPool0, "compute/priority", "Spot"},
		{addrWeb0, "compute/location", "local"},
		{addrWeb0, "compute/zone", ""},
		{addrWeb0, "compute/tags", ""},
		{addrWeb0, "compute/osProfile/computerName", "web-0"},
		{addrDB0, "compute/resourceId",
			"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/db-0/providers/Microsoft.Compute/virtualMachines/db-0"},
		{addrPool0, "network/interface/0/ipv4/ipAddress/0/privateIpAddress", "127.0.0.5"},
		{addrPool0, "network/interface/0/ipv6/ipAddress/0/privateIpAddress/", "fd00::5"},
		{addrPool0, "network/interface/0/macAddress", ""},
	}
	for _, c := range cases {
		a := e.get(t, c.src, "/metadata/instance/"+c.leaf+"?format=text&api-version=2017-08-01")
		checkAnswer(t, a, http.StatusOK, c.want)
		if ct := a.header.Get("Content-Type"); ct != contentTypeText {
			t.Errorf("%s: Content-Type %q", c.leaf, ct)
		}
	}
	if n := len(e.meta.enabledScopes()); n != 0 {
		t.Errorf("instance metadata enabled %d scopes", n)
	}
}

// TestInstanceVersions: every instance api-version is accepted, with the
// same fields.
func TestInstanceVersions(t *testing.T) {
	e := mustStartEnv(t)
	want := e.get(t, addrWeb0, "/metadata/instance?api-version=2023-07-01").body
	for _, v := range instanceVersions {
		a := e.get(t, addrWeb0, "/metadata/instance?api-version="+v)
		checkAnswer(t, a, http.StatusOK, want)
	}
}

func TestInstanceLocation(t *testing.T) {
	e := mustStartEnv(t, func(c *Config) { c.Location = "westeurope" })
	a := e.get(t, addrWeb0, "/metadata/instance/compute/location?api-version=2021-02-01&format=TEXT")
	checkAnswer(t, a, http.StatusOK, "westeurope")
}
