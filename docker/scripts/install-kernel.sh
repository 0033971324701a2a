#!/usr/bin/env bash
# Writes the Jupyter kernelspec "Go (agx)" (name $AGX_KERNEL_NAME, default agx-go)
# to $JUPYTER_DATA_DIR/kernels/ (default $HOME/.local/share/jupyter/kernels/).
#
# The kernel runs docker/scripts/agx-kernel from this checkout, which starts GoNB
# with a PATH where the kernel's scratch Go module automatically requires this
# checkout's module (see kernel-bin/go): notebooks anywhere can import agx's
# packages with no setup cell. The file is rewritten only when it would change.
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
    "AGX_GO": $(json_str "$go_real")
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
