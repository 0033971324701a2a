package gemm

import (
	"syscall"
	"unsafe"
)

// threadTime returns the CPU time consumed by the calling OS thread, in
// seconds, or a negative number if it cannot be read.
func threadTime() float64 {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return -1
	}
	return float64(ts.Nano()) / 1e9
}
