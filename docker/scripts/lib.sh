# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this
# Shared helpers for the agx install scripts. Source it; do not run it.
#
# Layout (all overridable from the environment):
#   AGX_ROOT    the agx checkout (default: two levels above this file)
#   AGX_PREFIX  where tools are installed (default: $HOME/.local/share/agx);
#               binaries go to $AGX_PREFIX/bin
#   JUPYTER_DATA_DIR  Jupyter's data dir (default: $HOME/.local/share/jupyter)

AGX_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
AGX_ROOT="${AGX_ROOT:-$(cd "$AGX_SCRIPTS_DIR/../.." && pwd)}"

# shellcheck source=../versions.env
. "$AGX_SCRIPTS_DIR/../versions.env"

AGX_PREFIX="${AGX_PREFIX:-${HOME:?HOME is not set}/.local/share/agx}"
AGX_BIN="$AGX_PREFIX/bin"
JUPYTER_DATA_DIR_EFFECTIVE="${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}"

# Debian's Jupyter. A pyenv/conda python3 on PATH usually lacks these modules.
JUPYTER="${JUPYTER:-/usr/bin/jupyter}"
SYSTEM_PYTHON="${SYSTEM_PYTHON:-/usr/bin/python3}"

log() { printf '[agx] %s\n' "$*" >&2; }
die() { printf '[agx] error: %s\n' "$*" >&2; exit 1; }

# missing_debs PKG... prints the packages that are not installed.
missing_debs() {
  local p status
  for p in "$@"; do
    status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
    [[ "$status" == "install ok installed" ]] || printf '%s\n' "$p"
  done
}

# ensure_debs PKG... installs missing Debian packages (apt-get update only when
# something is missing). Without root it prints the exact command and fails.
ensure_debs() {
  local missing
  command -v dpkg-query >/dev/null 2>&1 ||
    die "dpkg-query not found: these scripts expect Debian/Ubuntu. Install by hand: $*"
  mapfile -t missing < <(missing_debs "$@")
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      log "installing with sudo: ${missing[*]}"
      sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -q -o DPkg::Lock::Timeout=300
      sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}"
      return 0
    fi
    die "missing Debian packages (${missing[*]}) and not root. As root, run:
    apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
  fi
  log "installing Debian packages: ${missing[*]}"
  # Only refresh the index when the packages are not installable from it yet.
  if ! apt-get install -y --no-install-recommends --dry-run "${missing[@]}" >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q -o DPkg::Lock::Timeout=300
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}"
}

# require_go checks that a Go toolchain >= GO_MIN_VERSION is on PATH (or in /usr/local/go/bin).
require_go() {
  if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
    PATH="/usr/local/go/bin:$PATH"
    export PATH
  fi
  command -v go >/dev/null 2>&1 ||
    die "go not found on PATH. Install Go $GO_VERSION (https://go.dev/dl/) into /usr/local/go."
  local v
  v="$(go env GOVERSION)"
  v="${v#go}"
  if ! version_ge "$v" "$GO_MIN_VERSION"; then
    die "Go $v found at $(command -v go); agx needs Go >= $GO_MIN_VERSION (pinned: $GO_VERSION)."
  fi
  if [[ "$v" != "$GO_VERSION" ]]; then
    log "note: Go $v in use; the pinned version is $GO_VERSION."
  fi
}

# has_version BIN MODULE VERSION: BIN exists and was built with MODULE at VERSION.
has_version() {
  [[ -x "$1" ]] || return 1
  go version -m "$1" 2>/dev/null |
    awk -v m="$2" -v v="$3" '($1 == "mod" || $1 == "dep") && $2 == m && $3 == v { ok = 1 } END { exit !ok }'
}

# version_ge A B: true when dotted version A >= B.
version_ge() {
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]
}

# go_bin_dir prints the directory of the go binary.
go_bin_dir() { dirname "$(command -v go)"; }

# jupyter_flavor prints which Jupyter this system gets: "lab" (JupyterLab 4) when
# JupyterLab is installed or the system is Debian 13 or later, else "notebook"
# (Notebook 6, the newest of Debian 12).
jupyter_flavor() {
  if "$SYSTEM_PYTHON" -c 'import jupyterlab' >/dev/null 2>&1; then
    echo lab
    return
  fi
  local id="" version=""
  if [[ -r /etc/os-release ]]; then
    id="$(. /etc/os-release && echo "${ID:-}")"
    version="$(. /etc/os-release && echo "${VERSION_ID:-}")"
  fi
  if [[ "$id" == debian && -n "$version" ]] && version_ge "$version" 13; then
    echo lab
  else
    echo notebook
  fi
}
