#!/usr/bin/env bash
# Fleet-scale loads of the metadata endpoint (BENCHMARKS.md, issue 6),
# against the real `forewarn serve`, with internal/tools/fleetload:
#
#   scripts/fleet-load.sh                 # longpoll, then poll, full size
#   scripts/fleet-load.sh longpoll [--clients 10000] [--lp-vms 100] [--runs 1]
#   scripts/fleet-load.sh poll [--vms 2000] [--duration 60] [--time-scale 60] [--no-campaign]
#   scripts/fleet-load.sh soak [--vms 2000] [--duration 10m] [--warmup 1m] [--time-scale 60]
#   scripts/fleet-load.sh --short         # longpoll, then the soak, small and brief: about 20 s (CI)
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
# and the load used meanwhile (the server's threads' run times, from
# /proc/PID/task/*/schedstat). Target: p99 at most 200 ms.
#
# After each forewarn run, the same load runs against the baseline
# (internal/tools/baseline, a minimal net/http server that checks the same
# header and query, holds a long-poll on its current ETag until POST
# /trigger, then answers the document with forewarn's headers), from the
# same clients and addresses: the script fetches forewarn's document as the
# first VM (the bytes its long-polls just got), starts a fresh baseline with
# those bytes tagged one incarnation less, and `fleetload longpoll -trigger`
# POSTs /trigger as the change, so the baseline's clients get the very
# bytes forewarn's did (Date apart). It then prints a Markdown table, per
# run (and the median of each column over several runs): forewarn's and
# the baseline's p50 and p99 from the change to the answers' arrival, the
# p99 of the fan-out from the first answer (which leaves out forewarn's
# store commit), the server CPU per answer, and forewarn/baseline ratios.
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
# out, to tell its cost from the polling's. Then the same-run comparison
# (issue 18): the same VMs poll a fresh forewarn with no maintenance under
# way, without approvals or bursts, for --duration, then the baseline
# (internal/tools/baseline, minimal net/http) given forewarn's document, the
# same way; it prints each server's CPU per poll (from /proc, 10 ms ticks)
# and GET p99, and forewarn/baseline with the target: CPU per poll at most
# 0.8x, GET p99 at most 5 ms.
#
# soak: the poll load for --duration (default 10 minutes; a number is
# seconds) after a --warmup (1 minute), against `forewarn serve --dev
# --time-scale X` with the same fleet, run by `fleetload soak`, which also
# keeps maintenance going through the admin API: a campaign over every
# scope of the fleet (Reboot, Redeploy, Freeze in turn), the next as soon
# as the last is done, a user operation (restart or redeploy) on a random
# VM every second, every fourth one's event cancelled a second later; the
# burst VMs fire a burst every minute. It fails on any of:
# - an error answer (the bursts' 429s apart), a request with no answer, or
#   an error of the admin API; the refusals the rules make (409: the VM
#   has an event in flight, or the event has started and cannot be
#   cancelled) are counted, not errors;
# - a lost event: it reads every event the server created (the events in
#   flight and the history, every 30 s and at the end, so that none leaves
#   the history unread) and checks each against the polls of every VM of
#   its scope (the document shows a scope's events to all its VMs): a poll
#   sent at least 2 s (-lag) after the event was created (or started) and
#   answered before it started (or ended) must show it, Scheduled (or
#   Started); a VM with such a poll that never saw the event so lost it.
#   So fails a stale answer, one behind what the scope's shared document
#   had already shown: a poll sent after any VM of the scope was answered
#   with the event Scheduled (or Started) and answered before it started
#   (or ended) that does not show it so (this needs no lag). And so do an
#   event the VMs saw that the server does not report, and a campaign
#   (the last one paused at the end) whose progress (update domains done,
#   events in flight) counts more or fewer events than it reports;
# - an approval answered 200 whose event had not started by then;
# - growth: after the warm-up and after the soak the VMs stop, and 5 s
#   later serve's /metrics (no token) is sampled every second, at least 5
#   times and until a garbage collection has run (at most 130 s: the Go
#   runtime runs one every 2 minutes); the least go_goroutines and
#   go_memstats_heap_inuse_bytes are compared: goroutines may grow by 50
#   (or 10%, if more), heap in use by 20% plus 8 MiB. RSS is reported.
#
# Each load prints its summary; a MISS of a latency target does not fail
# the script, an error answer, a transport error or a missing answer does.
# --short: 1,000 long-polls over 20 VMs (forewarn, then the baseline),
# then the soak with 200 VMs, a warm-up of 1 s and 4 s of load at
# --time-scale 300 (-lag 1s, a burst every 4 s, a user operation every
# 250 ms, no wait for a garbage collection); `poll --short` is 200 VMs for
# 5 s at --time-scale 300. The load and the server each hold a descriptor
# per long-poll: the script tries ulimit -n 65536 and needs --clients +
# 1000.
# Every process started is stopped at exit. Loopback only.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
prog=fleet-load.sh
. scripts/lib.sh

