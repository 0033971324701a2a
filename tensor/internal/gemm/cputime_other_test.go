//go:build !linux

package gemm

func threadTime() float64 { return -1 }
