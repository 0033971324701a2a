//go:build !unix

package bench

// minorFaults reports that page faults are not counted on this OS.
func minorFaults() int64 { return -1 }
