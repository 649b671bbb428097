package admin_test

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forewarn/forewarn/admin"
)

// TestReadOrCreateToken: the first call generates a token of 32 random
// bytes, in hex, into a file only its owner reads; the next ones read it.
func TestReadOrCreateToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "admin.token")
	first, err := admin.ReadOrCreateToken(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := hex.DecodeString(first); err != nil || len(b) != 32 {
		t.Errorf("generated token %q, want 32 bytes in hex", first)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("token file mode %v, want 0600", perm)
	}
	again, err := admin.ReadOrCreateToken(path)
	if err != nil || again != first {
		t.Errorf("second call = %q, %v; want the first token %q", again, err, first)
	}
	other, err := admin.ReadOrCreateToken(filepath.Join(t.TempDir(), "admin.token"))
	if err != nil || other == first {
		t.Errorf("another directory's token = %q, %v; want a new one", other, err)
	}
}

// TestReadToken: a token file's content counts without the white space
// around it; an empty or missing file is refused, and ReadOrCreateToken
// does not overwrite an empty one.
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "admin.token")
	if err := os.WriteFile(path, []byte("  secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := admin.ReadToken(path); err != nil || tok != "secret" {
		t.Errorf("ReadToken = %q, %v; want \"secret\"", tok, err)
	}
	if err := os.WriteFile(path, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(string) (string, error){
		"ReadToken": admin.ReadToken, "ReadOrCreateToken": admin.ReadOrCreateToken,
	} {
		if _, err := read(path); err == nil || !strings.Contains(err.Error(), "is empty") {
			t.Errorf("%s of an empty file: %v, want it refused as empty", name, err)
		}
	}
	_, err := admin.ReadToken(filepath.Join(dir, "nope"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "read admin token: ") {
		t.Errorf("ReadToken of a missing file: %v, want fs.ErrNotExist, wrapped", err)
	}
}
