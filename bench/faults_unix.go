//go:build unix

package bench

import "syscall"

// minorFaults returns the process's minor page faults so far (-1 if unknown).
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Minflt)
}
