#!/usr/bin/env bash
# The GPU checks that run without a GPU (docs/gpu.md, "What runs where"):
#  1. the cuda-tagged code builds, vets and links its test binaries against the
#     CUDA 11.8 headers and stub libraries (cuda-sdk.sh; never run: a binary
#     linked with gorgonia.org/cu exits at start-up without a GPU), and so does
#     the bundle of test binaries for a GPU machine (gpu-bundle.sh);
#  2. every kernel compiles to PTX for compute_80 and compute_90 (check-kernels.sh);
#  3. the emulator: the gpu Backend runs the tensor conformance suite and the
#     custom-kernel Functions their gradchecks with the kernels compiled for
#     the host (go test -tags cudaemu, also under -race for the Go side);
#  4. the kernels under ThreadSanitizer and AddressSanitizer+UBSan, in a
#     standalone C++ driver (emu/testdata/sanitize.cc), plus a negative control:
#     a reduction missing its __syncthreads must be reported as a data race.
# AGX_GPU_SKIP_SDK=1 skips the steps that need the CUDA packages (1 and 2).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

step() {
	printf '\n== %s\n' "$*"
	SECONDS=0
}
took() { echo "   (${SECONDS}s)"; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ "${AGX_GPU_SKIP_SDK:-}" != 1 ]]; then
	step "CUDA SDK (headers + stubs + NVRTC)"
	sdk="$("$here/cuda-sdk.sh")"
	export AGX_CUDA_SDK="$sdk"
	took

	step "build, vet, test -c with -tags cuda"
	(
		export CGO_CFLAGS="-I$sdk/include" CGO_LDFLAGS="-L$sdk/stubs -L$sdk/lib"
		go build -tags cuda ./gpu/...
		go vet -tags cuda ./gpu/...
		go test -c -tags cuda -o "$work/gpu-cuda.test" ./gpu
	)
	took

	step "the bundle that runs the cuda tests on a GPU machine without Go (gpu-bundle.sh)"
	"$here/gpu-bundle.sh" "$work/bundle" >/dev/null
	took

	step "kernels to PTX for compute_80 and compute_90"
	"$here/check-kernels.sh"
	took
fi

step "emulator: conformance suite and custom-kernel gradchecks (-tags cudaemu)"
go vet -tags cudaemu ./gpu/...
go run ./internal/testsum ${TEST_TALLY:+-tally "$TEST_TALLY"} -count=1 -tags cudaemu ./gpu/...
took

step "emulator under the Go race detector"
go run ./internal/testsum ${TEST_TALLY:+-tally "$TEST_TALLY"} -count=1 -race -tags cudaemu ./gpu/...
took

step "kernels under ThreadSanitizer and AddressSanitizer+UBSan"
cxx="${CXX:-g++}"
flags=(-std=c++17 -O1 -g -pthread -DAGX_EMU -include "$root/gpu/emu/cuda_emu.h" -x c++)
(cd gpu/kernels && cat agx_cuda.h elementwise.cu reduce.cu index.cu matmul.cu attention.cu ../emu/testdata/sanitize.cc) >"$work/sanitize.cc"
(cd gpu/kernels && cat agx_cuda.h ../emu/testdata/race.cu) >"$work/race.cc"
# The sanitized binaries are cached by content: the ASan+UBSan build alone takes ~40 s.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/agx-cuda-emu/sanitize"
mkdir -p "$cache"
key="$(cat "$work/sanitize.cc" "$work/race.cc" gpu/emu/cuda_emu.h | sha256sum | cut -c1-24)-$("$cxx" -dumpfullversion)"
if [[ ! -x "$cache/$key-asan" ]]; then
	"$cxx" "${flags[@]}" -fsanitize=thread "$work/sanitize.cc" -o "$work/tsan" &
	"$cxx" "${flags[@]}" -O0 -fsanitize=address,undefined -fno-sanitize-recover=all "$work/sanitize.cc" -o "$work/asan" &
	"$cxx" "${flags[@]}" -fsanitize=thread "$work/race.cc" -o "$work/race" &
	wait %1 %2 %3
	rm -f "$cache"/*-tsan "$cache"/*-race "$cache"/*-asan
	for b in tsan race asan; do mv "$work/$b" "$cache/$key-$b"; done
fi
for b in tsan race asan; do cp "$cache/$key-$b" "$work/$b"; done
TSAN_OPTIONS=halt_on_error=1 "$work/tsan"
"$work/asan"
if TSAN_OPTIONS=exitcode=66 "$work/race" >"$work/race.log" 2>&1; then
	echo "negative control: ThreadSanitizer did not report the missing __syncthreads" >&2
	exit 1
fi
grep -q 'ThreadSanitizer: data race' "$work/race.log"
echo "negative control: the missing __syncthreads is reported as a data race"
took
