#!/usr/bin/env bash
# `make lab`: installs whatever is missing (install-all.sh), then runs Jupyter
# Notebook on the agx notebooks with the "Go (agx)" kernel as the default.
#
#   LAB_IP      address to bind (default 127.0.0.1; use 0.0.0.0 in a container)
#   LAB_PORT    port (default 8888); the server fails instead of picking another
#   LAB_DIR     notebook directory (default: notebooks/ of this checkout)
#   JUPYTER_TOKEN  login token; a random one is generated when unset
#   LAB_SKIP_INSTALL=1  skip the install step (the image has everything)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ip="${LAB_IP:-127.0.0.1}"
port="${LAB_PORT:-8888}"
dir="${LAB_DIR:-$AGX_ROOT/notebooks}"

if [[ "${LAB_SKIP_INSTALL:-0}" != 1 ]]; then
  "$AGX_SCRIPTS_DIR/install-all.sh"
fi
require_go
[[ -d "$dir" ]] || die "notebook directory $dir does not exist"

if [[ -z "${JUPYTER_TOKEN:-}" ]]; then
  JUPYTER_TOKEN="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
fi
# Jupyter reads the token from the environment, so it does not show in `ps`.
export JUPYTER_TOKEN

args=(--no-browser --ip="$ip" --port="$port" --NotebookApp.port_retries=0
  --notebook-dir="$dir" --MappingKernelManager.default_kernel_name="$AGX_KERNEL_NAME")
if [[ "$(id -u)" == 0 ]]; then
  args+=(--allow-root)
fi

host="$ip"
if [[ "$ip" == 0.0.0.0 || "$ip" == '*' ]]; then
  host=127.0.0.1
fi
cat >&2 <<MSG

  agx lab: notebooks in $dir
  Open:    http://$host:$port/?token=$JUPYTER_TOKEN

MSG
# Notebook 6 with a clean shutdown of the kernels on SIGTERM, SIGINT and SIGHUP.
exec "$SYSTEM_PYTHON" "$AGX_SCRIPTS_DIR/notebook-server.py" "${args[@]}"
