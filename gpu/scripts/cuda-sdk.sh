#!/usr/bin/env bash
# Extracts the CUDA 11.8 headers, the link-time stub libraries (libcuda, libcublas)
# and NVRTC from Debian's non-free packages into a cache directory, without
# installing them, and prints the directory. Enough to build, vet and `go test -c`
# the `cuda`-tagged code and to compile kernels with NVRTC on a machine without a
# GPU. Idempotent: a second run only prints the directory.
#
#   AGX_CUDA_SDK   cache directory (default: $XDG_CACHE_HOME/agx-cuda-11.8 or ~/.cache/...)
#
# The stub libraries are for linking only: never put them on LD_LIBRARY_PATH.
# Side effect: adds the contrib/non-free components in
# /etc/apt/sources.list.d/agx-cuda-nonfree.sources (with sudo when not root).
set -euo pipefail

sdk="${AGX_CUDA_SDK:-${XDG_CACHE_HOME:-$HOME/.cache}/agx-cuda-11.8}"
if [[ -f "$sdk/.complete" ]]; then
	echo "$sdk"
	exit 0
fi

sudo=()
if [[ $EUID -ne 0 ]]; then
	sudo=(sudo)
fi
src=/etc/apt/sources.list.d/agx-cuda-nonfree.sources
if ! apt-cache policy nvidia-cuda-dev 2>/dev/null | grep -q 'Candidate: [0-9]'; then
	if [[ ! -f "$src" ]]; then
		"${sudo[@]}" tee "$src" >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	fi
	"${sudo[@]}" apt-get update -qq >&2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -qq nvidia-cuda-dev libnvrtc11.2 libnvrtc-builtins11.8 >&2)

root="$work/root"
mkdir -p "$root"
for deb in "$work"/*.deb; do
	case "$deb" in
	*nvidia-cuda-dev*)
		# Only the headers and the stubs: the full package is several GB unpacked.
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" --wildcards \
			'./usr/include/*' './usr/lib/x86_64-linux-gnu/stubs/*' \
			'./usr/lib/x86_64-linux-gnu/libnvrtc.so' >&2
		;;
	*) dpkg-deb -x "$deb" "$root" ;;
	esac
done

rm -rf "$sdk.tmp"
mkdir -p "$sdk.tmp/lib" "$sdk.tmp/stubs"
cp -a "$root/usr/include" "$sdk.tmp/include"
cp -a "$root"/usr/lib/x86_64-linux-gnu/stubs/. "$sdk.tmp/stubs/"
cp -a "$root"/usr/lib/x86_64-linux-gnu/libnvrtc* "$sdk.tmp/lib/"
rm -rf "$sdk"
mv "$sdk.tmp" "$sdk"
touch "$sdk/.complete"
echo "$sdk"
