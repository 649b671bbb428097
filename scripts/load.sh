#!/usr/bin/env bash
# Load benchmark of the metadata endpoint (BENCHMARKS.md, issues 6 and 18):
# wrk against the real `forewarn serve` and against two minimal servers
# (internal/tools/baseline) that check the same header and query and write
# the same bytes, one on net/http and one on fasthttp, in the same run, and
# the ratios of forewarn to each.
#
#   scripts/load.sh                      # 10 s per run, 64 connections
#   scripts/load.sh --duration 30s --connections 128
#   scripts/load.sh --short              # a smoke run, about 7 s with a warm build cache (CI)
#
# It installs wrk first if it is missing (scripts/deps.sh), builds forewarn
# and the baseline (no -race) into a temporary directory, and starts
#
#   forewarn serve --dev --time-scale 0.01 --rate-limit 0 --data-dir TMP
#     --metadata-addr 127.0.0.1:0 --admin-addr 127.0.0.1:0
#
# (--time-scale 0.01 stretches the notice to a day, so that the document
# cannot change during the runs). With the CLI it creates 9 VMs in the
# default scope and restarts or redeploys them and the host's own VM: 10
# events in Scheduled. It fetches the document once with curl as the host's
# VM (127.0.0.1) and gives the baseline those exact bytes and that ETag.
#
# Then, for each row (200: GET of the document; 304: the same with
# If-None-Match of the current ETag), it runs
#
#   wrk -t2 -cN -dD --latency -H 'Metadata: true' URL?api-version=2020-07-01
#
# against the net/http baseline, the fasthttp one, forewarn, then both
# baselines again, each after a 1 s warm-up, and reads the server's CPU time
# (utime+stime of /proc/PID/stat) before and after. Nothing is pinned: wrk
# (2 threads) and the server share the machine's cores, so the numbers are
# only meaningful as ratios. Each baseline's figure is the better of its two
# runs, per column (the stricter comparison). --short runs 1 s per run,
# without warm-up and without the second baseline runs.
#
# It prints a Markdown table: requests/s, server CPU µs per request, p50,
# p99; forewarn/net/http with issue 18's targets (requests/s at least 1.5x,
# CPU per request at most 0.67x) marked PASS or MISS, and forewarn/fasthttp,
# the engine to come close to. A MISS does not fail the script; it exits 1 only if something did
# not run (a build, a server, wrk, an answer other than the expected
# status, or a document that changed during the runs). Every process it
# started is stopped at exit. Loopback only.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
prog=load.sh
. scripts/lib.sh

duration=10s
connections=64
short=0
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="${2:-}"; shift $(( $# > 1 ? 2 : 1 )) ;;
    --duration=*) duration="${1#--duration=}"; shift ;;
    --connections) connections="${2:-}"; shift $(( $# > 1 ? 2 : 1 )) ;;
    --connections=*) connections="${1#--connections=}"; shift ;;
    --short) short=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "load.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ "$short" = 1 ] && duration=1s
if ! [[ "$duration" =~ ^[1-9][0-9]*[smh]$ ]]; then
  echo "load.sh: --duration takes a whole number of s, m or h (10s, 2m)" >&2
  exit 2
fi
if ! [[ "$connections" =~ ^[1-9][0-9]*$ ]] || [ "$connections" -lt 2 ]; then
  echo "load.sh: --connections takes a whole number from 2 (wrk runs 2 threads)" >&2
  exit 2
fi

scripts/deps.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/forewarn-load.XXXXXX")
pids=()
wrk_pid= # the wrk running, if any
cleanup() {
  local pid
  for pid in $wrk_pid "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in $wrk_pid "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# cpu_ticks PID: the process's user plus system CPU time, in clock ticks.
# Fields 14 and 15 of /proc/PID/stat, counted after the ") " that ends the
# command name (which may hold spaces).
cpu_ticks() {
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }
  awk '{ print $12 + $13 }' <<<"$stat"
}

echo "building forewarn and the baseline ..." >&2
go build -o "$tmp/forewarn" ./cmd/forewarn
go build -o "$tmp/baseline" ./internal/tools/baseline

mkdir "$tmp/data"
"$tmp/forewarn" serve --dev --time-scale 0.01 --rate-limit 0 --data-dir "$tmp/data" \
  --metadata-addr 127.0.0.1:0 --admin-addr 127.0.0.1:0 2>"$tmp/forewarn.log" &
