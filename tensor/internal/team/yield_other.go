//go:build !linux

package team

// osYield does nothing where sched_yield is not at hand; see yield_linux.go.
func osYield() {}
