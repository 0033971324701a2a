#!/usr/bin/env bash
# install-hub.sh: the agx lab for many local users of one machine, served by
# Debian's JupyterHub (docs/lab.md, "Many users on one machine"). As root:
#
#   $AGX_HUB_DIR (default /opt/agx-hub), readable by everyone, writable by root:
#     agx/      the students' copy of this checkout: every tracked file except
#               the paths docker/instructor-only lists (notebooks/exercises, the
#               instructor sources with solutions and hidden tests, and the
#               reference solutions in Go, functions/solutions); the kernel's AGX_ROOT
#     bin/      gonb, goimports (install-gonb.sh) and agx (built from agx/)
#     cache/    the shared Go module cache and build cache template
#               (install-kernel.sh with AGX_SHARED_CACHE)
#     jupyter/  the kernelspec (the single-user servers' JUPYTER_PATH)
#   Debian's jupyterhub (with configurable-http-proxy and jupyterhub-singleuser)
#   and the Jupyter packages of install-jupyter.sh.
#
# docker/jupyterhub/jupyterhub_config.py starts the hub with this layout. A
# second run copies only what changed and recompiles only changed packages.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hub="${AGX_HUB_DIR:-/opt/agx-hub}"
[[ "$hub" == /* ]] || die "AGX_HUB_DIR must be an absolute path (got $hub)"
[[ "$(id -u)" == 0 ]] || die "install-hub.sh installs for all users of the machine: run it as root"
require_go
AGX_WITH_HUB=1 "$AGX_SCRIPTS_DIR/install-jupyter.sh"
umask 022
mkdir -p "$hub/bin"

# The students' copy of the checkout, swapped in only when it differs.
git -C "$AGX_ROOT" rev-parse --git-dir >/dev/null 2>&1 ||
  die "$AGX_ROOT is not a git checkout: the students' copy is made from its tracked files"
new="$(mktemp -d "$hub/.agx-new-XXXXXX")"
trap 'rm -rf "$new"' EXIT
"$AGX_SCRIPTS_DIR/student-files.sh" "$AGX_ROOT" | (cd "$AGX_ROOT" && tar --null -T - -cf -) | tar -C "$new" -xf -
chmod 0755 "$new"
if [[ -d "$hub/agx" ]] && diff -r -q "$hub/agx" "$new" >/dev/null 2>&1; then
  rm -rf "$new"
else
  log "updating the students' copy of agx in $hub/agx"
  rm -rf "$hub/agx.old"
  if [[ -d "$hub/agx" ]]; then mv "$hub/agx" "$hub/agx.old"; fi
  mv "$new" "$hub/agx"
  rm -rf "$hub/agx.old"
fi
trap - EXIT

# gonb, goimports and agx for everyone.
AGX_PREFIX="$hub" "$AGX_SCRIPTS_DIR/install-gonb.sh"
(cd "$hub/agx" && GOFLAGS=-buildvcs=false go build -o "$hub/bin/agx.new" ./cmd/agx) || die "go build ./cmd/agx failed"
if cmp -s "$hub/bin/agx.new" "$hub/bin/agx"; then rm -f "$hub/bin/agx.new"; else mv -f "$hub/bin/agx.new" "$hub/bin/agx"; fi

# The kernelspec of the students' copy, with the shared caches.
AGX_ROOT="$hub/agx" AGX_PREFIX="$hub" AGX_SHARED_CACHE="$hub/cache" JUPYTER_DATA_DIR="$hub/jupyter" \
  "$hub/agx/docker/scripts/install-kernel.sh"
chmod -R a+rX "$hub/agx" "$hub/bin" "$hub/jupyter"
chmod 0755 "$hub"
