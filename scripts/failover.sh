#!/usr/bin/env bash
# Runs the failover test (TestFailover in e2e/failover_test.go) and prints
# what it measured. The test starts a real three-member etcd cluster and
# three forewarn replicas on loopback ports, runs a campaign and user
# operations, kills the leading replica with kill -9 mid-campaign, then
# etcd's raft leader, and checks that the campaign completes with every
# invariant kept.
#
#   scripts/failover.sh             # one run
#   scripts/failover.sh --runs 5    # five runs, then the takeover times
#
# It installs etcd first if it is missing (scripts/deps.sh; or set
# FOREWARN_ETCD_BIN). Each run prints one line, such as
#
#   run 1: ok takeover=8.9s get-error-window=0s get-slowest=51ms get-failures=0
#          post-5xx-window=1.8s post-failures=1 op-failures=0
#          etcd-election=1.2s etcd-killed=m1(raft-leader)
#
# takeover: from kill -9 of the leading replica to another one leading (at
# most the 10 s leader lease); get-error-window: the longest time the
# surviving replicas' metadata GETs kept failing (0: they never failed);
# get-slowest: the slowest of them; post-5xx-window: the same for the VMs'
# approvals (POST), which may fail while etcd elects a new raft leader;
# etcd-election: from kill -9 of etcd's raft leader to a new one. The log of
# a failed run is kept and its path printed. Exits 1 if any run failed.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="${2:-}"; shift $(( $# > 1 ? 2 : 1 )) ;;
    --runs=*) runs="${1#--runs=}"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "failover.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "failover.sh: --runs takes a whole number from 1" >&2
  exit 2
fi

scripts/deps.sh
export FOREWARN_REQUIRE_ETCD=1 # fail, not skip, if etcd is missing after all

logs=$(mktemp -d "${TMPDIR:-/tmp}/forewarn-failover.XXXXXX")
failed=0
takeovers=()
for i in $(seq "$runs"); do
  log="$logs/run-$i.log"
  status=ok
  go test -race -count=1 -run '^TestFailover$' -v ./e2e >"$log" 2>&1 || status=FAIL
  measured=$(grep -o 'failover: takeover=.*' "$log" | tail -n 1 | sed 's/^failover: //' || true)
  echo "run $i: $status ${measured:-(nothing measured)}"
  if [ "$status" = FAIL ]; then
    failed=$((failed + 1))
    echo "  log: $log"
  fi
  if [ -n "$measured" ]; then
    takeovers+=("$(sed 's/^takeover=\([^ ]*\).*/\1/' <<<"$measured")")
  fi
done

if [ ${#takeovers[@]} -gt 1 ]; then
  # Go durations (950ms, 8.9s, 1m2.5s) in seconds, sorted; then min, median, max.
  printf '%s\n' "${takeovers[@]}" | awk '
    {
      d = $1; s = 0
      if (match(d, /^[0-9.]+m[0-9]/)) { s = substr(d, 1, RLENGTH - 2) * 60; d = substr(d, RLENGTH) }
      if (d ~ /ms$/) s += substr(d, 1, length(d) - 2) / 1000
      else if (d ~ /s$/) s += substr(d, 1, length(d) - 1)
      print s
    }' | sort -n | awk '
    { v[NR] = $1 }
    END { printf "takeover over %d runs: min=%.2fs median=%.2fs max=%.2fs\n", NR, v[1], v[int((NR + 1) / 2)], v[NR] }'
fi
if [ "$failed" -gt 0 ]; then
  echo "$failed of $runs runs failed"
  exit 1
fi
rm -rf "$logs"
