package etcd

import (
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/forewarn/forewarn"
)

// noSpaceMessage is what a write refused by etcd's NOSPACE alarm answers.
const noSpaceMessage = "etcd is out of space: its database reached its quota (etcd's --quota-backend-bytes, 2 GB by default), " +
	"and etcd refuses every write until an operator makes room, by compacting its history (etcdctl compact) " +
	"and defragmenting every member (etcdctl defrag) or by raising the quota, and then disarms the alarm " +
	`(etcdctl alarm disarm); see the README, "Running on many hosts"`

// noSpace returns err as it is, unless etcd refused the write with its
// NOSPACE alarm: then an error of kind ErrUnavailable whose message says
// what to do, wrapping err. etcd refuses a whole request, so nothing of it
// was written.
func noSpace(err error) error {
	if !errors.Is(err, rpctypes.ErrNoSpace) {
		return err
	}
	return fmt.Errorf("%w (%w)", forewarn.Errorf(forewarn.ErrUnavailable, noSpaceMessage), err)
}
