package client

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// flexInt is an integer that decodes from a JSON number, a string holding
// one ("5", " 5 ", ""), or null (0). Integral floats (5.0) are accepted.
type flexInt int

// UnmarshalJSON implements the liberal decoding described on flexInt.
func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			*f = 0
			return nil
		}
	}
	n, err := parseInt(s)
	if err != nil {
		return fmt.Errorf("want an integer, got %s", b)
	}
	*f = flexInt(n)
	return nil
}

// parseInt reads a decimal integer, or an integral float small enough to be
// exact (|x| <= 2^53).
func parseInt(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, fmt.Errorf("not an integer: %q", s)
	}
	return int(x), nil
}
