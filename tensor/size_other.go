//go:build !linux

package tensor

// defaultMaxAlloc is 1 TiB where the machine's memory is not read.
func defaultMaxAlloc() int64 { return 1 << 40 }
