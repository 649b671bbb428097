#!/usr/bin/env bash
# Builds forewarn's release archives into dist/ (gitignored):
#
#   scripts/release.sh v1.2.3               # a release: a clean checkout, a semantic version
#   scripts/release.sh v1.2.3 --image       # and the container image (scripts/image.sh)
#   scripts/release.sh v0.0.0-ci --snapshot # CI: any version, uncommitted changes allowed
#
# Every package must build for every target. One archive per target: forewarn_VERSION_OS_ARCH.tar.gz (.zip for
# Windows) holding the binary, README.md and examples/forewarn.service, and
# dist/SHA256SUMS over them. The binaries are static (CGO_ENABLED=0), built
# with -trimpath, and stamped with the version, the build time (UTC, or
# $SOURCE_DATE_EPOCH's), the git revision and whether the checkout was
# modified: "forewarn version" prints them.
#
# Then every archive is checked: SHA256SUMS matches, the archive holds the
# binary, built for its target (go version -m) with the stamped version in
# it, and the one for this machine's platform runs and reports the version
# (forewarn version -o json).
#
# The image: build_image below calls scripts/image.sh VERSION. A release
# builds it when scripts/image.sh exists and --no-image is not given; a
# snapshot only with --image.
set -euo pipefail
cd "$(dirname "$0")/.."
prog=scripts/release.sh
. scripts/lib.sh

targets=(linux/amd64 linux/arm64 darwin/arm64 windows/amd64)

usage() { die "usage: $prog VERSION [--snapshot] [--image | --no-image]"; }

version="" snapshot="" image=""
for arg in "$@"; do
  case "$arg" in
  --snapshot) snapshot=1 ;;
  --image) image=yes ;;
  --no-image) image=no ;;
  -*) usage ;;
  *) [ -z "$version" ] || usage; version=$arg ;;
  esac
done
[ -n "$version" ] || usage
semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'
[[ "$version" =~ $semver ]] || die "$version is not a semantic version with its v (v1.2.3, v1.2.3-rc.1)"

revision=$(git rev-parse HEAD 2>/dev/null || true)
modified=false
if [ -n "$revision" ] && [ -n "$(git status --porcelain 2>/dev/null)" ]; then modified=true; fi
if [ -z "$snapshot" ]; then
  [ -n "$revision" ] || die "a release is built from a git checkout (or use --snapshot)"
  [ "$modified" = false ] || die "the checkout has uncommitted changes (or use --snapshot)"
fi
if [ -z "$image" ]; then
  image=no
  if [ -z "$snapshot" ] && [ -f scripts/image.sh ]; then image=yes; fi
fi
[ "$image" = no ] || [ -f scripts/image.sh ] || die "--image: there is no scripts/image.sh yet"

build_time=$(date -u ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"} +%Y-%m-%dT%H:%M:%SZ)
ldflags="-s -w -X main.version=$version -X main.buildTime=$build_time"
ldflags+=" -X main.revision=$revision -X main.modified=$modified"
dist=$PWD/dist

# build_binary OS ARCH OUT: a static, stamped forewarn for OS/ARCH at OUT.
build_binary() {
  CGO_ENABLED=0 GOOS=$1 GOARCH=$2 go build -trimpath -ldflags "$ldflags" -o "$3" ./cmd/forewarn
}

# archive OS ARCH: builds the binary and packs dist/forewarn_VERSION_OS_ARCH.*
# with fixed owners and times, so that the same inputs give the same bytes.
archive() {
  local name="forewarn_${version}_$1_$2" exe=forewarn
  [ "$1" != windows ] || exe=forewarn.exe
  local stage="$work/$name"
  mkdir -p "$stage"
  build_binary "$1" "$2" "$stage/$exe"
  cp README.md examples/forewarn.service "$stage/"
  touch -d "$build_time" "$stage" "$stage"/*
  if [ "$1" = windows ]; then
    command -v zip >/dev/null || die "zip is not installed (Debian: apt-get install zip; scripts/deps.sh)"
    (cd "$work" && zip -q -X -r "$dist/$name.zip" "$name")
  else
    tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="$build_time" \
      -czf "$dist/$name.tar.gz" "$name"
  fi
}

# check_archive FILE: the archive holds a binary whose build info has the
# stamped version and FILE's target; the host's own also runs and says so.
check_archive() {
  local file=$1 base os arch dir bin
  base=$(basename "$file"); base=${base%.tar.gz}; base=${base%.zip}
  arch=${base##*_}; os=${base%_*}; os=${os##*_}
  dir="$work/check/$base"
  mkdir -p "$dir"
  case "$file" in
  *.zip) python3 -m zipfile -e "$file" "$dir" ;; # unzip is not always installed; python3 is (deps.sh)
  *) tar -C "$dir" -xzf "$file" ;;
  esac
  bin="$dir/$base/forewarn"; [ "$os" != windows ] || bin+=.exe
  [ -f "$bin" ] || die "$file: no $base/$(basename "$bin")"
  # With -trimpath, Go leaves -ldflags out of the build info: the stamped
  # version is checked in the binary's bytes, where -X put it.
  local info; info=$(go version -m "$bin") || die "$file: go version -m: not a Go binary"
  for want in "GOOS=$os" "GOARCH=$arch" "CGO_ENABLED=0" "-trimpath=true"; do
    grep -qE -- "^\s*build\s+$want\$" <<<"$info" || die "$file: the build info has no $want:
$info"
  done
  grep -qaF -- "$version" "$bin" || die "$file: the binary does not hold the version $version"
  if [ "$os/$arch" = "$(go env GOHOSTOS)/$(go env GOHOSTARCH)" ]; then
    local out; out=$("$bin" version -o json) || die "$file: forewarn version -o json failed"
    grep -qxF "  \"version\": \"$version\"," <<<"$out" || die "$file: forewarn version -o json says
$out
not version $version"
    echo "$base: runs, and reports $version"
  else
    echo "$base: built for $os/$arch, static, stamped $version"
  fi
}

# build_image: the container image forewarn:VERSION, by scripts/image.sh
# (which builds its own binary for the image's platform).
build_image() {
  bash scripts/image.sh "$version"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$dist"
mkdir -p "$dist"
state=""; [ "$modified" = false ] || state=" (modified)"
echo "forewarn $version${snapshot:+ (snapshot)}, revision ${revision:-unknown}$state, built $build_time"
for t in "${targets[@]}"; do
  start=$SECONDS
  # Every package builds on every target, not only the command; with the
  # archive's flags, so that the two builds share their compiled packages.
  CGO_ENABLED=0 GOOS=${t%/*} GOARCH=${t#*/} go build -trimpath ./... || die "a package does not build for $t"
  archive "${t%/*}" "${t#*/}"
  echo "$t: every package builds; archive in $((SECONDS - start)) s"
done
(cd "$dist" && sha256sum -- *.tar.gz *.zip >SHA256SUMS)

(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || die "dist/SHA256SUMS does not match the archives"
for f in "$dist"/*.tar.gz "$dist"/*.zip; do check_archive "$f"; done

[ "$image" = no ] || build_image
ls -l "$dist"
