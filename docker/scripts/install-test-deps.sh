#!/usr/bin/env bash
# Debian packages used only by the checks in `make test`: PyTorch and NumPy (the
# reference oracle and baseline, run with /usr/bin/python3), OpenBLAS (so NumPy
# and PyTorch do not fall back to the slow reference BLAS), shellcheck, ONNX
# (python3-onnx: its checker validates the ONNX files package nn exports), and
# iproute2 (ip: the grading sandbox's network namespace, tested in
# internal/autograde) and chromium (the headless browser of
# test-lab-view.py, `make lab-view-test`).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_debs python3-torch python3-numpy libopenblas-dev shellcheck python3-onnx iproute2 chromium
