#!/usr/bin/env bash
# Compiles every agx kernel to PTX for compute_80 (A100) and compute_90 (H100):
# with nvcc when it is installed, otherwise with NVRTC from the CUDA SDK cache
# (gpu/scripts/cuda-sdk.sh). Neither needs a GPU.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kdir="$here/../kernels"
archs=(compute_80 compute_90)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# One translation unit, as the backend loads it (kernels.Source).
(cd "$kdir" && cat agx_cuda.h elementwise.cu reduce.cu index.cu matmul.cu attention.cu) >"$work/agx.cu"

if command -v nvcc >/dev/null 2>&1; then
	for arch in "${archs[@]}"; do
		nvcc -std=c++17 -ptx -arch="$arch" "$work/agx.cu" -o "$work/agx-$arch.ptx"
		echo "nvcc $arch: $(grep -c '^.visible .entry' "$work/agx-$arch.ptx") kernels"
	done
	exit 0
fi

sdk="${AGX_CUDA_SDK:-$("$here/cuda-sdk.sh")}"
cc="${CC:-gcc}"
"$cc" -O1 -I"$sdk/include" "$here/nvrtc-ptx.c" -L"$sdk/lib" -lnvrtc -o "$work/nvrtc-ptx"
for arch in "${archs[@]}"; do
	LD_LIBRARY_PATH="$sdk/lib" "$work/nvrtc-ptx" "$arch" "$work/agx.cu" "$work/agx-$arch.ptx"
	echo "nvrtc $arch: $(grep -c '^.visible .entry' "$work/agx-$arch.ptx") kernels"
done
