#!/usr/bin/env bash
# Runs the examples of the original Scheduled Events pages against a real
# `forewarn serve`: the curl GET, the curl POST approval, and the Python
# sample. As root, forewarn listens on 169.254.169.254:80 with
# --assign-address and the examples run word for word; otherwise it listens
# on 127.0.0.1 and the examples' URL is rewritten to it.
#
# Usage: scripts/seed-examples.sh [path/to/forewarn]
set -euo pipefail

cd "$(dirname "$0")/.."
work=$(mktemp -d)
bin=${1:-}
if [ -z "$bin" ]; then
  bin=$work/forewarn
  go build -o "$bin" ./cmd/forewarn
fi

pick_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
admin_port=$(pick_port)
base=http://169.254.169.254
serve_flags=(--metadata-addr 169.254.169.254:80 --assign-address)
if [ "$(id -u)" != 0 ] || ! python3 -c 'import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0",80))' 2>/dev/null; then
  port=$(pick_port)
  base=http://127.0.0.1:$port
  serve_flags=(--metadata-addr 127.0.0.1:$port)
fi

"$bin" serve --dev --data-dir "$work/data" --admin-addr 127.0.0.1:$admin_port "${serve_flags[@]}" 2>"$work/serve.log" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
export FOREWARN_SERVER=http://127.0.0.1:$admin_port
for _ in $(seq 100); do
  curl -sf "$FOREWARN_SERVER/healthz" >/dev/null && break
  sleep 0.1
done
export FOREWARN_TOKEN=$(cat "$work/data/admin.token")

fail() { echo "FAIL: $*" >&2; cat "$work/serve.log" >&2; exit 1; }
url="$base/metadata/scheduledevents?api-version=2017-03-01"

echo "== curl GET, no events"
# The seed's query, with the URL of this run.
out=$(curl -s -H Metadata:true "$url")
echo "$out"
[ "$out" = '{"DocumentIncarnation":1,"Events":[]}' ] || fail "unexpected empty document"

echo "== restart this host's VM ($(hostname)) through the admin CLI"
"$bin" vm restart "$(hostname)" -o json >"$work/event.json"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$work/event.json")

echo "== curl GET, one event"
out=$(curl -s -H Metadata:true "$url")
echo "$out"
python3 - "$out" "$id" "$(hostname)" <<'PY' || fail "event not in the document"
import json, sys
doc = json.loads(sys.argv[1])
[e] = doc["Events"]
assert doc["DocumentIncarnation"] == 2, doc
assert e["EventId"] == sys.argv[2] and e["EventType"] == "Reboot" and e["EventStatus"] == "Scheduled", e
assert e["Resources"] == [sys.argv[3]] and e["NotBefore"].endswith(" GMT"), e
assert set(e) == {"EventId", "EventType", "ResourceType", "Resources", "EventStatus", "NotBefore"}, e
PY

echo "== Python sample"
out=$(METADATA_URL=$url python3 examples/seed/sample.py)
echo "$out"
case "$out" in
  "+ Scheduled Event. This host is scheduled for Reboot not before "*_GMT) ;;
  *) fail "the Python sample did not see the event" ;;
esac

echo "== curl POST approval"
# The seed's approval, with the event's id in place of the example's.
code=$(curl -s -o "$work/post.out" -w '%{http_code}' -H Metadata:true -X POST \
  -d '{"DocumentIncarnation":"5", "StartRequests": [{"EventId": "'"$id"'"}]}' "$url")
[ "$code" = 200 ] || fail "POST answered $code: $(cat "$work/post.out")"

out=$(curl -s -H Metadata:true "$url")
echo "$out"
python3 - "$out" <<'PY' || fail "approved event did not start"
import json, sys
doc = json.loads(sys.argv[1])
[e] = doc["Events"]
assert doc["DocumentIncarnation"] == 3 and e["EventStatus"] == "Started" and e["NotBefore"] == "", doc
PY

echo "== the event completes and disappears (60 s of reboot at --dev's scale: 1 s)"
for _ in $(seq 100); do
  out=$(curl -s -H Metadata:true "$url")
  [ "$out" = '{"DocumentIncarnation":4,"Events":[]}' ] && break
  sleep 0.1
done
echo "$out"
[ "$out" = '{"DocumentIncarnation":4,"Events":[]}' ] || fail "event did not complete"
echo "PASS: every seed example works against forewarn"
