#!/usr/bin/env bash
# Fleet-scale loads of the metadata endpoint (BENCHMARKS.md, issue 6),
# against the real `forewarn serve`, with internal/tools/fleetload:
#
#   scripts/fleet-load.sh                 # longpoll, then poll, full size
#   scripts/fleet-load.sh longpoll [--clients 10000] [--lp-vms 100] [--runs 1]
#   scripts/fleet-load.sh poll [--vms 2000] [--duration 60] [--time-scale 60] [--no-campaign]
#   scripts/fleet-load.sh --short         # both, small and brief: about 20 s (CI)
#
# longpoll: "one change seen by 10,000 long-polling clients". It starts
#
#   forewarn serve --rate-limit 0 --max-user-ops 1000 (time scale 1)
#
# (--rate-limit 0: the clients share --lp-vms VMs, 100 clients each by
# default, and a VM may make 10 requests at once under the default limit;
# --max-user-ops: each run restarts another VM of the scope), applies a
# fleet file of one availability set of --lp-vms VMs calling from
# 127.2.0.1 on, and runs `fleetload longpoll` --runs times: --clients
# long-polls (wait_for_change=true, last_etag of the current document,
# timeout_sec=300), each on its own connection, spread over the VMs' source
# addresses; it waits until the kernel's socket table shows every request
# accepted and read by the server, then 1 s, restarts a VM of the scope
# through the admin API and times each client's answer from just before
# that call: to its arrival in the client's socket (the kernel's receive
# timestamp) and to the load having read it, with the CPU time the server
# and the load used meanwhile. Target: p99 at most 200 ms.
#
# poll: "2,000 VMs polling once a second for 60 s during a campaign". It
# starts
#
#   forewarn serve --dev --time-scale X (rate limit left at 5/s, burst 10)
#
# applies a fleet file of --vms VMs in availability sets of 10 (5 update
# domains), calling from 127.1.0.1 on, starts a campaign over every scope
# at once (`forewarn maintenance start --type Reboot --all
# --parallel-scopes N`; at --time-scale 60 a Reboot's 15 minutes of notice
# take 15 s and its reboot 1 s), and runs `fleetload poll`: one poller per
# VM from its own address, a GET with If-None-Match once a second for
# --duration seconds, from a random start; the VM named first in a Scheduled
# event approves it with probability 0.5; 20 VMs fire one burst of 15 GETs,
# whose 429s are the only ones intended. Target: no error answers other
# than those 429s, GET p99 under 5 ms. --no-campaign leaves the campaign
# out, to tell its cost from the polling's.
#
# Each load prints its summary; a MISS of a latency target does not fail
# the script, an error answer, a transport error or a missing answer does.
# --short: 1,000 long-polls over 20 VMs, then 200 VMs for 5 s at
# --time-scale 300. The load and the server each hold a descriptor per
# long-poll: the script tries ulimit -n 65536 and needs --clients + 1000.
# Every process started is stopped at exit. Loopback only.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."

