#!/usr/bin/env bash
# Builds the container image forewarn:TAG (README, "Container image"): a
# static forewarn binary built here (CGO_ENABLED=0, -trimpath, its version
# stamped with -ldflags -X main.version), Debian's CA certificates
# (/etc/ssl/certs/ca-certificates.crt, package ca-certificates) and an
# empty /data owned by uid 65532, copied by the root Containerfile into a
# FROM scratch image: no base image is pulled.
#
#   scripts/image.sh [TAG]
#
# The version is $VERSION if set, else `git describe --tags --always
# --dirty`; TAG defaults to it. $CONTAINER_ENGINE is the builder (default
# podman; docker works too). Prints the image's name on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
tag=${1:-$version}
engine=${CONTAINER_ENGINE:-podman}
certs=/etc/ssl/certs/ca-certificates.crt
[ -f "$certs" ] || { echo "image.sh: $certs is missing (apt-get install ca-certificates)" >&2; exit 1; }

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$ctx/forewarn" ./cmd/forewarn
cp "$certs" "$ctx/ca-certificates.crt"
mkdir "$ctx/data"
# podman keeps an image of each step unless told not to: none is worth
# keeping, as the binary changes at every build.
layers=(); [ "$(basename "$engine")" != podman ] || layers=(--layers=false)
"$engine" build --quiet "${layers[@]}" --file Containerfile --build-arg "VERSION=$version" --tag "forewarn:$tag" "$ctx" >&2
echo "forewarn:$tag"