fw_pid=$!
pids+=("$fw_pid")
fw_addr=$(wait_addr "$tmp/forewarn.log" 'api=metadata')
admin_addr=$(wait_addr "$tmp/forewarn.log" 'api=admin')
host_vm=$(sed -n 's/.*msg="default VM" name=\([^ ]*\).*/\1/p' "$tmp/forewarn.log" | head -n 1)
[ -n "$host_vm" ] || die "forewarn logged no default VM: $(cat "$tmp/forewarn.log")"

# The document: 10 events of the default scope, 7 restarts and 3 redeploys.
cli() { "$tmp/forewarn" --server "http://$admin_addr" --data-dir "$tmp/data" "$@" >/dev/null; }
cli vm restart "$host_vm"
for i in $(seq 9); do
  cli vm create "bench-$i" --scope default
  if [ "$i" -le 3 ]; then cli vm redeploy "bench-$i"; else cli vm restart "bench-$i"; fi
done

path='/metadata/scheduledevents?api-version=2020-07-01'
# etag_of URL: fetches the document into $tmp/body.json and prints its ETag.
etag_of() {
  curl -sS -f -o "$tmp/body.json" -D "$tmp/headers" -H 'Metadata: true' "$1" ||
    die "GET $1 failed"
  tr -d '\r' <"$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p'
}
etag=$(etag_of "http://$fw_addr$path")
[ -n "$etag" ] || die "forewarn's answer has no ETag"
cp "$tmp/body.json" "$tmp/document.json"
events=$(grep -o '"EventId"' "$tmp/document.json" | wc -l)
[ "$events" -eq 10 ] || die "the document holds $events events, want 10: $(cat "$tmp/document.json")"

