#!/usr/bin/env bash
# The project's test command (README, .ci/run): installs what the tests need,
# then runs gofmt, go vet, every test under the race detector (with the
# crash-safety test's 20 kills per store, the failover test on a real
# three-member etcd and the dashboard in headless Chromium, whose screenshots
# go to artifacts/screenshots), short fuzz runs, every benchmark once and a short load
# run (so that they keep working), and the seed pages' examples against the
# real binary.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
export FOREWARN_REQUIRE_ETCD=1 # deps.sh installed etcd: the failover test must not skip
export FOREWARN_REQUIRE_BROWSER=1 # and chromium: the dashboard's browser tests must not skip
# As root (CI), the network-namespace test (e2e/netns_test.go, scripts/netns-e2e.sh) must not skip.
if [ "$(id -u)" = 0 ]; then export FOREWARN_REQUIRE_NETNS=1; fi

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$bad" ]; then echo "gofmt would change:"; echo "$bad"; exit 1; fi

echo "== go vet"
go vet ./...

echo "== go test -race"
go test -race -count=1 ./...

# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can
# fail a clean run with "context deadline exceeded" when the time is up on
# a loaded machine (go.dev/issue/75804, fixed in Go 1.27).
echo "== fuzz (short; FUZZTIME=${FUZZTIME:=20000x})"
go test ./imds -run '^$' -fuzz '^FuzzPostBody$' -fuzztime "$FUZZTIME"
go test ./imds -run '^$' -fuzz '^FuzzQuery$' -fuzztime "$FUZZTIME"
go test ./imds -run '^$' -fuzz '^FuzzHeaders$' -fuzztime "$FUZZTIME"
go test ./client -run '^$' -fuzz '^FuzzDecodeDocument$' -fuzztime "$FUZZTIME"
go test ./agent -run '^$' -fuzz '^FuzzConfig$' -fuzztime "$FUZZTIME"
go test ./fleetfile -run '^$' -fuzz '^FuzzParse$' -fuzztime "$FUZZTIME" -fuzzminimizetime 2s
go test ./admin -run '^$' -fuzz '^FuzzCreateBodies$' -fuzztime "$FUZZTIME"
go test ./admin -run '^$' -fuzz '^FuzzListQueries$' -fuzztime "$FUZZTIME"
go test ./fabric -run '^$' -fuzz '^FuzzEventCursor$' -fuzztime "$FUZZTIME"

echo "== benchmarks, once each (their numbers are not judged here; see BENCHMARKS.md)"
go test -run '^$' -bench . -benchtime 1x ./...
scripts/load.sh --short
scripts/bench-fleet.sh --short
scripts/fleet-load.sh --short

echo "== seed examples"
scripts/seed-examples.sh
