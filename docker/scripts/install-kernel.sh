#!/usr/bin/env bash
# Writes the Jupyter kernelspec "Go (agx)" (name $AGX_KERNEL_NAME, default agx-go)
# to $JUPYTER_DATA_DIR/kernels/ (default $HOME/.local/share/jupyter/kernels/).
#
# The kernel runs docker/scripts/agx-kernel from this checkout, which starts GoNB
# with a PATH where the kernel's scratch Go module automatically requires this
# checkout's module (see kernel-bin/go): notebooks anywhere can import agx's
# packages with no setup cell. The file is rewritten only when it would change.
#
# It also makes sure the Go module cache holds every module that scratch module
# needs, so that notebooks work offline and `agx autograde` (whose kernel has no
# network) can grade: see ensure_kernel_modules. AGX_SKIP_MODULES=1 skips that.
#
# AGX_SHARED_CACHE=DIR (a machine where several users run the kernel, such as a
# JupyterHub): the module cache is DIR/gomod instead of the installing user's,
# and a Go build cache template DIR/go-build is compiled with it (every package
# a notebook can import, as the kernel builds them). Both are made readable by
# all and writable by none but their owner, and the kernelspec sets GOMODCACHE
# to DIR/gomod, GOPROXY to that cache (file://, so GoNB's `go get` needs no
# network), GOSUMDB=off (the modules were verified when they were downloaded)
# and AGX_GOCACHE_TEMPLATE: agx-kernel then seeds a user's empty build cache
# from the template (seed-gocache.sh), so a new user's first cell does not
# compile the standard library and agx. Run it again when agx changes: the
# template is rebuilt incrementally, keyed like the module stamp plus the
# checkout's sources. See docs/lab.md, "Many users on one machine".
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_go
for tool in gonb goimports; do
  [[ -x "$AGX_BIN/$tool" ]] || die "$AGX_BIN/$tool is missing: run docker/scripts/install-gonb.sh first"
done

json_str() {
  local s="$1"
  s="${s//\\/\\\\}"
  s="${s//\"/\\\"}"
  printf '"%s"' "$s"
}

# GoNB's packages a notebook may import besides agx's (as in
# internal/gotool/modcache.go).
gonb_pkgs=(
  github.com/janpfeifer/gonb/gonbui
  github.com/janpfeifer/gonb/gonbui/comms
  github.com/janpfeifer/gonb/gonbui/dom
  github.com/janpfeifer/gonb/gonbui/protocol
  github.com/janpfeifer/gonb/gonbui/widgets
)

# resolve_scratch DIR [offline]: in DIR (holding main.go), makes a module as
# kernel-bin/go makes the kernel's scratch module and runs GoNB's `go get` in
# it, then lists the dependencies (which needs their sources). With "offline",
# as the sandboxed kernel runs: GOPROXY=off GOSUMDB=off. Output goes to DIR/log.
resolve_scratch() {
  local dir="$1" mode="${2:-}" mod
  mod="$(awk '$1 == "module" { print $2; exit }' "$AGX_ROOT/go.mod")"
  (
    cd "$dir"
    if [[ "$mode" == offline ]]; then export GOPROXY=off GOSUMDB=off; fi
    rm -f go.mod go.sum
    go mod init gonb_agxmodules &&
      go mod edit -require="$mod@v0.0.0" -replace="$mod=$AGX_ROOT" &&
      go get &&
      go list -deps . >/dev/null
  ) >"$dir/log" 2>&1
}

