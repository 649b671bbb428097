package imds

import (
	"net/http"
	"net/netip"
	"strconv"

	"github.com/forewarn/forewarn"
)

// subscription is the subscription id of every resourceId.
const subscription = "00000000-0000-0000-0000-000000000000"

// getInstance answers a GET under /metadata/instance: the caller's instance
// document, a subtree of it as JSON, or a leaf as text (SPEC.md 7, 10).
func (s *Server) getInstance(out *reply, req *request, segs []string) {
	node, ok := walk(s.instanceTree(req.caller), segs)
	if !ok {
		out.fail(errNotFound)
		return
	}
	leaf, isLeaf := node.(string)
	switch {
	case isLeaf && req.text:
		out.send(http.StatusOK, contentTypeText, []byte(leaf), nil)
	case isLeaf:
		out.fail(badRequest("Bad request. A leaf node is only available with format=text"))
	case req.text:
		out.fail(badRequest("Bad request. format=text is only available for leaf nodes"))
	default:
		body, err := marshal(node)
		if err != nil { // cannot happen: strings, objects and lists only
			out.fail(errInternal)
			return
		}
		out.send(http.StatusOK, contentTypeJSON, body, nil)
	}
}

// instanceTree is the caller's instance document.
func (s *Server) instanceTree(c caller) object {
	return object{
		{"compute", s.computeTree(c.vm, c.state.scope)},
		{"network", networkTree(c.vm)},
	}
}

// computeTree is the "compute" object, keys in the real service's
// (alphabetical) order. Every leaf is a string.
func (s *Server) computeTree(vm *forewarn.VM, scope *forewarn.Scope) object {
	scaleSet := ""
	if scope.Kind == forewarn.ScaleSet {
		scaleSet = scope.Name
	}
	priority := string(vm.Priority)
	if priority == "" {
		priority = string(forewarn.Regular)
	}
	return object{
		{"location", s.location},
		{"name", vm.Name},
		{"osProfile", object{{"computerName", vm.Name}}},
		{"platformFaultDomain", strconv.Itoa(vm.FaultDomain)},
		{"platformUpdateDomain", strconv.Itoa(vm.UpdateDomain)},
		{"priority", priority},
		{"resourceGroupName", scope.Name},
		{"resourceId", resourceID(vm, scope)},
		{"subscriptionId", subscription},
		{"tags", ""},
		{"vmId", vm.ID},
		{"vmScaleSetName", scaleSet},
		{"zone", ""},
	}
}

// resourceID is an ARM-like id of the VM, its scope as resource group.
func resourceID(vm *forewarn.VM, scope *forewarn.Scope) string {
	prefix := "/subscriptions/" + subscription + "/resourceGroups/" + scope.Name +
		"/providers/Microsoft.Compute/"
	if scope.Kind == forewarn.ScaleSet {
		return prefix + "virtualMachineScaleSets/" + scope.Name + "/virtualMachines/" + vm.Name
	}
	return prefix + "virtualMachines/" + vm.Name
}

// networkTree is the "network" object: one interface with the VM's
// addresses, in the real service's shape.
func networkTree(vm *forewarn.VM) object {
	v4, v6 := []any{}, []any{}
	for _, a := range vm.Addresses {
		addr, err := netip.ParseAddr(a)
		if err != nil {
			continue
		}
		addr = normalizeAddr(addr)
		if addr.Is4() {
			v4 = append(v4, object{{"privateIpAddress", addr.String()}, {"publicIpAddress", ""}})
		} else {
			v6 = append(v6, object{{"privateIpAddress", addr.String()}})
		}
	}
	iface := object{
		{"ipv4", object{{"ipAddress", v4}, {"subnet", []any{}}}},
		{"ipv6", object{{"ipAddress", v6}}},
		{"macAddress", ""},
	}
	return object{{"interface", []any{iface}}}
}
