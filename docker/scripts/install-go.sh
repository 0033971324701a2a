#!/usr/bin/env bash
# Installs the pinned Go release ($GO_VERSION) into $GO_ROOT_DIR (default
# /usr/local/go). Go comes from the Go module proxy, which serves every release as
# the module golang.org/toolchain (version v0.0.1-go<version>.linux-<arch>): the
# same zip that `go` itself downloads when it switches toolchains. The zip is
# refused unless its go.sum hash (dirhash "h1:", computed here with coreutils)
# equals the pin $GO_H1_AMD64 of docker/versions.env. The lab image runs it; on a
# host that already has the pinned Go there it does nothing.
#
#   GO_ROOT_DIR   where Go goes (its parent must be writable)
#   GO_ZIP        use this local module zip instead of downloading one
#   GOPROXY       the proxy to download from: the first http(s) entry of the list
#                 (default: Go's own default proxy)
#   GO_VERSION, GO_H1_AMD64  override the pins (the image's build arguments)
#   GO_H1         the zip's h1: hash on other architectures (no pin is kept)
set -euo pipefail
want_version="${GO_VERSION:-}"
want_h1="${GO_H1:-}"
pin_amd64="${GO_H1_AMD64:-}"
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
want_version="${want_version:-$GO_VERSION}"
pin_amd64="${pin_amd64:-$GO_H1_AMD64}"
root="${GO_ROOT_DIR:-/usr/local/go}"

arch="$(uname -m)"
case "$arch" in
  x86_64 | amd64) goarch=amd64 want_h1="${want_h1:-$pin_amd64}" ;;
  aarch64 | arm64) goarch=arm64 ;;
  *) die "no Go toolchain for $arch here (linux-amd64 and linux-arm64 only)" ;;
esac
[[ -n "$want_h1" ]] || die "no pinned Go hash for $arch: set GO_H1 (see docs/docker.md, \"Refreshing the pins\")"
[[ "$want_h1" =~ ^h1:[A-Za-z0-9+/]{43}=$ ]] || die "GO_H1 '$want_h1' is not an h1: hash (h1: and 44 base64 characters)"

# Already there: the first line of $root/VERSION is "go<version>" in every release.
if [[ -f "$root/VERSION" ]] && [[ "$(head -n1 "$root/VERSION")" == "go$want_version" ]] && [[ -x "$root/bin/go" ]]; then
  exit 0
fi

# h1_of_tree DIR: the h1: hash (golang.org/x/mod/sumdb/dirhash.Hash1) of the files
# under DIR, named by their paths relative to DIR, which for an unpacked module zip
# are the zip's entry names. Hash1 is the sha256 of the lines "<sha256 hex>  <name>\n"
# of every file sorted by name (byte order), which is what sha256sum prints.
h1_of_tree() {
  local dir="$1" odd hex esc="" i nl=$'\n'
  # sha256sum escapes names holding a backslash or a newline (Hash1 rejects the
  # latter), and a link would be hashed as a file by Hash1 but is skipped here.
  odd="$(cd "$dir" && find . \( -type l -o -name '*\\*' -o -name "*${nl}*" \) -print -quit)"
  [[ -z "$odd" ]] || die "unexpected file name in the Go zip: $odd"
  hex="$(cd "$dir" && find . -type f -printf '%P\0' | LC_ALL=C sort -z |
    xargs -0 -r sha256sum | sha256sum | cut -c1-64)"
  [[ "$hex" =~ ^[0-9a-f]{64}$ ]] || die "could not hash $dir"
  for ((i = 0; i < 64; i += 2)); do esc+="\\x${hex:i:2}"; done
  printf 'h1:%s\n' "$(printf '%b' "$esc" | base64 -w0)"
}

module="golang.org/toolchain"
version="v0.0.1-go$want_version.linux-$goarch"
work="$(mktemp -d "${TMPDIR:-/tmp}/agx-go-XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [[ -n "${GO_ZIP:-}" ]]; then
  cp "$GO_ZIP" "$work/go.zip"
else
  proxy=""
  IFS=',|' read -r -a entries <<<"${GOPROXY:-}"
  for e in "${entries[@]}"; do
    if [[ "$e" == http://* || "$e" == https://* ]]; then proxy="${e%/}"; break; fi
  done
  [[ -n "$proxy" ]] || die "GOPROXY ('${GOPROXY:-}') names no http(s) Go module proxy to download Go from.
    Pass your proxy, e.g. docker build --build-arg GOPROXY=\"\$(go env GOPROXY)\" ... (make image does),
    or GOPROXY=\$(go env GOPROXY) docker compose ... (docs/docker.md)."
  command -v curl >/dev/null 2>&1 || die "curl is needed to download $module@$version"
  log "downloading $module@$version from $proxy"
  curl -fsSL --retry 3 -o "$work/go.zip" "$proxy/$module/@v/$version.zip" ||
    die "could not download $proxy/$module/@v/$version.zip"
fi
command -v unzip >/dev/null 2>&1 || ensure_debs unzip
mkdir -p "$work/unpack"
unzip -q "$work/go.zip" -d "$work/unpack" || die "$module@$version: not a readable zip"
got="$(h1_of_tree "$work/unpack")"
[[ "$got" == "$want_h1" ]] || die "checksum mismatch for $module@$version: got $got, want $want_h1"

top="$work/unpack/$module@$version"
[[ -x "$top/bin/go" ]] || die "$module@$version has no bin/go"
mkdir -p "$(dirname "$root")"
rm -rf "$root.old"
if [[ -e "$root" ]]; then
  mv "$root" "$root.old"
fi
mv "$top" "$root"
rm -rf "$root.old"
log "installed Go $want_version in $root"
