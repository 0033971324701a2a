#!/usr/bin/env bash
# Runs a bundle made by gpu-bundle.sh on a machine with an NVIDIA GPU: every
# cuda-tagged test of gpu and gpu/cudafn, then the device benchmarks.
#
#   run.sh [LOGDIR]      logs: tests-gpu.log, tests-cudafn.log, bench.log
#
#   AGX_BENCHTIME  -test.benchtime for the benchmarks (default 1s)
#   AGX_BENCH      -test.bench pattern (default .; "none" skips them)
#   AGX_TESTS      "none" skips the tests (to time the benchmarks apart from a
#                  test run under AGX_DEBUG_UNINIT=1, say)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
logs="${1:-$here}"
mkdir -p "$logs"
major="$(cat "$here/cuda-major")"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

# The bundle links libcublas.so.N and libnvrtc.so.N by soname; find them.
libdirs=""
for lib in "libcublas.so.$major" "libnvrtc.so.$major"; do
	f="$(find / -xdev -name "$lib" \( -type f -o -type l \) 2>/dev/null | head -n 1)"
	if [[ -z "$f" ]]; then
		echo "run.sh: $lib not found on this machine (CUDA $major toolkit or nvidia-cublas/nvidia-cuda-nvrtc wheels)" >&2
		exit 1
	fi
	libdirs="$libdirs:$(dirname "$f")"
done
export AGX_GPU_BUNDLE=1 # no checkout beside the binaries (lessons_test.go)
export LD_LIBRARY_PATH="${libdirs#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "libraries from: $LD_LIBRARY_PATH"

rc=0
tests="gpu cudafn"
[[ "${AGX_TESTS:-}" != none ]] || tests=""
for t in $tests; do
	echo "== go test -tags cuda ./$t (on the GPU)"
	"$here/$t.test" -test.v -test.count=1 >"$logs/tests-$t.log" 2>&1
	r=$?
	grep -E '^(--- FAIL|FAIL|ok|PASS)' "$logs/tests-$t.log" | tail -n 20
	echo "   exit $r, $(grep -c -- '--- PASS' "$logs/tests-$t.log") passed, $(grep -c -- '--- FAIL' "$logs/tests-$t.log") failed, $(grep -c -- '--- SKIP' "$logs/tests-$t.log") skipped"
	[[ $r -eq 0 ]] || rc=1
done

if [[ "${AGX_BENCH:-.}" != none ]]; then
	echo "== benchmarks (device time: each iteration reads its result back, which waits for the device)"
	"$here/gpu.test" -test.run '^$' -test.bench "${AGX_BENCH:-.}" -test.benchtime "${AGX_BENCHTIME:-1s}" -test.benchmem 2>&1 | tee "$logs/bench.log"
	[[ ${PIPESTATUS[0]} -eq 0 ]] || rc=1
fi
exit $rc