"$tmp/baseline" --body "$tmp/document.json" --etag "$etag" 2>"$tmp/baseline.log" &
base_pid=$!
pids+=("$base_pid")
base_addr=$(wait_addr "$tmp/baseline.log" 'listening')
[ "$(etag_of "http://$base_addr$path")" = "$etag" ] || die "the baseline answers another ETag"
cmp -s "$tmp/body.json" "$tmp/document.json" || die "the baseline answers another body"
"$tmp/baseline" --engine fasthttp --body "$tmp/document.json" --etag "$etag" 2>"$tmp/fasthttp.log" &
fast_pid=$!
pids+=("$fast_pid")
fast_addr=$(wait_addr "$tmp/fasthttp.log" 'listening')
[ "$(etag_of "http://$fast_addr$path")" = "$etag" ] || die "the fasthttp baseline answers another ETag"
cmp -s "$tmp/body.json" "$tmp/document.json" || die "the fasthttp baseline answers another body"

# run_wrk OUT ARG...: runs wrk with the arguments, its output in OUT. It runs
# in the background so that a signal stops the script, and wrk, at once.
run_wrk() {
  local out=$1
  shift
  wrk "$@" >"$out" 2>&1 &
  wrk_pid=$!
  wait "$wrk_pid" || die "wrk $*: $(cat "$out")"
  wrk_pid=
}

# measure NAME PID ADDR STATUS [HEADER]: runs wrk against the server, checks
# that its answer has STATUS, and adds "NAME req/s cpu-µs/req p50-µs p99-µs"
# (latencies from wrk's distribution) to $tmp/runs.
measure() {
  local name=$1 pid=$2 url="http://$3$path" status=$4 hdr=(-H 'Metadata: true') before after got
  [ -n "${5:-}" ] && hdr+=(-H "$5")
  [ "$short" = 1 ] || run_wrk "$tmp/warm-up" -t2 "-c$connections" -d1s "${hdr[@]}" "$url"
  before=$(cpu_ticks "$pid")
  run_wrk "$tmp/wrk.out" -t2 "-c$connections" "-d$duration" --latency "${hdr[@]}" "$url"
  after=$(cpu_ticks "$pid")
  if grep -q 'Non-2xx or 3xx' "$tmp/wrk.out"; then
    die "$name answered errors under load: $(cat "$tmp/wrk.out")"
  fi
  # wrk cannot tell 200 from 304: check one answer with curl.
  got=$(curl -sS -o /dev/null -w '%{http_code}' "${hdr[@]}" "$url") || die "GET $url failed"
  [ "$got" = "$status" ] || die "$name answered $got, want $status"
  awk -v name="$name" -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" '
    function us(v) {
      if (v ~ /us$/) return v + 0
      if (v ~ /ms$/) return v * 1000
      if (v ~ /m$/) return v * 60e6
      if (v ~ /s$/) return v * 1e6
      return -1
    }
    $2 == "requests" && $3 == "in" { n = $1 }
    $1 == "Requests/sec:" { rps = $2 }
    $1 == "50%" { p50 = us($2) }
    $1 == "99%" { p99 = us($2) }
    $1 == "Socket" { errors = $0 }
    END {
      if (n == 0 || p50 == "" || p99 == "") exit 1
      if (errors != "") print "  " name ": " errors > "/dev/stderr"
      printf "%s %.0f %.2f %.0f %.0f\n", name, rps, ticks * 1e6 / hz / n, p50, p99
    }' "$tmp/wrk.out" >>"$tmp/runs" || die "cannot read wrk's output for $name: $(cat "$tmp/wrk.out")"
}

# row LABEL STATUS [HEADER]: measures both baselines, forewarn and both
# baselines again, and adds the row's lines to $tmp/table: each baseline's
# better figure per column, forewarn's, and the ratios, to net/http with
# the issue's targets, to fasthttp as they are.
row() {
  local label=$1
  : >"$tmp/runs"
  measure nethttp "$base_pid" "$base_addr" "$2" "${3:-}"
  measure fasthttp "$fast_pid" "$fast_addr" "$2" "${3:-}"
  measure forewarn "$fw_pid" "$fw_addr" "$2" "${3:-}"
  if [ "$short" = 0 ]; then
    measure nethttp "$base_pid" "$base_addr" "$2" "${3:-}"
    measure fasthttp "$fast_pid" "$fast_addr" "$2" "${3:-}"
  fi
  echo "  $label: $(paste -sd'|' "$tmp/runs" | sed 's/|/ | /g')" >&2
  awk -v label="$label" '
    function mark(ok) { return ok ? "PASS" : "MISS" }
    function round(x) { return sprintf("%.2f", x) + 0 }
    function better(b, col, v, higher) {
      if (!((b, col) in base) || (higher ? v > base[b, col] : v < base[b, col])) base[b, col] = v
    }
    $1 != "forewarn" { runs[$1]++; better($1, 2, $2, 1); better($1, 3, $3, 0); better($1, 4, $4, 0); better($1, 5, $5, 0) }
    $1 == "forewarn" { rps = $2; cpu = $3; p50 = $4; p99 = $5 }
    END {
      split("nethttp fasthttp", names, " ")
      for (i = 1; i <= 2; i++) {
        b = names[i]
        printf "| %s %s baseline (%s) | %.0f | %.1f | %.0f | %.0f |\n", label, b,
          runs[b] == 1 ? "1 run" : "better of " runs[b], base[b, 2], base[b, 3], base[b, 4], base[b, 5]
      }
      printf "| %s forewarn | %.0f | %.1f | %.0f | %.0f |\n", label, rps, cpu, p50, p99
      # Judged as shown, to two decimals.
      r = round(rps / base["nethttp", 2]); c = round(cpu / base["nethttp", 3])
      printf "| %s forewarn / net/http | %.2f (>= 1.5 %s) | %.2f (<= 0.67 %s) | %.2f | %.2f |\n",
        label, r, mark(r >= 1.5), c, mark(c <= 0.67), p50 / base["nethttp", 4], p99 / base["nethttp", 5]
      printf "| %s forewarn / fasthttp | %.2f | %.2f | %.2f | %.2f |\n", label, rps / base["fasthttp", 2],
        cpu / base["fasthttp", 3], p50 / base["fasthttp", 4], p99 / base["fasthttp", 5]
    }' "$tmp/runs" >>"$tmp/table"
}

echo "forewarn on $fw_addr (pid $fw_pid), net/http baseline on $base_addr (pid $base_pid), fasthttp on $fast_addr (pid $fast_pid)" >&2
echo "  each run: name req/s cpu-us/req p50-us p99-us" >&2
row 200 200
row 304 304 "If-None-Match: $etag"
[ "$(etag_of "http://$fw_addr$path")" = "$etag" ] || die "forewarn's document changed during the runs"

echo "wrk -t2 -c$connections -d$duration --latency; $(nproc) cores shared by wrk and the servers, nothing pinned"
echo
echo "| row | requests/s | CPU µs/request | p50 µs | p99 µs |"
echo "|---|---|---|---|---|"
cat "$tmp/table"
