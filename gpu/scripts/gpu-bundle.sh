#!/usr/bin/env bash
# Builds the cuda-tagged test binaries of gpu and gpu/cudafn into a bundle that
# runs on a GPU machine without Go (docs/gpu.md, "What runs where"):
#
#   gpu/scripts/gpu-bundle.sh DIR [CUDA_MAJOR]    # here, with Go
#   DIR/run.sh [LOGDIR]                            # there: tests, then benchmarks
#
# The binaries are compiled against the CUDA 11.8 headers (cuda-sdk.sh), whose
# driver, cuBLAS and NVRTC entry points later CUDA releases still export. They
# link libcuda.so.1 (the driver's, unversioned) and, for cuBLAS and NVRTC,
# stub libraries generated here with the target's sonames (libcublas.so.N,
# libnvrtc.so.N, N = CUDA_MAJOR, default 13) and no symbol versions, so the
# binaries load the target's own libraries. run.sh finds those libraries
# (CUDA toolkit or the nvidia-* Python wheels) and puts them on the library
# path.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: gpu-bundle.sh DIR [CUDA_MAJOR]}"
major="${2:-13}"
[[ "$major" =~ ^[0-9]+$ ]] || { echo "gpu-bundle.sh: CUDA_MAJOR must be a number, got $major" >&2; exit 2; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"

sdk="$("$here/cuda-sdk.sh")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# stub LIB SONAME FROM: a library exporting FROM's function names, unversioned.
stub() {
	nm -D --defined-only "$3" | awk '$2 == "T" { sub(/@.*/, "", $3); print "void " $3 "(void) {}" }' |
		sort -u >"$work/$1.c"
	cc -shared -fPIC -Wl,-soname,"$2" -o "$work/$1.so" "$work/$1.c"
}
stub libcublas "libcublas.so.$major" "$sdk/stubs/libcublas.so"
stub libnvrtc "libnvrtc.so.$major" "$sdk/lib/libnvrtc.so.11.2"

cd "$root"
export CGO_CFLAGS="-I$sdk/include" CGO_LDFLAGS="-L$work -L$sdk/stubs"
for pkg in gpu gpu/cudafn; do
	name="$(basename "$pkg")"
	go test -c -tags cuda -o "$out/$name.test" "./$pkg"
	if readelf -V "$out/$name.test" | grep -q 'libcublas.so.1[0-9]*)\|libnvrtc.so.1[0-9.]*)'; then
		echo "gpu-bundle.sh: $name.test still asks for versioned CUDA symbols" >&2
		exit 1
	fi
done
cp "$here/gpu-bundle-run.sh" "$out/run.sh"
echo "$major" >"$out/cuda-major"
echo "$out: gpu.test cudafn.test run.sh (CUDA $major)"
