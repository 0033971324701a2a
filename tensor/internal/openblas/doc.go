// Package openblas is the OpenBLAS binding of package tensor's openblas
// build: gonum.org/v1/netlib's cgo binding to the system's libopenblas, with
// agx's changes to its GEMM calls (see Implementation) and the C worker
// threads that split one product over the cores when OpenBLAS runs one
// thread, spreading them over the CPUs (split.c).
//
// Only package tensor imports it, and only with the openblas build tag
// (tensor/blas_openblas.go installs Implementation as gonum's float32 and
// float64 BLAS and names it in tensor.BLAS). Every file but this one has
// that tag, so the default build compiles no cgo and links no OpenBLAS.
// With the tag, building needs a C toolchain and libopenblas (Debian:
// gcc and libopenblas-dev).
//
// OpenBLAS itself reads OPENBLAS_NUM_THREADS (Threads gives the result;
// products are split over the C threads when it is 1) and
// OPENBLAS_CORETYPE (which picks its kernels; Name reports both).
package openblas
