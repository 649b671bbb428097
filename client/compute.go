package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Compute is the instance metadata's "compute" object, the fields a
// Scheduled Events client needs. Name is what events name in Resources.
type Compute struct {
	Name                 string    `json:"name"`
	VMID                 string    `json:"vmId"`
	Location             string    `json:"location"`
	PlatformUpdateDomain int       `json:"platformUpdateDomain"`
	PlatformFaultDomain  int       `json:"platformFaultDomain"`
	VMScaleSetName       string    `json:"vmScaleSetName"`
	Zone                 string    `json:"zone"`
	ResourceID           string    `json:"resourceId"`
	Priority             string    `json:"priority"`
	Tags                 string    `json:"tags"`
	OSProfile            OSProfile `json:"osProfile"`
}

// OSProfile is the compute object's "osProfile".
type OSProfile struct {
	ComputerName string `json:"computerName"`
}

// UnmarshalJSON decodes the wire form, where every leaf is a string: the
// domains are taken as numbers or strings ("" is 0).
func (c *Compute) UnmarshalJSON(b []byte) error {
	type plain Compute
	var wire struct {
		plain
		PlatformUpdateDomain flexInt `json:"platformUpdateDomain"`
		PlatformFaultDomain  flexInt `json:"platformFaultDomain"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	*c = Compute(wire.plain)
	c.PlatformUpdateDomain = int(wire.PlatformUpdateDomain)
	c.PlatformFaultDomain = int(wire.PlatformFaultDomain)
	return nil
}

// TagMap splits Tags ("env:prod;team:web") into a map; nil when empty.
// A tag without ":" maps to "".
func (c Compute) TagMap() map[string]string {
	if strings.TrimSpace(c.Tags) == "" {
		return nil
	}
	tags := map[string]string{}
	for pair := range strings.SplitSeq(c.Tags, ";") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, ":")
		tags[k] = v
	}
	return tags
}

// Instance reads the caller's compute metadata with InstanceAPIVersion,
// retrying as Get does.
func (c *Client) Instance(ctx context.Context) (*Compute, error) {
	var compute *Compute
	err := c.withRetry(ctx, "get instance metadata", func(ctx context.Context) error {
		rep, err := c.do(ctx, call{method: http.MethodGet, path: computePath,
			query: url.Values{"api-version": {InstanceAPIVersion}}, timeout: c.requestTimeout})
		if err != nil {
			return err
		}
		var cm Compute
		if err := json.Unmarshal(rep.body, &cm); err != nil {
			return fmt.Errorf("%w: decode compute: %v", ErrMalformedResponse, err)
		}
		compute = &cm
		return nil
	})
	if err != nil {
		return nil, err
	}
	return compute, nil
}
