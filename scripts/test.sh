#!/usr/bin/env bash
# The project's test command (README, .ci/run): installs what the tests need,
# then runs gofmt, go vet, staticcheck, every test under the race detector (with the
# crash-safety test's 20 kills per store, the failover test on a real
# three-member etcd and the dashboard in headless Chromium, whose screenshots
# go to artifacts/screenshots) and without it the ones it skips (the
# zero-allocation check, the simulation's whole budget), short fuzz runs, every benchmark once and a short load
# run (so that they keep working), and the seed pages' examples against the
# real binary, and the release archives in snapshot mode.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
export FOREWARN_REQUIRE_ETCD=1 # deps.sh installed etcd: the failover test must not skip
export FOREWARN_REQUIRE_BROWSER=1 # and chromium: the dashboard's browser tests must not skip
export FOREWARN_REQUIRE_SYSTEMD=1 # and systemd-analyze: the unit's check must not skip
# As root (CI), the network-namespace test (e2e/netns_test.go, scripts/netns-e2e.sh) must not skip,
# nor the container image's (e2e/image_test.go: podman and runc, from deps.sh).
if [ "$(id -u)" = 0 ]; then export FOREWARN_REQUIRE_NETNS=1 FOREWARN_REQUIRE_PODMAN=1; fi

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$bad" ]; then echo "gofmt would change:"; echo "$bad"; exit 1; fi

echo "== go vet"
go vet ./...

echo "== staticcheck"
scripts/staticcheck.sh

# The timeout is sized to the longest package, e2e: about 4 minutes on a
# loaded two-core machine (crash test 50 s, failover 35 s, the etcd outage
# 25 s, ...), more with a cold build cache, which its TestMain's build of
# the race-enabled binary counts in. go test's default (10 minutes) is too
# close to that on a slow CI machine; a hang still ends, with its stacks.
echo "== go test -race"
go test -race -count=1 -timeout 25m ./...
# imds's tests serve the endpoint with fasthttp, as serve's metadata
# listener does; forewarntest and the other packages serve it with
# net/http, which this run covers too.
echo "== go test -race ./imds -engine=nethttp"
go test -race -count=1 ./imds -engine=nethttp

# The release archives of every target, in snapshot mode, each checked to
# hold a binary stamped with the version (the host's runs "version -o
# json"); every package is built for every target on the way. About 20 s
# with a warm build cache; 2 to 3 minutes on two cores with a cold one
# (three cross-compiled toolchains' worth of packages).
echo "== release snapshot (scripts/release.sh)"
scripts/release.sh v0.0.0-ci --snapshot

# The race detector allocates, and drops sync.Pool's items: the test that
# a warm metadata GET allocates nothing skips under it
# (imds/allocs_test.go), and runs here. It must run, not match nothing.
echo "== go test, without the race detector: the tests it skips"
out=$(go test -count=1 -v -run '^TestGetAllocatesNothing$' ./imds) || { echo "$out"; exit 1; }
echo "$out" | tail -n 1
if ! grep -q -- '^--- PASS: TestGetAllocatesNothing ' <<<"$out"; then
  echo "$out"; echo "TestGetAllocatesNothing did not run"; exit 1
fi

# The race run above takes 15 seeds of the simulation; the whole budget,
# 50 seeds of 1,000 operations, runs here without the race detector
# (about 12 s).
echo "== simulation (internal/sim): 50,000 operations"
scripts/simulate.sh
# And 5 seeds on an embedded etcd (about 20 s): its transactions, its
# read-ahead and its watch, which the in-memory store does not have.
echo "== simulation on etcd: 5,000 operations"
scripts/simulate.sh -store etcd -seeds 5

# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can
# fail a clean run with "context deadline exceeded" when the time is up on
# a loaded machine (go.dev/issue/75804, fixed in Go 1.27).
echo "== fuzz (short; FUZZTIME=${FUZZTIME:=20000x})"
# imds's three targets on fasthttp, the metadata listener's engine, and on
# net/http, forewarntest's.
for engine in fasthttp nethttp; do
  go test ./imds -run '^$' -fuzz '^FuzzPostBody$' -fuzztime "$FUZZTIME" -engine=$engine
  go test ./imds -run '^$' -fuzz '^FuzzQuery$' -fuzztime "$FUZZTIME" -engine=$engine
  go test ./imds -run '^$' -fuzz '^FuzzHeaders$' -fuzztime "$FUZZTIME" -engine=$engine
done
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
scripts/bench-fleet.sh --store etcd --short
scripts/fleet-load.sh --short

echo "== seed examples"
scripts/seed-examples.sh
