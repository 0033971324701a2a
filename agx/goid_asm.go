//go:build (amd64 || arm64) && !agx_goid_stack

package agx

// curg returns the address of the calling goroutine's runtime descriptor (g),
// a few instructions in assembly. It identifies the goroutine while it runs:
// a descriptor is reused only after its goroutine has exited, and every
// NoGrad scope a goroutine opened is closed (by defer) before it exits.
func curg() uintptr

// goroutineKey identifies the calling goroutine for the grad-mode table.
func goroutineKey() uintptr { return curg() }
