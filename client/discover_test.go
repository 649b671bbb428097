package client

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// lease is the path of a sample lease file in testdata/leases.
func lease(name string) string { return filepath.Join("testdata", "leases", name) }

func TestDiscoverEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"dhclient newest lease wins", []string{lease("dhclient.eth0.leases")}, "http://168.63.129.16"},
		{"systemd-networkd", []string{lease("networkd-2")}, "http://168.63.129.16"},
		{"dhclient quoted string", []string{lease("dhclient.quoted.leases")}, "http://65.66.67.1"},
		{"first file with the option", []string{lease("dhclient.quoted.leases"), lease("networkd-2")}, "http://65.66.67.1"},
		{"skips files without it and missing ones",
			[]string{lease("missing"), lease("dhclient.no245.leases"), lease("networkd-2")}, "http://168.63.129.16"},
		{"skips a malformed file", []string{lease("networkd-bad"), lease("networkd-2")}, "http://168.63.129.16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DiscoverEndpoint(tc.files...)
			if err != nil || got != tc.want {
				t.Errorf("DiscoverEndpoint(%v) = %q, %v; want %q", tc.files, got, err, tc.want)
			}
		})
	}
}

func TestDiscoverEndpointNotFound(t *testing.T) {
	_, err := DiscoverEndpoint(lease("dhclient.no245.leases"), lease("missing"))
	if !errors.Is(err, ErrEndpointNotFound) || !strings.Contains(err.Error(), "1 of 2") {
		t.Errorf("err = %v, want ErrEndpointNotFound after 1 of 2 files", err)
	}
	_, err = DiscoverEndpoint(lease("networkd-bad"))
	if !errors.Is(err, ErrEndpointNotFound) || !strings.Contains(err.Error(), "3 bytes") {
		t.Errorf("err = %v, want ErrEndpointNotFound naming the short option", err)
	}
}

func TestParseOption245(t *testing.T) {
	good := map[string]string{
		"a8:3f:81:10": "168.63.129.16",
		"a:0:1:2":     "10.0.1.2",
		"A83F8110":    "168.63.129.16",
		`"ABCD"`:      "65.66.67.68",
		`"\101B\"D"`:  "65.66.34.68",
	}
	for in, want := range good {
		if got, err := parseOption245(in); err != nil || got.String() != want {
			t.Errorf("parseOption245(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a8:3f:81", "a8:3f:81:10:1", "a8:3f:81:1g", "a8:3f:81:100",
		"A83F81", "zz3F8110", `"ABC`, `"ABC\"`, "0:0:0:0", "e0:0:0:1", "ff:ff:ff:ff"} {
		if got, err := parseOption245(in); err == nil {
			t.Errorf("parseOption245(%q) = %v, want an error", in, got)
		}
	}
}

func TestOption245Line(t *testing.T) {
	for line, want := range map[string]string{
		"  option unknown-245 a8:3f:81:10;": "a8:3f:81:10",
		"OPTION_245=A83F8110":               "A83F8110",
		"option unknown-245 \"AB C\";":      `"AB C"`,
	} {
		if got, ok := option245(line); !ok || got != want {
			t.Errorf("option245(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{"option unknown-2450 1:2:3:4;", "option routers 10.0.0.1;", "OPTION_24=1", "#OPTION_245=A83F8110"} {
		if got, ok := option245(line); ok {
			t.Errorf("option245(%q) = %q, want no option", line, got)
		}
	}
}

func TestWithDiscoveryOrder(t *testing.T) {
	files := []string{lease("networkd-2")}
	t.Setenv(EndpointEnv, "")
	if got := New(WithDiscovery(files...)).Endpoint(); got != "http://168.63.129.16" {
		t.Errorf("discovered endpoint %q", got)
	}
	if got := New(WithDiscovery(lease("dhclient.no245.leases"))).Endpoint(); got != DefaultEndpoint {
		t.Errorf("endpoint without option 245 %q, want the default", got)
	}
	if got := New().Endpoint(); got != DefaultEndpoint {
		t.Errorf("endpoint without WithDiscovery %q, want the default", got)
	}
	t.Setenv(EndpointEnv, "127.0.0.1:8169")
	if got := New(WithDiscovery(files...)).Endpoint(); got != "http://127.0.0.1:8169" {
		t.Errorf("discovery beat FOREWARN_ENDPOINT: %q", got)
	}
	if got := New(WithDiscovery(files...), WithEndpoint("10.1.1.1")).Endpoint(); got != "http://10.1.1.1" {
		t.Errorf("discovery beat WithEndpoint: %q", got)
	}
}
