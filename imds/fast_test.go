package imds

import "testing"

func TestUnsupportedCoding(t *testing.T) {
	for raw, want := range map[string]bool{
		"Host: h\r\nMetadata: true\r\n":                          false,
		"Host: h\r\nTransfer-Encoding: chunked\r\n":              false,
		"Host: h\r\ntransfer-encoding:  CHUNKED \r\n":            false,
		"Host: h\r\nTransfer-Encoding: identity\r\n":             true,
		"Host: h\r\nTRANSFER-ENCODING: gzip\r\n":                 true,
		"Host: h\r\nTransfer-Encoding: gzip, chunked\r\n":        true,
		"Host: h\r\nTransfer-Encoding:\r\n chunked\r\n":          false, // obs-fold, as net/http reads it
		"Host: h\r\nTransfer-Encoding: chunked\r\n\tgzip\r\n":    true,
		"Host: h\r\nX-Transfer-Encoding-Note: identity\r\n":      false,
		"Host: h\r\nX-Note: Transfer-Encoding: identity\r\n":     false,
		"Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n": true,
	} {
		if got := unsupportedCoding([]byte(raw)); got != want {
			t.Errorf("unsupportedCoding(%q) = %v, want %v", raw, got, want)
		}
	}
}
