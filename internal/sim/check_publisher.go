package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/forewarn/forewarn"
)

// checkPublisher checks that what the fabric published last agrees with
// what it lists.
func (d *driver) checkPublisher(s *state) error {
	snaps, faults := d.w.rec.take()
	if len(faults) > 0 {
		return fmt.Errorf("%s", faults[0])
	}
	if len(snaps) != len(s.scopes) {
		return fmt.Errorf("publisher: %d scopes published, %d listed", len(snaps), len(s.scopes))
	}
	for _, sc := range s.scopes {
		snap := snaps[key(sc.Name)]
		if snap == nil {
			return fmt.Errorf("publisher: scope %s is listed, not published", sc.Name)
		}
		if snap.Scope.Incarnation != sc.Incarnation {
			return fmt.Errorf("publisher: scope %s published at incarnation %d, listed at %d", sc.Name, snap.Scope.Incarnation, sc.Incarnation)
		}
		var listed []string
		for _, e := range s.events {
			if forewarn.SameName(e.Scope, sc.Name) {
				listed = append(listed, eventKey(e))
			}
		}
		var published []string
		for _, e := range snap.Events {
			published = append(published, eventKey(e))
		}
		if !slices.Equal(listed, published) {
			return fmt.Errorf("publisher: scope %s published with events %v, listed with %v", sc.Name, published, listed)
		}
		var vms, pvms []string
		for _, vm := range s.vms {
			if forewarn.SameName(vm.Scope, sc.Name) {
				vms = append(vms, vm.Name+"/"+strings.Join(vm.Addresses, ",")+"/"+string(vm.State))
			}
		}
		for _, vm := range snap.VMs {
			pvms = append(pvms, vm.Name+"/"+strings.Join(vm.Addresses, ",")+"/"+string(vm.State))
		}
		if !slices.Equal(vms, pvms) {
			return fmt.Errorf("publisher: scope %s published with VMs %v, listed with %v", sc.Name, pvms, vms)
		}
	}
	return nil
}
