#!/usr/bin/env bash
# Crash safety (e2e/crash_test.go, TestCrashSafety): while VMs poll and
# approve, an operator restarts, redeploys, approves and cancels, and
# campaigns walk the update domains, forewarn serve is killed with SIGKILL
# at random moments and restarted, on the bbolt store and on an embedded
# etcd. After each restart no acknowledged event, approval, cancel or
# campaign is lost, no incarnation went down, no event started before its
# NotBefore without approval or started twice; at the end every campaign
# finishes. Runs under the race detector.
#
# Usage:
#   scripts/crash-safety.sh                   # 20 kills per store (what CI runs, about a minute)
#   scripts/crash-safety.sh --long            # 200 kills per store
#   scripts/crash-safety.sh --kills 50        # any number of kills
#   scripts/crash-safety.sh --store etcd      # one store only: bolt or etcd
#   FOREWARN_CRASH_SEED=123 scripts/crash-safety.sh   # replay the random choices of a
#                                                     # run that logged this seed
set -euo pipefail
cd "$(dirname "$0")/.."

kills=${FOREWARN_CRASH_KILLS:-20}
run='^TestCrashSafety$'
usage() { sed -n '/^# Usage:/,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--long) kills=200 ;;
	--kills) [ $# -ge 2 ] || usage; kills=$2; shift ;;
	--store)
		[ $# -ge 2 ] && { [ "$2" = bolt ] || [ "$2" = etcd ]; } || usage
		run="^TestCrashSafety\$/^$2\$"; shift ;;
	-h | --help) usage ;;
	*) echo "crash-safety.sh: unknown argument $1" >&2; usage ;;
	esac
	shift
done
case "$kills" in '' | *[!0-9]*) echo "crash-safety.sh: --kills wants a number, not $kills" >&2; exit 2 ;; esac
# About 3 s a kill per store at most, plus the build and the final wait.
timeout="$((kills * 6 + 300))s"

export FOREWARN_CRASH_KILLS=$kills
echo "== crash safety: $kills kills per store${FOREWARN_CRASH_SEED:+, seed $FOREWARN_CRASH_SEED}"
exec go test -race -count=1 -timeout "$timeout" -run "$run" -v ./e2e