# ensure_kernel_modules: resolves, offline, a scratch module whose main.go
# imports every package of this checkout that a notebook can import plus
# gonb_pkgs; only when that fails, resolves it with the network, then offline
# again. Success leaves a stamp in the module cache, keyed by this checkout's
# go.mod and go.sum, the Go version and the tags, so a second run only hashes
# two files (`go clean -modcache` removes the stamp with the modules).
ensure_kernel_modules() {
  local work pkgs joined cache goversion stamp tags=()
  # The build tags agx-kernel adds decide which files, so which modules, count.
  if [[ "${AGX_CUDA:-0}" == 1 ]]; then tags+=(cuda); fi
  if [[ "${AGX_OPENBLAS:-0}" == 1 ]]; then tags+=(openblas); fi
  if ((${#tags[@]} > 0)); then
    joined="$(IFS=,; echo "${tags[*]}")"
    export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=$joined"
  fi
  export GOWORK=off
  { read -r cache && read -r goversion; } < <(go env GOMODCACHE GOVERSION)
  stamp="$cache/cache/agx-kernel/$(cat "$AGX_ROOT/go.mod" "$AGX_ROOT/go.sum" - <<<"$goversion ${tags[*]} ${gonb_pkgs[*]}" | sha256sum | cut -c1-32)"
  if [[ -f "$stamp" ]]; then
    return 0
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/agx-modules-XXXXXX")"
  # go list needs no module for names and paths (-e: it goes on without them).
  mapfile -t pkgs < <(cd "$AGX_ROOT" && GOPROXY=off go list -e -f '{{if ne .Name "main"}}{{.ImportPath}}{{end}}' ./... 2>/dev/null |
    grep -v -e '/internal/' -e '/internal$' -e '^$')
  {
    printf 'package main\n\nimport (\n'
    printf '\t_ "%s"\n' "${pkgs[@]}" "${gonb_pkgs[@]}"
    printf ')\n\nfunc main() {}\n'
  } >"$work/main.go"
  if resolve_scratch "$work" offline; then
    rm -rf "$work"
    write_stamp "$stamp"
    return 0
  fi
  log "fetching the Go modules that notebooks need (once; the kernel then works offline)"
  if ! resolve_scratch "$work" || ! resolve_scratch "$work" offline; then
    cat "$work/log" >&2
    rm -rf "$work"
    die "cannot fill the Go module cache ($(go env GOMODCACHE)) with the modules notebooks need: is the Go module proxy reachable? GOPROXY=$(go env GOPROXY)"
  fi
  rm -rf "$work"
  write_stamp "$stamp"
}

# write_stamp PATH: creates PATH; a module cache that cannot be written to only
# costs an offline resolution on every run.
write_stamp() {
  { mkdir -p "$(dirname "$1")" && : >"$1"; } 2>/dev/null || true
}

# build_gocache_template DIR: compiles, with GOCACHE=DIR and the module cache in
# use, a scratch module made as the kernel makes its own whose main.go imports
# every package a notebook can import (as ensure_kernel_modules), so that DIR
# holds the compiled standard library, modules and agx packages under the paths
# the kernel will use (the build cache is keyed by them). A stamp in DIR, keyed
# by the module stamp's inputs and the checkout's Go sources, skips the build
# when nothing changed.
build_gocache_template() {
  local dir="$1" work pkgs stamp key
  key="$( {
    (cd "$AGX_ROOT" && find . -path ./.git -prune -o -type f \( -name '*.go' -o -name '*.s' -o -name '*.c' -o -name '*.h' -o -name go.mod -o -name go.sum \) -print0 |
      sort -z | xargs -0 -r sha256sum)
    go env GOVERSION GOMODCACHE GOFLAGS
    printf '%s %s\n' "$AGX_ROOT" "${gonb_pkgs[*]}"
  } | sha256sum | cut -c1-32)"
  stamp="$dir/agx-template-$key"
  if [[ -f "$stamp" ]]; then
    return 0
  fi
  log "compiling the shared Go build cache template $dir (once per change of agx; cold: ~2 min)"
  mkdir -p "$dir"
  work="$(mktemp -d "${TMPDIR:-/tmp}/agx-gocache-XXXXXX")"
  mapfile -t pkgs < <(cd "$AGX_ROOT" && GOPROXY=off go list -e -f '{{if ne .Name "main"}}{{.ImportPath}}{{end}}' ./... 2>/dev/null |
    grep -v -e '/internal/' -e '/internal$' -e '^$')
  {
    printf 'package main\n\nimport (\n'
    printf '\t_ "%s"\n' "${pkgs[@]}" "${gonb_pkgs[@]}"
    printf ')\n\nfunc main() {}\n'
  } >"$work/main.go"
  # GoNB compiles grade cells with `go build` and test cells with `go test -c`:
  # a test file brings the testing package in.
  printf 'package main\n\nimport "testing"\n\nfunc TestAgx(t *testing.T) {}\n' >"$work/main_test.go"
  if ! (resolve_scratch "$work" offline && cd "$work" &&
    GOCACHE="$dir" go build -o "$work/prog" . >>"$work/log" 2>&1 &&
    GOCACHE="$dir" go test -c -o "$work/prog.test" . >>"$work/log" 2>&1); then
    cat "$work/log" >&2
    rm -rf "$work"
    die "cannot compile the Go build cache template in $dir"
  fi
  rm -rf "$work"
  rm -f "$dir"/agx-template-*
  : >"$stamp"
}

shared="${AGX_SHARED_CACHE:-}"
if [[ -n "$shared" ]]; then
  [[ "$shared" == /* ]] || die "AGX_SHARED_CACHE must be an absolute path (got $shared)"
  mkdir -p "$shared"
  export GOMODCACHE="$shared/gomod"
fi
if [[ "${AGX_SKIP_MODULES:-0}" != 1 || -n "$shared" ]]; then
  ensure_kernel_modules
fi
shared_env=""
if [[ -n "$shared" ]]; then
  build_gocache_template "$shared/go-build"
  # Others read and enter everything, write nothing (the module cache is
  # read-only already; its download directory and the template are not).
  if [[ -n "$(find "$shared" \( -perm /022 -o ! -perm -444 -o \( -type d ! -perm -111 \) \) -print -quit)" ]]; then
    chmod -R a+rX,go-w "$shared"
  fi
  shared_env=",
    \"GOMODCACHE\": $(json_str "$shared/gomod"),
    \"GOPROXY\": $(json_str "file://$shared/gomod/cache/download"),
    \"GOSUMDB\": \"off\",
    \"AGX_GOCACHE_TEMPLATE\": $(json_str "$shared/go-build")"
fi

go_real="$(command -v go)"
kdir="$JUPYTER_DATA_DIR_EFFECTIVE/kernels/$AGX_KERNEL_NAME"
spec="$(
  cat <<JSON
{
  "argv": [$(json_str "$AGX_SCRIPTS_DIR/agx-kernel"), "{connection_file}"],
  "display_name": $(json_str "$AGX_KERNEL_DISPLAY_NAME"),
  "language": "go",
  "interrupt_mode": "signal",
  "env": {
    "AGX_ROOT": $(json_str "$AGX_ROOT"),
    "AGX_BIN": $(json_str "$AGX_BIN"),
    "AGX_GO": $(json_str "$go_real")$shared_env
  },
  "metadata": {"agx": {"gonb_version": $(json_str "$GONB_VERSION")}}
}
JSON
)"

if [[ -f "$kdir/kernel.json" ]] && [[ "$(cat "$kdir/kernel.json")" == "$spec" ]]; then
  exit 0
fi
mkdir -p "$kdir"
printf '%s\n' "$spec" >"$kdir/kernel.json.tmp"
mv -f "$kdir/kernel.json.tmp" "$kdir/kernel.json"
log "wrote kernelspec $kdir/kernel.json"
