//go:build openblas

package openblas

// char *openblas_get_corename(void);
import "C"

import "os"

// kernels names the set of kernels OpenBLAS runs, for Name. A
// DYNAMIC_ARCH build of OpenBLAS (Debian's) picks one set by the CPU when it
// is loaded, or the set that OPENBLAS_CORETYPE names; the set decides its
// speed more than anything else. On the tenth round's VM, whose CPU has
// AVX-512, OpenBLAS 0.3.21 picks its Cooperlake (AVX-512) kernels, and the
// machine's environment sets OPENBLAS_CORETYPE=Haswell, the AVX2 kernels: a
// 256³ float32 product into a reused output takes 185-190 µs on those and
// 105-110 µs on the AVX-512 ones (one thread). PyTorch runs on the same
// library, so `agx bench` reports its set too.
func kernels() string {
	s := C.GoString(C.openblas_get_corename()) + " kernels"
	if v, ok := os.LookupEnv("OPENBLAS_CORETYPE"); ok {
		s += " (OPENBLAS_CORETYPE=" + v + ")"
	}
	return s
}
