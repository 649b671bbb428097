package admin

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ReadToken reads the admin token from a file: its content without the
// white space around it, which must leave something.
func ReadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read admin token: %w", err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("admin token file %s is empty", path)
	}
	return t, nil
}

// ReadOrCreateToken reads the admin token from a file, as ReadToken does,
// or, if there is no such file, generates a token (32 random bytes, in
// hex) and writes it there, readable by its owner only (0600): what serve
// does with the token in its data directory at the first start.
func ReadOrCreateToken(path string) (string, error) {
	t, err := ReadToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return t, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate admin token: %w", err)
	}
	t = hex.EncodeToString(b)
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write admin token: %w", err)
	}
	return t, nil
}
