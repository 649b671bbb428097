package main

import (
	"strconv"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// newVMCommand groups the commands on VMs: inventory and user operations.
func newVMCommand() *cobra.Command {
	a := &adminOptions{}
	cmd := newGroupCommand("vm", "Create, list, show and delete VMs; restart, redeploy, evict or terminate one; fail or degrade its hardware")
	addAdminFlags(cmd, a)
	cmd.AddCommand(
		newVMCreateCommand(a),
		newVMListCommand(a),
		newShowCommand(a, "Show a VM", vmTable, forewarn.Fleet.VM),
		newDeleteCommand(a, "vm", "NAME", "Delete a VM, removing it from the events it is in", forewarn.Fleet.DeleteVM),
		newVMOperationCommand(a, forewarn.OpRestart, "Restart a VM: schedules a Reboot event"),
		newVMOperationCommand(a, forewarn.OpRedeploy, "Redeploy a VM: schedules a Redeploy event"),
		newVMOperationCommand(a, forewarn.OpEvict, "Evict a Spot VM: schedules a Preempt event"),
		newVMOperationCommand(a, forewarn.OpTerminate, "Terminate a scale-set VM: schedules a Terminate event"),
		newVMFailCommand(a),
		newVMDegradeCommand(a),
	)
	return cmd
}

// vmTable prints VMs.
var vmTable = table[*forewarn.VM]{
	header: []string{"NAME", "SCOPE", "UD", "FD", "PRIORITY", "STATE", "ADDRESSES"},
	row: func(vm *forewarn.VM) []string {
		return []string{
			vm.Name, vm.Scope, strconv.Itoa(vm.UpdateDomain), strconv.Itoa(vm.FaultDomain),
			string(vm.Priority), string(vm.State), listCell(vm.Addresses),
		}
	},
}
