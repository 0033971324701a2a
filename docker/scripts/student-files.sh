#!/usr/bin/env bash
# student-files.sh [ROOT]: the files of the agx checkout ROOT (default: this
# one) that students get, NUL-separated and relative to ROOT: every file git
# tracks except the paths docker/instructor-only lists (a directory ends in /).
# install-hub.sh copies these; internal/studentview checks the list it prints.
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
list="$root/docker/instructor-only"
[[ -f "$list" ]] || { echo "student-files.sh: no $list" >&2; exit 1; }
mapfile -t excluded < <(grep -Ev '^[[:space:]]*(#|$)' "$list" | sed 's/[[:space:]]*$//')
((${#excluded[@]} > 0)) || { echo "student-files.sh: $list lists no path" >&2; exit 1; }
git -C "$root" ls-files -z | while IFS= read -r -d '' f; do
  for e in "${excluded[@]}"; do
    if [[ "$e" == */ ]]; then
      [[ "$f" == "$e"* ]] && continue 2
    else
      [[ "$f" == "$e" ]] && continue 2
    fi
  done
  printf '%s\0' "$f"
done
