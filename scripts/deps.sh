#!/usr/bin/env bash
# Installs the programs the tests need beyond Go, from Debian's packages,
# when they are missing: curl and python3 (the seed examples), etcd
# (etcd-server: the failover test's three-member cluster; not needed when
# $FOREWARN_ETCD_BIN names an etcd binary), wrk (the load benchmark,
# scripts/load.sh), iproute2 (the network-namespace test) and chromium (the
# dashboard's browser tests; not needed when $FOREWARN_CHROMIUM names a
# Chromium binary), podman and runc (the container image's test,
# e2e/image_test.go: crun, podman's default runtime, cannot set rlimits on
# these machines), systemd (its systemd-analyze verifies
# examples/forewarn.service), zip (scripts/release.sh's Windows archive),
# axe-core and staticcheck (below).
set -euo pipefail
missing=()
command -v curl >/dev/null || missing+=(curl)
command -v python3 >/dev/null || missing+=(python3)
[ -n "${FOREWARN_ETCD_BIN:-}" ] || command -v etcd >/dev/null || missing+=(etcd-server)
command -v wrk >/dev/null || missing+=(wrk)
command -v ip >/dev/null || missing+=(iproute2)
[ -n "${FOREWARN_CHROMIUM:-}" ] || command -v chromium >/dev/null || missing+=(chromium)
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v systemd-analyze >/dev/null || missing+=(systemd)
command -v zip >/dev/null || missing+=(zip)
axe_version=4.14.1
axe_dir="$HOME/.cache/forewarn/axe-core-$axe_version"
need_axe=; [ -n "${FOREWARN_AXE:-}" ] || [ -f "$axe_dir/axe.min.js" ] || need_axe=1
[ -z "$need_axe" ] || command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}"
fi

# axe-core, for the dashboard's accessibility checks (e2e/browser_test.go),
# from the npm registry, pinned; not needed when $FOREWARN_AXE names its
# axe.min.js. npm checks the package's integrity against the registry's.
if [ -n "$need_axe" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "axe-core@$axe_version" >/dev/null && tar xzf "axe-core-$axe_version.tgz")
  mkdir -p "$axe_dir"
  cp "$tmp/package/axe.min.js" "$tmp/package/LICENSE" "$axe_dir/"
  rm -rf "$tmp"
fi

# staticcheck, pinned, from the Go module proxy, into the same cache;
# scripts/staticcheck.sh runs it.
staticcheck_version=v0.8.2
staticcheck_dir="$HOME/.cache/forewarn/staticcheck-$staticcheck_version"
if [ ! -x "$staticcheck_dir/staticcheck" ]; then
  GOBIN="$staticcheck_dir" go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
