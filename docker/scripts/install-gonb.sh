#!/usr/bin/env bash
# Builds GoNB ($GONB_VERSION) and goimports ($GOIMPORTS_VERSION) into $AGX_PREFIX/bin
# (default $HOME/.local/share/agx/bin). With AGX_WITH_GOPLS=1 it also builds gopls.
#
# The module proxy refuses GoNB's version list, so `go install gonb@version` fails;
# each tool is built from a throwaway module that requires the pinned version.
# A binary whose embedded build info (`go version -m`) already shows the pinned
# version is kept, so a second run costs a few milliseconds.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_go
mkdir -p "$AGX_BIN"

# build_tool NAME MODULE VERSION PACKAGE: builds PACKAGE from a fresh module that
# requires MODULE@VERSION, and moves the binary into place atomically.
build_tool() {
  local name="$1" module="$2" version="$3" pkg="$4" work
  work="$(mktemp -d "${TMPDIR:-/tmp}/agx-tools-XXXXXX")"
  log "building $name ($module@$version); the first build takes ~1 min"
  if ! (
    cd "$work"
    export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off
    go mod init agx-tools-"$name" >/dev/null 2>&1
    go get "$module@$version" >/dev/null 2>"$work/get.log" ||
      { cat "$work/get.log" >&2; die "go get $module@$version failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"; }
    go build -trimpath -o "$work/$name" "$pkg" ||
      die "go build $pkg failed"
  ); then
    rm -rf "$work"
    exit 1
  fi
  mv -f "$work/$name" "$AGX_BIN/$name"
  rm -rf "$work"
  has_version "$AGX_BIN/$name" "$module" "$version" ||
    die "$AGX_BIN/$name does not report $module $version after the build"
}

ensure_tool() {
  local name="$1" module="$2" version="$3" pkg="$4"
  if has_version "$AGX_BIN/$name" "$module" "$version"; then
    return 0
  fi
  build_tool "$@"
  log "installed $AGX_BIN/$name ($module $version)"
}

ensure_tool gonb github.com/janpfeifer/gonb "$GONB_VERSION" github.com/janpfeifer/gonb
ensure_tool goimports golang.org/x/tools "$GOIMPORTS_VERSION" golang.org/x/tools/cmd/goimports
if [[ "${AGX_WITH_GOPLS:-0}" == 1 ]]; then
  ensure_tool gopls golang.org/x/tools/gopls "$GOPLS_VERSION" golang.org/x/tools/gopls
fi
