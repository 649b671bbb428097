package etcd

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw  string
		want Config
	}{
		{"etcd://host1:2379,host2:2379/prefix", Config{Endpoints: []string{"host1:2379", "host2:2379"}, Prefix: "/prefix"}},
		{"etcd://127.0.0.1:2379", Config{Endpoints: []string{"127.0.0.1:2379"}, Prefix: DefaultPrefix}},
		{"etcd://127.0.0.1:2379/", Config{Endpoints: []string{"127.0.0.1:2379"}, Prefix: DefaultPrefix}},
		{"etcd://[::1]:2379/a/b/", Config{Endpoints: []string{"[::1]:2379"}, Prefix: "/a/b"}},
		{"etcd://root:p%40ss@h:1/x", Config{Endpoints: []string{"h:1"}, Prefix: "/x", Username: "root", Password: "p@ss"}},
	}
	for _, tc := range tests {
		got, err := ParseURL(tc.raw)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tc.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseURL(%q) = %+v, want %+v", tc.raw, got, tc.want)
		}
	}
}

func TestParseURLInvalid(t *testing.T) {
	for _, raw := range []string{
		"", "bolt:///var/lib/forewarn", "etcd://", "etcd://host", "etcd://host:", "etcd://:2379",
		"etcd://h:2379,", "etcd://h:port", "etcd://h:2379/p?x=1", "etcd://:secret@h:1",
		"etcd://h:99999", "etcd://h:0", "etcd://h:+80",
	} {
		_, err := ParseURL(raw)
		if !errors.Is(err, forewarn.ErrInvalid) {
			t.Errorf("ParseURL(%q) = %v, want ErrInvalid", raw, err)
		}
	}
}

func TestParseURLHidesPassword(t *testing.T) {
	_, err := ParseURL("etcd://root:hunter2@h:nope/x")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("ParseURL error %v shows the password or is nil", err)
	}
}
