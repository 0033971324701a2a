//go:build !linux

package peak

import "time"

// Clock returns wall time; on Linux it is the calling thread's CPU time.
func Clock() time.Duration { return time.Duration(time.Now().UnixNano()) }
