#!/usr/bin/env bash
# `make lab`: installs whatever is missing (install-all.sh), then runs Jupyter with
# the "Go (agx)" kernel as the default on the student's workspace: JupyterLab 4
# where it is installed (the lab image, Debian 13), else Notebook 6 (Debian 12).
# Arguments are passed on to the Jupyter server (e.g. --LabApp.expose_app_in_browser=True).
#
# The workspace (LAB_DIR) holds the course notebooks and the student versions of
# the exercises (`agx assign`: no reference solutions, no hidden tests). Each
# start brings in what is new or updated upstream and leaves every notebook the
# student edited as it is (seed-workspace.py; docs/lab.md).
#
#   LAB_DIR     the workspace (default: $HOME/agx-lab, outside the checkout)
#   LAB_AUTHOR=1  serve the instructor sources in notebooks/ instead, as they are
#               (also when LAB_DIR is this checkout's notebooks/)
#   AGX_NOTEBOOK_SEED  a directory of ready student notebooks to seed from
#               instead of this checkout (the lab image sets it)
#   LAB_IP      address to bind (default 127.0.0.1; use 0.0.0.0 in a container)
#   LAB_PORT    port (default 8888); the server fails instead of picking another
#   JUPYTER_TOKEN  login token; a random one is generated when unset
#   LAB_SKIP_INSTALL=1  skip the install step (the image has everything)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ip="${LAB_IP:-127.0.0.1}"
port="${LAB_PORT:-8888}"
sources="$AGX_ROOT/notebooks"

if [[ "${LAB_SKIP_INSTALL:-0}" != 1 ]]; then
  "$AGX_SCRIPTS_DIR/install-all.sh"
fi
require_go

author=0
if [[ "${LAB_AUTHOR:-0}" == 1 ]]; then
  author=1
  dir="${LAB_DIR:-$sources}"
else
  dir="${LAB_DIR:-${HOME:?HOME is not set}/agx-lab}"
  if [[ -d "$dir" && -d "$sources" && "$(cd "$dir" && pwd -P)" == "$(cd "$sources" && pwd -P)" ]]; then
    author=1
  fi
fi

if ((author)); then
  [[ -d "$dir" ]] || die "notebook directory $dir does not exist"
  what="the instructor sources as they are (reference solutions and hidden tests included)"
  # Their stored outputs (HTML, SVG) show only in a trusted notebook.
  "$SYSTEM_PYTHON" "$AGX_SCRIPTS_DIR/seed-workspace.py" --trust "$dir"
else
  mkdir -p "$dir" || die "cannot create the workspace $dir"
  seed="${AGX_NOTEBOOK_SEED:-}"
  stage=""
  if [[ -z "$seed" ]]; then
    # The student notebooks of this checkout: the course notebooks as they are,
    # the exercises through `agx assign`.
    stage="$(mktemp -d "${TMPDIR:-/tmp}/agx-lab-seed-XXXXXX")"
    trap 'rm -rf "$stage"' EXIT
    shopt -s nullglob
    for nb in "$sources"/*.ipynb; do
      [[ "$nb" == *.executed.ipynb ]] || cp "$nb" "$stage/"
    done
    exercises=()
    for nb in "$sources"/exercises/*.ipynb; do
      [[ "$nb" == *.executed.ipynb ]] || exercises+=("$nb")
    done
    shopt -u nullglob
    if ((${#exercises[@]} > 0)); then
      (cd "$AGX_ROOT" && go run ./cmd/agx assign -o "$stage/exercises" "${exercises[@]}") >"$stage/assign.log" 2>&1 ||
        die "agx assign failed on the exercise sources:
$(cat "$stage/assign.log")"
    fi
    seed="$stage"
  fi
  [[ -d "$seed" ]] || die "AGX_NOTEBOOK_SEED=$seed is not a directory"
  "$SYSTEM_PYTHON" "$AGX_SCRIPTS_DIR/seed-workspace.py" "$seed" "$dir"
  if [[ -n "$stage" ]]; then
    rm -rf "$stage"
    trap - EXIT
  fi
  what="your workspace: the course notebooks and the exercises without solutions"
fi

if [[ -z "${JUPYTER_TOKEN:-}" ]]; then
  JUPYTER_TOKEN="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
fi
# Jupyter reads the token from the environment, so it does not show in `ps`.
export JUPYTER_TOKEN

if [[ "$(jupyter_flavor)" == lab ]]; then
  app=JupyterLab
  args=(--no-browser --ip="$ip" --port="$port" --ServerApp.port_retries=0
    --ServerApp.root_dir="$dir" --MappingKernelManager.default_kernel_name="$AGX_KERNEL_NAME")
else
  app="Jupyter Notebook"
  args=(--no-browser --ip="$ip" --port="$port" --NotebookApp.port_retries=0
    --notebook-dir="$dir" --MappingKernelManager.default_kernel_name="$AGX_KERNEL_NAME")
fi
if [[ "$(id -u)" == 0 ]]; then
  args+=(--allow-root)
fi
args+=("$@")

host="$ip"
if [[ "$ip" == 0.0.0.0 || "$ip" == '*' ]]; then
  host=127.0.0.1
fi
cat >&2 <<MSG

  agx lab: $dir ($app)
           $what
  Open:    http://$host:$port/?token=$JUPYTER_TOKEN
  Stop:    Ctrl-C (the kernels are shut down with the server)

MSG
if [[ "$app" == JupyterLab ]]; then
  # jupyter-server 2 stops its kernels itself on SIGTERM and SIGINT.
  exec "$SYSTEM_PYTHON" -m jupyterlab "${args[@]}"
fi
# Notebook 6 with a clean shutdown of the kernels on SIGTERM, SIGINT and SIGHUP.
exec "$SYSTEM_PYTHON" "$AGX_SCRIPTS_DIR/notebook-server.py" "${args[@]}"