mode=default
short=0
clients=
lp_vms=
runs=1
vms=
duration=
warmup=
time_scale=
campaign=1
while [ $# -gt 0 ]; do
  case "$1" in
    longpoll|poll|soak|both) mode=$1; shift ;;
    --short) short=1; shift ;;
    --no-campaign) campaign=0; shift ;;
    --clients|--lp-vms|--runs|--vms|--duration|--warmup|--time-scale)
      [ $# -ge 2 ] || { echo "fleet-load.sh: $1 needs a value" >&2; exit 2; }
      v=${1#--}; v=${v//-/_}; printf -v "$v" '%s' "$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fleet-load.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$mode" = default ]; then
  mode=both
  [ "$short" = 0 ] || mode=longpoll+soak
fi
if [ "$short" = 1 ]; then
  : "${clients:=1000}" "${lp_vms:=20}" "${vms:=200}" "${time_scale:=300}" "${warmup:=1s}"
  if [[ "$mode" == *soak ]]; then : "${duration:=4s}"; else : "${duration:=5s}"; fi
else
  : "${clients:=10000}" "${lp_vms:=100}" "${vms:=2000}" "${time_scale:=60}" "${warmup:=1m}"
  if [ "$mode" = soak ]; then : "${duration:=10m}"; else : "${duration:=60s}"; fi
fi
for v in clients lp_vms runs vms; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "fleet-load.sh: --${v//_/-} takes a whole number from 1" >&2; exit 2; }
done
for v in duration warmup; do
  [[ "${!v}" =~ ^[0-9]+$ ]] && printf -v "$v" '%ss' "${!v}" # a number is seconds
  [[ "${!v}" =~ ^([0-9]+(ms|s|m|h))+$ && "${!v}" =~ [1-9] ]] ||
    { echo "fleet-load.sh: --$v takes seconds or a duration such as 90s or 10m, more than 0" >&2; exit 2; }
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
base_pid=
cleanup() {
  local pid
  for pid in $fw_pid $base_pid; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

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
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($12 + $13) / hz }' <<<"$stat"
}

# lp_load NAME RUN ARG...: runs `fleetload longpoll` on the longpoll
# layout with the arguments, its JSON in $tmp/lp-NAME-RUN.json, and prints
# its summary.
lp_load() {
  local name=$1 r=$2
  shift 2
  "$tmp/fleetload" longpoll "${lp_layout[@]}" -clients "$clients" -json "$@" \
    >"$tmp/lp-$name-$r.json" 2>"$tmp/lp-$name-$r.log" ||
    { cat "$tmp/lp-$name-$r.log" >&2; die "longpoll run $r against $name failed"; }
  grep -v "^longpoll: " "$tmp/lp-$name-$r.log" | sed "s/^/$name: /" || true
}

