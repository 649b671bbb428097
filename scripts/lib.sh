# Shell functions the load scripts share (scripts/load.sh, scripts/fleet-load.sh).
# Source it from the repository's root, with prog set to the script's name.

# die MESSAGE...: says what went wrong, as $prog, and exits 1.
die() {
  echo "$prog: $*" >&2
  exit 1
}

# wait_addr LOG PATTERN: prints the address of the first "PATTERN addr=X"
# in LOG, waiting for it at most 30 s.
wait_addr() {
  local addr
  for _ in $(seq 300); do
    addr=$(sed -n "s/.*$2 addr=\([^ ]*\).*/\1/p" "$1" | head -n 1)
    if [ -n "$addr" ]; then
      echo "$addr"
      return 0
    fi
    sleep 0.1
  done
  echo "$prog: no \"$2\" line in $1 after 30 s:" >&2
  cat "$1" >&2
  return 1
}
