//go:build openblas

package openblas

// #include "split.h"
import "C"

// Hooks into the C workers of the OpenBLAS stripes (split.c),
// for the tests: they cannot call C themselves.

// splitMoves counts the workers moved off another thread's CPU so far.
func splitMoves() int64 { return int64(C.agx_split_moves()) }

// splitRanOn is the CPU on which worker i started its last stripe (-1 if
// unknown).
func splitRanOn(i int) int { return int(C.agx_split_ran_on(C.int(i))) }

// splitPinWorker narrows worker i's affinity to cpu.
func splitPinWorker(i, cpu int) bool { return C.agx_split_pin_worker(C.int(i), C.int(cpu)) != 0 }

// splitPinSelf narrows the calling thread's affinity to cpu; the caller
// must hold its thread (runtime.LockOSThread) and undo it with
// splitUnpinSelf.
func splitPinSelf(cpu int) bool { return C.agx_split_pin_self(C.int(cpu)) != 0 }

// splitUnpinSelf gives the calling thread the CPUs the process had when
// the workers started.
func splitUnpinSelf() bool { return C.agx_split_unpin_self() != 0 }

// splitThisCPU is the calling thread's CPU (-1 if unknown).
func splitThisCPU() int { return int(C.agx_split_this_cpu()) }

// splitWorkerCPUs is how many CPUs worker i may run on (-1 if unknown).
func splitWorkerCPUs(i int) int { return int(C.agx_split_worker_cpus(C.int(i))) }

// splitAllowedCPUs is how many CPUs the process had when the workers
// started (0 before, or where unknown).
func splitAllowedCPUs() int { return int(C.agx_split_allowed_cpus()) }