mode=both
short=0
clients=
lp_vms=
runs=1
vms=
duration=
time_scale=
campaign=1
while [ $# -gt 0 ]; do
  case "$1" in
    longpoll|poll|both) mode=$1; shift ;;
    --short) short=1; shift ;;
    --no-campaign) campaign=0; shift ;;
    --clients|--lp-vms|--runs|--vms|--duration|--time-scale)
      [ $# -ge 2 ] || { echo "fleet-load.sh: $1 needs a value" >&2; exit 2; }
      v=${1#--}; v=${v//-/_}; printf -v "$v" '%s' "$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fleet-load.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$short" = 1 ]; then
  : "${clients:=1000}" "${lp_vms:=20}" "${vms:=200}" "${duration:=5}" "${time_scale:=300}"
else
  : "${clients:=10000}" "${lp_vms:=100}" "${vms:=2000}" "${duration:=60}" "${time_scale:=60}"
fi
for v in clients lp_vms runs vms duration; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "fleet-load.sh: --${v//_/-} takes a whole number from 1" >&2; exit 2; }
done
[[ "$time_scale" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "fleet-load.sh: --time-scale takes a number" >&2; exit 2; }
[ $((vms % 10)) = 0 ] || { echo "fleet-load.sh: --vms must be a multiple of 10 (scopes of 10)" >&2; exit 2; }
[ "$runs" -le "$lp_vms" ] || { echo "fleet-load.sh: --runs must be at most --lp-vms (a restart per run)" >&2; exit 2; }

ulimit -n 65536 2>/dev/null || true
if [ "$(ulimit -n)" -lt $((clients + 1000)) ]; then
  echo "fleet-load.sh: ulimit -n is $(ulimit -n), and $clients long-polls need $((clients + 1000)): raise it or lower --clients" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/forewarn-fleet-load.XXXXXX")
fw_pid=
cleanup() {
  if [ -n "$fw_pid" ]; then
    kill "$fw_pid" 2>/dev/null || true
    wait "$fw_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
  echo "fleet-load.sh: $*" >&2
  exit 1
}

# wait_addr LOG PATTERN: prints the address of the first "PATTERN addr=X"
# in LOG, waiting for it at most 30 s.
wait_addr() {
  local i addr
  for i in $(seq 300); do
    addr=$(sed -n "s/.*$2 addr=\([^ ]*\).*/\1/p" "$1" | head -n 1)
    if [ -n "$addr" ]; then
      echo "$addr"
      return 0
    fi
    sleep 0.1
  done
  echo "fleet-load.sh: no \"$2\" line in $1 after 30 s:" >&2
  cat "$1" >&2
  return 1
}

# start_serve NAME FLAG...: starts forewarn serve on a fresh data directory
# $tmp/NAME, and sets fw_pid, meta and admin.
start_serve() {
  local name=$1
  shift
  mkdir "$tmp/$name"
  "$tmp/forewarn" serve --data-dir "$tmp/$name" --metadata-addr 127.0.0.1:0 --admin-addr 127.0.0.1:0 \
    "$@" 2>"$tmp/$name.log" &
  fw_pid=$!
  meta=$(wait_addr "$tmp/$name.log" 'api=metadata')
  admin=$(wait_addr "$tmp/$name.log" 'api=admin')
  data=$tmp/$name
}

# stop_serve: stops the server, and prints the warnings and errors it
# logged, if any.
stop_serve() {
  kill "$fw_pid"
  wait "$fw_pid" || true
  fw_pid=
  local bad
  bad=$(grep -c -E 'level=(WARN|ERROR)' "$data.log" || true)
  if [ "$bad" -gt 0 ]; then
    echo "serve logged $bad warnings or errors; the first:"
    grep -E 'level=(WARN|ERROR)' "$data.log" | head -n 5
  fi
}

cli() { "$tmp/forewarn" --server "http://$admin" --data-dir "$data" "$@"; }

# apply_fleet FILE LAYOUT...: writes the layout's fleet file and applies it,
# and says how long that took.
apply_fleet() {
  local file=$1 start end
  shift
  "$tmp/fleetload" fleet "$@" >"$file"
  start=$(date +%s.%N)
  cli apply -f "$file" >"$file.applied" || die "apply $file: $(tail -n 3 "$file.applied")"
  end=$(date +%s.%N)
  echo "fleet: $(grep -c '^create' "$file.applied") scopes and VMs created in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
}

# rss PID: the process's peak resident set, in MB.
rss() { awk '$1 == "VmHWM:" { printf "%.0f MB", $2 / 1024 }' "/proc/$1/status"; }

# cpu_s PID: the process's user plus system CPU time, in seconds.
cpu_s() {
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($12 + $13) / hz }' <<<"$stat"
}

run_longpoll() {
  local layout=(-prefix lp -scopes 1 -vms "$lp_vms" -base 127.2.0.1) r
  echo "== longpoll: $clients long-polls over $lp_vms VMs of one scope, $runs run(s)"
  start_serve longpoll --rate-limit 0 --max-user-ops 1000
  apply_fleet "$tmp/lp.yaml" "${layout[@]}"
  for r in $(seq "$runs"); do
    [ "$runs" = 1 ] || echo "-- run $r"
    "$tmp/fleetload" longpoll "${layout[@]}" -url "http://$meta" -admin "http://$admin" \
      -token-file "$data/admin.token" -clients "$clients" -server-pid "$fw_pid" -json \
      >"$tmp/lp-$r.json" 2>"$tmp/lp-$r.log" || { cat "$tmp/lp-$r.log" >&2; die "longpoll run $r failed"; }
    grep -v "^longpoll: " "$tmp/lp-$r.log" || true
  done
  [ "$runs" = 1 ] || python3 - "$tmp"/lp-*.json <<'PY'
import json, statistics, sys
runs = [json.load(open(f)) for f in sys.argv[1:]]
for key, what in (("latency_from_change", "arrival"), ("read_latency_from_change", "read")):
    p99 = sorted(r[key]["p99_ms"] for r in runs)
    print(f"{len(runs)} runs, p99 to {what}: median {statistics.median(p99):g} ms, "
          f"min {p99[0]:g} ms, max {p99[-1]:g} ms")
PY
  echo "serve: peak RSS $(rss "$fw_pid")"
  stop_serve
}

run_poll() {
  local scopes=$((vms / 10)) layout before
  layout=(-prefix load -scopes "$scopes" -vms 10 -update-domains 5 -base 127.1.0.1)
  echo "== poll: $vms VMs in $scopes scopes, once a second for $duration s, during a campaign (time scale $time_scale)"
  start_serve poll --dev --time-scale "$time_scale"
  apply_fleet "$tmp/poll.yaml" "${layout[@]}"
  if [ "$campaign" = 1 ]; then
    cli maintenance start --type Reboot --all --parallel-scopes $((scopes + 1)) -o json >"$tmp/campaign.json" ||
      die "maintenance start: $(cat "$tmp/campaign.json")"
  fi
  before=$(cpu_s "$fw_pid")
  "$tmp/fleetload" poll "${layout[@]}" -url "http://$meta" -duration "${duration}s" ||
    die "the poll load saw errors (above)"
  echo "serve: $(awk -v a="$before" -v b="$(cpu_s "$fw_pid")" 'BEGIN { printf "%.1f", b - a }') s CPU during the load, peak RSS $(rss "$fw_pid")"
  [ "$campaign" = 0 ] || cli maintenance campaigns | sed 's/^/campaign: /'
  stop_serve
}

echo "building forewarn and fleetload ..." >&2
go build -o "$tmp/forewarn" ./cmd/forewarn
go build -o "$tmp/fleetload" ./internal/tools/fleetload
echo "machine: $(nproc) cores, $(free -m | awk '$1 == "Mem:" { print $2 " MB" }'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
case "$mode" in
  longpoll) run_longpoll ;;
  poll) run_poll ;;
  both) run_longpoll; run_poll ;;
esac
