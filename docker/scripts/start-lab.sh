#!/usr/bin/env bash
# The lab image's command (run under tini). It prepares the container's settings and
# hands over to lab.sh, the script behind `make lab` (its arguments go to the Jupyter
# server):
#   - binds 0.0.0.0:8888 and serves $LAB_DIR (default /home/jovyan/work);
#   - token: $JUPYTER_TOKEN, else the first line of $JUPYTER_TOKEN_FILE, else a random
#     one that lab.sh prints with the URL;
#   - the workspace: lab.sh fills $LAB_DIR from $AGX_NOTEBOOK_SEED (the image's student
#     notebooks) as `make lab` fills its own: new and deleted notebooks are copied,
#     unedited ones updated to the image's version, edited ones never touched;
#   - GPU: when the image was built with CUDA support (AGX_GPU_BUILD=1) and a GPU is
#     visible (nvidia-smi lists one, or /dev/nvidia0 exists) together with the driver's
#     libcuda.so.1, sets AGX_CUDA=1, which the kernel launcher turns into
#     GOFLAGS=-tags=cuda. Otherwise it says what is missing and the lab runs on the
#     CPU. AGX_CUDA=0 or 1 in the environment overrides the probe;
#   - removes CUDA stub-library directories from LD_LIBRARY_PATH (a stub libcuda
#     would shadow the host driver that the NVIDIA runtime mounts).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

export LAB_IP="${LAB_IP:-0.0.0.0}"
export LAB_PORT="${LAB_PORT:-8888}"
export LAB_DIR="${LAB_DIR:-${HOME:-/home/jovyan}/work}"
export LAB_SKIP_INSTALL="${LAB_SKIP_INSTALL:-1}"
say() { printf '[agx] %s\n' "$*" >&2; }

if [[ -z "${JUPYTER_TOKEN:-}" && -n "${JUPYTER_TOKEN_FILE:-}" ]]; then
  [[ -r "$JUPYTER_TOKEN_FILE" ]] || { say "error: JUPYTER_TOKEN_FILE=$JUPYTER_TOKEN_FILE is not readable"; exit 1; }
  JUPYTER_TOKEN="$(head -n1 "$JUPYTER_TOKEN_FILE" | tr -d '\r\n')"
  [[ -n "$JUPYTER_TOKEN" ]] || { say "error: $JUPYTER_TOKEN_FILE is empty"; exit 1; }
  export JUPYTER_TOKEN
fi

# strip_stubs PATHLIST: drops entries that name a CUDA stubs directory.
strip_stubs() {
  local out="" entry
  local IFS=:
  for entry in $1; do
    [[ -z "$entry" || "$entry" == */stubs || "$entry" == */stubs/ ]] && continue
    out="${out:+$out:}$entry"
  done
  printf '%s' "$out"
}
if [[ -n "${LD_LIBRARY_PATH:-}" ]]; then
  LD_LIBRARY_PATH="$(strip_stubs "$LD_LIBRARY_PATH")"
  export LD_LIBRARY_PATH
fi

# gpu_state prints "ok" when an NVIDIA GPU and its driver's libcuda.so.1 are both
# visible, else what is missing. A cell linked against CUDA on a machine without them
# exits before its first line (gorgonia.org/cu's init, or the loader), so the lab
# turns the cuda tag on only when both are there.
gpu_state() {
  local dev=0
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    dev=1
  elif [[ -e /dev/nvidia0 ]]; then
    dev=1
  fi
  if ((!dev)); then
    echo "no NVIDIA GPU visible (start the container with --gpus all, or the compose profile cuda, on a host with the NVIDIA Container Toolkit)"
  elif ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    echo "a GPU device is visible but not the driver's libcuda.so.1 (the NVIDIA Container Toolkit mounts it with --gpus)"
  else
    echo ok
  fi
}
if [[ -z "${AGX_CUDA:-}" ]]; then
  AGX_CUDA=0
  if [[ "${AGX_GPU_BUILD:-0}" == 1 ]]; then
    state="$(gpu_state)"
    if [[ "$state" == ok ]]; then
      AGX_CUDA=1
      say "GPU found: notebooks build with -tags=cuda (the gpu backend)"
    else
      say "CUDA image, but $state: the lab runs on the CPU; notebook cells build without the cuda tag"
    fi
  fi
fi
export AGX_CUDA

mkdir -p "$LAB_DIR"
if [[ -n "${AGX_NOTEBOOK_SEED:-}" && ! -d "$AGX_NOTEBOOK_SEED" ]]; then
  # lab.sh then makes the student notebooks from /opt/agx/notebooks itself.
  say "note: AGX_NOTEBOOK_SEED=$AGX_NOTEBOOK_SEED is not a directory; ignoring it"
  unset AGX_NOTEBOOK_SEED
fi

exec "$here/lab.sh" "$@"
