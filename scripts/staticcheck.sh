#!/usr/bin/env bash
# Runs staticcheck, the version scripts/deps.sh installs (pinned there),
# on every package; scripts/test.sh runs it, and it must find nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^staticcheck_version=//p' scripts/deps.sh)
bin="$HOME/.cache/forewarn/staticcheck-$version/staticcheck"
if [ ! -x "$bin" ]; then
  echo "staticcheck $version is not installed: run scripts/deps.sh" >&2
  exit 1
fi
exec "$bin" ./...
