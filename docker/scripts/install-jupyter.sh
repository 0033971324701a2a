#!/usr/bin/env bash
# Installs Jupyter and the headless runner (nbconvert/nbclient) from Debian's
# archive (PyPI is not needed), and Graphviz, whose dot draws the autograd graphs
# that nb.Graph shows (without it a notebook shows DOT text). Does nothing when
# they are present.
#
# Which Jupyter: JupyterLab 4 (jupyterlab, jupyter-server 2) on Debian 13 and later,
# whose archive has it; Notebook 6.4 on Debian 12, which has nothing newer.
# AGX_JUPYTER=lab or =notebook chooses by hand. lab.sh serves whichever is installed.
# AGX_WITH_HUB=1 adds Debian's jupyterhub (the `jupyterhub-singleuser` command a
# JupyterHub deployment starts in the image: 5.2 on Debian 13, 3.0 on Debian 12).
# Everything else calls Debian's /usr/bin/jupyter and /usr/bin/python3, never a
# python3 that happens to be first on PATH.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

flavor="${AGX_JUPYTER:-$(jupyter_flavor)}"
common=(jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client python3-nbformat jupyter-core graphviz)
case "$flavor" in
lab) ensure_debs jupyterlab python3-jupyter-server "${common[@]}" ;;
notebook) ensure_debs jupyter-notebook python3-notebook "${common[@]}" ;;
*) die "AGX_JUPYTER=$flavor: want lab or notebook" ;;
esac
if [[ "${AGX_WITH_HUB:-0}" == 1 ]]; then
  ensure_debs jupyterhub
fi
[[ -x "$JUPYTER" ]] || die "$JUPYTER is missing although the Jupyter packages are installed"
command -v dot >/dev/null 2>&1 || die "Graphviz's dot is not on PATH although the graphviz package is installed"

if [[ "$flavor" == lab ]]; then
  # JupyterLab asks the internet for news and updates and shows a pop-up about it on
  # first start; a lab (and a class without internet) has no use for either. Site-wide
  # defaults a user can still change; written once, never over an administrator's file.
  settings=/usr/share/jupyter/lab/settings
  if [[ "$(id -u)" == 0 && -d "$(dirname "$settings")" && ! -e "$settings/overrides.json" ]]; then
    mkdir -p "$settings"
    cat >"$settings/overrides.json" <<'JSON'
{
  "@jupyterlab/apputils-extension:notification": {
    "fetchNews": "false",
    "checkForUpdates": false
  }
}
JSON
  fi
fi
