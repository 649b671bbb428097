// Package replbench holds the many-hosts benchmarks (BENCHMARKS.md): writes
// a second of user operations and of approvals through one replica and
// through two, on bbolt and on etcd, against a bare write to the same store
// as the baseline; and the time an approval made on one replica takes to
// show on another's metadata endpoint.
//
// Everything is in its tests. Each replica is wired as `forewarn serve`
// wires it (fabric.New, imds.New, PublishTo, admin.NewServer, Run) and
// served over HTTP on 127.0.0.1; user operations go through the admin API,
// approvals through the metadata endpoint as the VMs, from their own
// loopback addresses (127.77.x.y). etcd is embedded in the test process, on
// a temporary directory.
//
//	go test ./internal/replbench -run '^$' -bench . -benchtime 2s -count 3
//	go test ./internal/replbench -run '^$' -bench ApprovalVisibility -benchtime 1000x -count 3
//	REPLBENCH_SAMPLES=500 go test ./internal/replbench -run Visibility -v
//
// $REPLBENCH_SCOPES sets the number of availability sets of 4 VMs of the
// write benchmarks' fleet (default 8, a multiple of 8).
//
// A plain `go test` runs no benchmark: it checks the harness on a small
// fleet and measures a few approvals' visibility, in a few seconds.
package replbench
