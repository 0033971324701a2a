package peak

import "golang.org/x/sys/cpu"

//go:noescape
func fmaAVX2F32(n int)

//go:noescape
func fmaAVX2F64(n int)

//go:noescape
func fmaAVX512F32(n int)

//go:noescape
func fmaAVX512F64(n int)

func probes() []probe {
	var ps []probe
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ps = append(ps,
			probe{Width: 256, Bits: 32, fmas: 12, fn: fmaAVX2F32},
			probe{Width: 256, Bits: 64, fmas: 12, fn: fmaAVX2F64})
	}
	if cpu.X86.HasAVX512F {
		ps = append(ps,
			probe{Width: 512, Bits: 32, fmas: 24, fn: fmaAVX512F32},
			probe{Width: 512, Bits: 64, fmas: 24, fn: fmaAVX512F64})
	}
	return ps
}
