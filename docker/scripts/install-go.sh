#!/usr/bin/env bash
# Installs the pinned Go release ($GO_VERSION) into $GO_ROOT_DIR (default
# /usr/local/go) from the official linux-amd64 archive, after checking its sha256
# against $GO_SHA256_AMD64 (docker/versions.env). The lab image runs it; on a host
# that already has the pinned Go there it does nothing.
#
#   GO_ROOT_DIR   where Go goes (its parent must be writable)
#   GO_TARBALL    use this local archive instead of downloading one
#   GO_VERSION, GO_SHA256_AMD64  override the pins (the image's build arguments)
#   GO_SHA256     the archive's checksum on other architectures (no pin is kept)
set -euo pipefail
want_version="${GO_VERSION:-}"
want_sha="${GO_SHA256:-}"
pin_amd64="${GO_SHA256_AMD64:-}"
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
want_version="${want_version:-$GO_VERSION}"
pin_amd64="${pin_amd64:-$GO_SHA256_AMD64}"
root="${GO_ROOT_DIR:-/usr/local/go}"

arch="$(uname -m)"
case "$arch" in
  x86_64 | amd64) want_sha="${want_sha:-$pin_amd64}" ;;
  *) [[ -n "$want_sha" ]] || die "no pinned Go checksum for $arch: set GO_SHA256 (see docs/docker.md)" ;;
esac
[[ "$want_sha" =~ ^[0-9a-f]{64}$ ]] || die "GO_SHA256 '$want_sha' is not a sha256 hex digest"

# Already there: the first line of $root/VERSION is "go<version>" in every release.
if [[ -f "$root/VERSION" ]] && [[ "$(head -n1 "$root/VERSION")" == "go$want_version" ]] && [[ -x "$root/bin/go" ]]; then
  exit 0
fi

goarch=amd64
[[ "$arch" == aarch64 || "$arch" == arm64 ]] && goarch=arm64
name="go$want_version.linux-$goarch.tar.gz"
work="$(mktemp -d "${TMPDIR:-/tmp}/agx-go-XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [[ -n "${GO_TARBALL:-}" ]]; then
  cp "$GO_TARBALL" "$work/$name"
else
  command -v curl >/dev/null 2>&1 || die "curl is needed to download $name"
  log "downloading $name"
  curl -fsSL --retry 3 -o "$work/$name" "https://go.dev/dl/$name"
fi
got="$(sha256sum "$work/$name" | awk '{print $1}')"
[[ "$got" == "$want_sha" ]] || die "checksum mismatch for $name: got $got, want $want_sha"

mkdir -p "$work/unpack"
tar -C "$work/unpack" -xzf "$work/$name"
[[ -x "$work/unpack/go/bin/go" ]] || die "$name has no go/bin/go"
mkdir -p "$(dirname "$root")"
rm -rf "$root.old"
if [[ -e "$root" ]]; then
  mv "$root" "$root.old"
fi
mv "$work/unpack/go" "$root"
rm -rf "$root.old"
log "installed Go $want_version in $root"