# start_baseline RUN: fetches forewarn's document as the first VM (the one
# its long-polls got after the change of run RUN) and starts the baseline
# with those bytes, tagged one incarnation less: its POST /trigger then
# makes its long-polls get the same bytes and ETag. Sets base_pid and
# base_addr.
start_baseline() {
  local r=$1 doc=$tmp/doc-$1.json etag n
  curl -sS -f --interface 127.2.0.1 -H 'Metadata: true' -D "$doc.headers" -o "$doc" "http://$meta$lp_path" ||
    die "GET forewarn's document as ${lp_layout[1]}-0-0 failed"
  etag=$(tr -d '\r' <"$doc.headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
  n=${etag//\"/}
  [[ "$n" =~ ^[0-9]+$ && "$n" -gt 1 ]] || die "forewarn's ETag $etag is not a quoted incarnation above 1"
  [ "\"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["new_etag"])' "$tmp/lp-forewarn-$r.json")\"" = "$etag" ] ||
    die "forewarn's document changed since its long-polls were answered: ETag $etag"
  "$tmp/baseline" --body "$doc" --etag "\"$((n - 1))\"" 2>"$tmp/baseline-$r.log" &
  base_pid=$!
  base_addr=$(wait_addr "$tmp/baseline-$r.log" 'listening')
  curl -sS -f -H 'Metadata: true' -o "$doc.baseline" "http://$base_addr$lp_path" || die "GET the baseline's document failed"
  cmp -s "$doc" "$doc.baseline" || die "the baseline answers other bytes than forewarn's document"
}

# stop_baseline: says the baseline's peak RSS, and stops it.
stop_baseline() {
  echo "baseline: peak RSS $(rss "$base_pid")"
  kill "$base_pid"
  wait "$base_pid" || die "the baseline failed: $(cat "$tmp/baseline-$r.log")"
  base_pid=
}

run_longpoll() {
  local r
  lp_layout=(-prefix lp -scopes 1 -vms "$lp_vms" -base 127.2.0.1)
  lp_path='/metadata/scheduledevents?api-version=2020-07-01'
  echo "== longpoll: $clients long-polls over $lp_vms VMs of one scope, $runs run(s), forewarn then the baseline"
  start_serve longpoll --rate-limit 0 --max-user-ops 1000
  apply_fleet "$tmp/lp.yaml" "${lp_layout[@]}"
  for r in $(seq "$runs"); do
    [ "$runs" = 1 ] || echo "-- run $r"
    lp_load forewarn "$r" -url "http://$meta" -admin "http://$admin" -token-file "$data/admin.token" -server-pid "$fw_pid"
    start_baseline "$r"
    lp_load baseline "$r" -url "http://$base_addr" -trigger "http://$base_addr/trigger" -server-pid "$base_pid"
    stop_baseline
  done
  echo "serve: peak RSS $(rss "$fw_pid")"
  stop_serve
  echo
  python3 - "$runs" "$tmp" <<'PY'
import json, statistics, sys
runs, tmp = int(sys.argv[1]), sys.argv[2]
load = lambda name, r: json.load(open(f"{tmp}/lp-{name}-{r}.json"))
def row(fw, base):
    cpu = [x["cpu_during_change"]["server_cpu_ms"] * 1000 / x["answered"] for x in (fw, base)]
    lat = [x["latency_from_change"] for x in (fw, base)]
    fan = [x["fan_out_from_first_answer"]["p99_ms"] for x in (fw, base)]
    return [lat[0]["p50_ms"], lat[0]["p99_ms"], lat[1]["p50_ms"], lat[1]["p99_ms"],
            lat[0]["p99_ms"] / lat[1]["p99_ms"], fan[0], fan[1], fan[0] / fan[1],
            cpu[0], cpu[1], cpu[0] / cpu[1]]
rows = [row(load("forewarn", r), load("baseline", r)) for r in range(1, runs + 1)]
if runs > 1:
    rows.append(("median",) + tuple(statistics.median(c) for c in zip(*rows)))
print("latency from the change to each answer's arrival; fan-out from the first answer's arrival;")
print("server CPU from the change to the last answer, per answer")
print()
print("| run | forewarn p50 / p99 ms | baseline p50 / p99 ms | p99 forewarn/baseline "
      "| fan-out p99 ms forewarn / baseline | fan-out p99 forewarn/baseline "
      "| CPU µs/answer forewarn / baseline | CPU forewarn/baseline |")
print("|---|---|---|---|---|---|---|---|")
for i, x in enumerate(rows):
    label = x[0] if isinstance(x, tuple) else i + 1
    x = x[1:] if isinstance(x, tuple) else x
    print(f"| {label} | {x[0]:.1f} / {x[1]:.1f} | {x[2]:.1f} / {x[3]:.1f} | {x[4]:.2f} "
          f"| {x[5]:.1f} / {x[6]:.1f} | {x[7]:.2f} | {x[8]:.1f} / {x[9]:.1f} | {x[10]:.2f} |")
PY
}

run_poll() {
  local scopes=$((vms / 10)) layout before
  layout=(-prefix load -scopes "$scopes" -vms 10 -update-domains 5 -base 127.1.0.1)
  echo "== poll: $vms VMs in $scopes scopes, once a second for $duration, during a campaign (time scale $time_scale)"
  start_serve poll --dev --time-scale "$time_scale"
  apply_fleet "$tmp/poll.yaml" "${layout[@]}"
  if [ "$campaign" = 1 ]; then
    cli maintenance start --type Reboot --all --parallel-scopes $((scopes + 1)) -o json >"$tmp/campaign.json" ||
      die "maintenance start: $(cat "$tmp/campaign.json")"
  fi
  before=$(cpu_s "$fw_pid")
  "$tmp/fleetload" poll "${layout[@]}" -url "http://$meta" -duration "$duration" ||
    die "the poll load saw errors (above)"
  echo "serve: $(awk -v a="$before" -v b="$(cpu_s "$fw_pid")" 'BEGIN { printf "%.1f", b - a }') s CPU during the load, peak RSS $(rss "$fw_pid")"
  [ "$campaign" = 0 ] || cli maintenance campaigns | sed 's/^/campaign: /'
  stop_serve
  poll_compare "${layout[@]}"
}

# poll_load NAME URL PID ARG...: runs the polling alone (no approvals, no
# bursts) against the server at URL, its JSON in $tmp/poll-NAME.json, and
# the server's CPU seconds meanwhile in $tmp/poll-NAME.cpu.
poll_load() {
  local name=$1 url=$2 pid=$3 before
  shift 3
  before=$(cpu_s "$pid")
  "$tmp/fleetload" poll "$@" -url "$url" -duration "$duration" -approve 0 -burst-vms 0 -json \
    >"$tmp/poll-$name.json" 2>"$tmp/poll-$name.log" ||
    { cat "$tmp/poll-$name.log" >&2; die "the polling against $name saw errors"; }
  awk -v a="$before" -v b="$(cpu_s "$pid")" 'BEGIN { printf "%.2f", b - a }' >"$tmp/poll-$name.cpu"
}

# poll_compare LAYOUT...: the same-run comparison of issue 18: the same
# VMs poll a fresh forewarn with no maintenance under way, then the
# baseline (a minimal net/http server) given forewarn's document, each for
# --duration; it prints both servers' CPU per poll and GET p99, and the
# ratio with the target (CPU per poll at most 0.8x the baseline's).
poll_compare() {
  local doc=$tmp/poll-doc.json etag
  echo "-- the polling alone (no approvals, no bursts, no campaign): forewarn, then the baseline"
  start_serve poll-compare --dev --time-scale "$time_scale"
  apply_fleet "$tmp/poll-compare.yaml" "$@"
  poll_load forewarn "http://$meta" "$fw_pid" "$@"
  # As the first VM of the layout (-base 127.1.0.1).
  curl -sS -f --interface 127.1.0.1 -H 'Metadata: true' -D "$doc.headers" -o "$doc" \
    "http://$meta/metadata/scheduledevents?api-version=2020-07-01" || die "GET forewarn's document failed"
  etag=$(tr -d '\r' <"$doc.headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
  stop_serve
  "$tmp/baseline" --body "$doc" --etag "$etag" 2>"$tmp/poll-baseline.log" &
  base_pid=$!
  base_addr=$(wait_addr "$tmp/poll-baseline.log" 'listening')
  poll_load baseline "http://$base_addr" "$base_pid" "$@"
  kill "$base_pid"
  wait "$base_pid" || die "the baseline failed: $(cat "$tmp/poll-baseline.log")"
  base_pid=
  python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def load(name):
    r = json.load(open(f"{tmp}/poll-{name}.json"))
    cpu = float(open(f"{tmp}/poll-{name}.cpu").read())
    return r["requests"], cpu * 1e6 / r["requests"], r["get_latency"]["p99_ms"]
fw, base = load("forewarn"), load("baseline")
ratio = round(fw[1] / base[1], 2)
print()
print("| server | GETs | CPU µs/poll | GET p99 ms |")
print("|---|---|---|---|")
print(f"| baseline (net/http) | {base[0]} | {base[1]:.1f} | {base[2]:.2f} |")
print(f"| forewarn | {fw[0]} | {fw[1]:.1f} | {fw[2]:.2f} |")
print(f"| forewarn / baseline | | {ratio:.2f} (<= 0.8 {'PASS' if ratio <= 0.8 else 'MISS'}) "
      f"| {fw[2] / base[2]:.2f} (forewarn <= 5 ms {'PASS' if fw[2] <= 5 else 'MISS'}) |")
PY
}

run_soak() {
  local scopes=$((vms / 10)) layout before brief=()
  layout=(-prefix load -scopes "$scopes" -vms 10 -update-domains 5 -base 127.1.0.1)
  [ "$short" = 0 ] || brief=(-lag 1s -burst-every 4s -op-every 250ms -log-every 10s
    -settle 2500ms -samples 3 -sample-every 200ms -gc-wait 0)
  echo "== soak: $vms VMs in $scopes scopes, once a second, a warm-up of $warmup then $duration, campaigns one after another and user operations (time scale $time_scale)"
  start_serve soak --dev --time-scale "$time_scale"
  apply_fleet "$tmp/soak.yaml" "${layout[@]}"
  before=$(cpu_s "$fw_pid")
  "$tmp/fleetload" soak "${layout[@]}" -url "http://$meta" -admin "http://$admin" -token-file "$data/admin.token" \
    -warmup "$warmup" -duration "$duration" "${brief[@]}" ||
    die "the soak failed (above)"
  echo "serve: $(awk -v a="$before" -v b="$(cpu_s "$fw_pid")" 'BEGIN { printf "%.1f", b - a }') s CPU during the soak, peak RSS $(rss "$fw_pid")"
  stop_serve
}

echo "building forewarn, fleetload and the baseline ..." >&2
go build -o "$tmp/forewarn" ./cmd/forewarn
go build -o "$tmp/fleetload" ./internal/tools/fleetload
go build -o "$tmp/baseline" ./internal/tools/baseline
echo "machine: $(nproc) cores, $(free -m | awk '$1 == "Mem:" { print $2 " MB" }'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
case "$mode" in
  longpoll) run_longpoll ;;
  poll) run_poll ;;
  soak) run_soak ;;
  both) run_longpoll; run_poll ;;
  longpoll+soak) run_longpoll; run_soak ;;
esac
