//go:build (!amd64 && !arm64) || agx_goid_stack

package agx

import "runtime"

// goroutineKey identifies the calling goroutine for the grad-mode table by
// the id in the first line of its stack trace, "goroutine 123 [running]:"
// (several microseconds; amd64 and arm64 read the goroutine's descriptor
// instead). The build tag agx_goid_stack selects it everywhere, to test it.
func goroutineKey() uintptr {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = len("goroutine ")
	var id uintptr
	for i := prefix; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		id = id*10 + uintptr(b[i]-'0')
	}
	return id
}
