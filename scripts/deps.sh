#!/usr/bin/env bash
# Installs the programs the tests need beyond Go, from Debian's packages,
# when they are missing: curl and python3 (the seed examples), etcd
# (etcd-server: the failover test's three-member cluster; not needed when
# $FOREWARN_ETCD_BIN names an etcd binary), wrk (the load benchmark,
# scripts/load.sh), iproute2 (the network-namespace test) and chromium (the
# dashboard's browser tests; not needed when $FOREWARN_CHROMIUM names a
# Chromium binary).
set -euo pipefail
missing=()
command -v curl >/dev/null || missing+=(curl)
command -v python3 >/dev/null || missing+=(python3)
[ -n "${FOREWARN_ETCD_BIN:-}" ] || command -v etcd >/dev/null || missing+=(etcd-server)
command -v wrk >/dev/null || missing+=(wrk)
command -v ip >/dev/null || missing+=(iproute2)
[ -n "${FOREWARN_CHROMIUM:-}" ] || command -v chromium >/dev/null || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}"
