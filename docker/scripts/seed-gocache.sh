#!/usr/bin/env bash
# seed-gocache.sh [-u USER] TEMPLATE DEST: gives a user whose Go build cache
# DEST does not exist yet a copy of the shared build cache template TEMPLATE
# (install-kernel.sh with AGX_SHARED_CACHE), so that their first notebook cell
# does not compile the standard library and agx (~40 s; 2 s with the template).
# DEST existing (even empty) means "seeded already": nothing is done.
#
# The template's files are hard-linked, not copied: the cache's entries are
# never rewritten in place (go writes new entries and renames), and they stay
# owned by the template's owner, read-only to the user, so a user cannot alter
# what other users' links point to. Directories are new and belong to the
# user, who can add and remove entries as in any cache; the files at the top
# (README, trim.txt, the template's stamp) are copies. Linking another user's
# files needs root where fs.protected_hardlinks is 1 (Debian's default): as
# root, with -u USER (the JupyterHub pre-spawn hook, docs/lab.md), the new
# directories are handed to USER. Run as the user (agx-kernel does when the
# kernelspec names a template), linking usually fails and the template is
# copied instead (~120 MB per user, a few seconds, once).
set -euo pipefail
owner=""
if [[ "${1:-}" == -u ]]; then
  owner="${2:?-u needs a user name}"
  shift 2
fi
if [[ $# -ne 2 ]]; then
  echo "usage: seed-gocache.sh [-u USER] TEMPLATE DEST" >&2
  exit 2
fi
template="$1" dest="$2"
[[ -d "$template" ]] || { echo "seed-gocache: no template directory $template" >&2; exit 1; }
if [[ -e "$dest" ]]; then
  exit 0
fi
parent="$(dirname "$dest")"
if [[ ! -d "$parent" ]]; then
  mkdir -p "$parent"
  # The directories made for the cache (~/.cache) belong to the user too.
  if [[ -n "$owner" ]]; then
    d="$parent"
    while [[ "$d" != / && "$(stat -c %U "$d")" != "$owner" && "$(stat -c %u "$d")" == "$(id -u)" ]]; do
      chown "$owner:" "$d"
      d="$(dirname "$d")"
    done
  fi
fi
tmp="$(mktemp -d "$parent/.go-build-seed-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
if ! cp -al "$template/." "$tmp/" 2>/dev/null; then
  rm -rf "$tmp" && mkdir "$tmp"
  cp -R --preserve=timestamps "$template/." "$tmp/"
fi
# The top-level files (trim.txt is rewritten by go) become the user's own copies.
find "$tmp" -mindepth 1 -maxdepth 1 -type f -print0 | while IFS= read -r -d '' f; do
  cp --preserve=timestamps "$f" "$f.copy" && mv -f "$f.copy" "$f"
done
chmod 0700 "$tmp" # the user's compiled cells are theirs alone
if [[ -n "$owner" ]]; then
  find "$tmp" -type d -exec chown "$owner:" {} +
  find "$tmp" -mindepth 1 -maxdepth 1 -type f -exec chown "$owner:" {} +
fi
# Another kernel of the same user may have seeded DEST meanwhile: keep that one.
if mv -T "$tmp" "$dest" 2>/dev/null; then
  trap - EXIT
fi
