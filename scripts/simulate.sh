#!/usr/bin/env bash
# The deterministic simulation of the control plane (internal/sim).
#
#   scripts/simulate.sh                  # the default run: 50 seeds of 1,000 operations
#   scripts/simulate.sh --long [DURATION] # seeds for DURATION (default 10m), from a seed
#                                         # of the clock, so that each run covers new ones
#   scripts/simulate.sh --race ...        # under the race detector
#
# Other arguments go to go test (-store bolt, -strict, -mask ..., -ops N).
# A failure prints its seed, its shrunk program and the command that replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
args=() race=() long=""
while [ $# -gt 0 ]; do
	case "$1" in
	--long)
		long=10m
		if [ $# -gt 1 ] && [[ "$2" =~ ^[0-9]+[smh]$ ]]; then long=$2; shift; fi
		;;
	--race) race=(-race) ;;
	*) args+=("$1") ;;
	esac
	shift
done
if [ -n "$long" ]; then
	first=$(( $(date +%s) % 1000000 * 1000 ))
	echo "simulating for $long from seed $first"
	exec go test "${race[@]}" ./internal/sim -run '^TestSimulation$' -count=1 -timeout 0 -v \
		-for "$long" -first "$first" "${args[@]}"
fi
exec go test "${race[@]}" ./internal/sim -run '^TestSimulation$' -count=1 -v "${args[@]}"
