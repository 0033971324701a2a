#!/usr/bin/env bash
# Installs Jupyter Notebook and the headless runner (nbconvert/nbclient) from
# Debian's archive (PyPI is not needed), and Graphviz, whose dot draws the
# autograd graphs that nb.Graph shows (without it a notebook shows DOT text).
# Does nothing when they are present.
# Everything else calls Debian's /usr/bin/jupyter and /usr/bin/python3, never a
# python3 that happens to be first on PATH. AGX_WITH_HUB=1 adds Debian's jupyterhub
# (the `jupyterhub-singleuser` command a JupyterHub deployment starts in the image).
# The same package names exist on Ubuntu 22.04 (universe), the CUDA image's base.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_debs jupyter-notebook python3-notebook jupyter-nbconvert python3-nbclient \
  python3-ipykernel jupyter-client python3-nbformat jupyter-core graphviz
if [[ "${AGX_WITH_HUB:-0}" == 1 ]]; then
  ensure_debs jupyterhub
fi
[[ -x "$JUPYTER" ]] || die "$JUPYTER is missing although the Jupyter packages are installed"
command -v dot >/dev/null 2>&1 || die "Graphviz's dot is not on PATH although the graphviz package is installed"
