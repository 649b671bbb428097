package main

import (
	"fmt"
	"math"

	"github.com/forewarn/forewarn"
)

// check refuses flag values that make no sense.
func (o *serveOptions) check() error {
	switch {
	case !(o.timeScale > 0) || math.IsInf(o.timeScale, 1):
		return fmt.Errorf("--time-scale must be a number greater than 0, not %g", o.timeScale)
	case !(o.rateLimit >= 0) || math.IsInf(o.rateLimit, 1):
		return fmt.Errorf("--rate-limit must be 0 (off) or more, not %g", o.rateLimit)
	case o.maxUserOps < 1:
		return fmt.Errorf("--max-user-ops must be at least 1, not %d", o.maxUserOps)
	case o.historyKeep < 1:
		return fmt.Errorf("--history-keep must be at least 1, not %d", o.historyKeep)
	case o.enableIdle == 0:
		return fmt.Errorf("--enable-idle must be more than 0")
	case o.adminTimeout <= 0:
		return fmt.Errorf("--admin-request-timeout must be more than 0")
	case o.replicaID != "" && !forewarn.ValidName(o.replicaID):
		return fmt.Errorf("--replica-id %q: use 1-64 letters, digits, '-', '_' and '.'", o.replicaID)
	}
	if err := o.checkActuator(); err != nil {
		return err
	}
	if err := o.checkAdmin(); err != nil {
		return err
	}
	return o.checkStore()
}
