#!/bin/sh
# The readiness drill of a CI job: forewarn's image runs as a service
# container with its ports published on the job's host, the application
# under test runs on that host, and this script makes the host a VM of
# forewarn and runs the drill, writing drill-junit.xml and drill-report.md.
#
#   examples/ci/drill.sh CONTAINER [DRILL_FILE]
#
# CONTAINER is the service container's name or id (GitHub Actions:
# ${{ job.services.forewarn.id }}); DRILL_FILE defaults to drill.yaml next
# to this script. forewarn must be on the PATH. $CONTAINER_ENGINE (default
# docker), $FOREWARN_ENDPOINT (default http://127.0.0.1:8169) and
# $FOREWARN_SERVER (default http://127.0.0.1:8170) change where it looks.
# The exit status is the drill's: 0 passed, 1 a check failed, 2 it could
# not run.
set -u

die() { echo "drill.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: $0 CONTAINER [DRILL_FILE]"
container=$1
drill=${2:-$(dirname "$0")/drill.yaml}
engine=${CONTAINER_ENGINE:-docker}
endpoint=${FOREWARN_ENDPOINT:-http://127.0.0.1:8169}
export FOREWARN_SERVER="${FOREWARN_SERVER:-http://127.0.0.1:8170}"
command -v forewarn >/dev/null || die "forewarn is not on the PATH"

# Its own files (the token, the fleet file) go to a directory removed at
# the end; the reports to the working directory.
work=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$work"' EXIT

# 1. The admin token, which serve wrote in the container's volume at its
#    first start, and an admin API that answers.
i=0
until "$engine" cp "$container:/data/admin.token" "$work/admin.token" 2>/dev/null &&
  FOREWARN_TOKEN=$(cat "$work/admin.token") forewarn status >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 30 ] || die "no admin API with the token of $container:/data/admin.token after 30 s: $(forewarn status 2>&1)"
  sleep 1
done
FOREWARN_TOKEN=$(cat "$work/admin.token")
export FOREWARN_TOKEN

# 2. The host as a VM. Requests through a published port reach the
#    metadata endpoint from the container network's gateway (172.17.0.1 or
#    so under docker, 10.88.0.1 under podman), which the 403 names: that
#    address becomes the VM ci-runner of scope ci.
answer=$(curl -sS -H Metadata:true "$endpoint/metadata/scheduledevents?api-version=2020-07-01" 2>&1) ||
  die "the metadata endpoint $endpoint does not answer: $answer"
addr=$(printf '%s' "$answer" | sed -n 's/.*The address \([^ "]*\) belongs to no VM.*/\1/p')
if [ -n "$addr" ]; then
  cat > "$work/ci-fleet.yaml" <<FLEET
scopes:
  - name: ci
    kind: availability-set
    vms:
      - {name: ci-runner, addresses: ["$addr"]}
FLEET
  forewarn apply -f "$work/ci-fleet.yaml" >/dev/null || die "could not make $addr the VM ci-runner"
elif ! forewarn vm show ci-runner >/dev/null 2>&1; then
  die "the metadata endpoint answered $answer: want the 403 that names the job's address"
fi

# 3. The drill; its exit status is the script's.
forewarn drill run "$drill" --junit drill-junit.xml --report drill-report.md
