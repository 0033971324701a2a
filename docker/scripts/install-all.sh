#!/usr/bin/env bash
# Everything the lab needs: Jupyter (Debian), GoNB + goimports, the "Go (agx)"
# kernelspec. Each step is idempotent and takes well under a second when done.
# Set AGX_WITH_TEST_DEPS=1 to add the test-only packages (install-test-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/install-jupyter.sh"
if [[ "${AGX_WITH_TEST_DEPS:-0}" == 1 ]]; then
  "$here/install-test-deps.sh"
fi
"$here/install-gonb.sh"
"$here/install-kernel.sh"
