package peak

import (
	"time"

	"golang.org/x/sys/unix"
)

// Clock returns the CPU time of the calling thread, which, unlike wall
// time, does not run on while other processes have the core. Callers lock
// their goroutine to its thread (runtime.LockOSThread) around a measurement.
// Outside Linux it is wall time.
func Clock() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
