#include "textflag.h"

// Each loop iteration issues 12 (AVX2) or 24 (AVX-512) fused multiply-adds
// into as many independent accumulators, more than latency × issue width of
// any current x86 core (4 cycles × 2 units), so that throughput, not
// latency, bounds the loop. The accumulators start at zero and stay zero:
// no denormals, no overflow.

#define FMA12Y(op) \
	op Y12, Y13, Y0; op Y12, Y13, Y1; op Y12, Y13, Y2; op Y12, Y13, Y3; \
	op Y12, Y13, Y4; op Y12, Y13, Y5; op Y12, Y13, Y6; op Y12, Y13, Y7; \
	op Y12, Y13, Y8; op Y12, Y13, Y9; op Y12, Y13, Y10; op Y12, Y13, Y11

#define FMA12Z(op) \
	op Z12, Z13, Z0; op Z12, Z13, Z1; op Z12, Z13, Z2; op Z12, Z13, Z3; \
	op Z12, Z13, Z4; op Z12, Z13, Z5; op Z12, Z13, Z6; op Z12, Z13, Z7; \
	op Z12, Z13, Z8; op Z12, Z13, Z9; op Z12, Z13, Z10; op Z12, Z13, Z11

#define FMA12HI(op) \
	op Z12, Z13, Z14; op Z12, Z13, Z15; op Z12, Z13, Z16; op Z12, Z13, Z17; \
	op Z12, Z13, Z18; op Z12, Z13, Z19; op Z12, Z13, Z20; op Z12, Z13, Z21; \
	op Z12, Z13, Z22; op Z12, Z13, Z23; op Z12, Z13, Z24; op Z12, Z13, Z25

// func fmaAVX2F32(n int)
TEXT ·fmaAVX2F32(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	VZEROALL
loop:
	FMA12Y(VFMADD231PS)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func fmaAVX2F64(n int)
TEXT ·fmaAVX2F64(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	VZEROALL
loop:
	FMA12Y(VFMADD231PD)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func fmaAVX512F32(n int)
TEXT ·fmaAVX512F32(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	VZEROALL
	VPXORD Z16, Z16, Z16; VPXORD Z17, Z17, Z17; VPXORD Z18, Z18, Z18; VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20; VPXORD Z21, Z21, Z21; VPXORD Z22, Z22, Z22; VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24; VPXORD Z25, Z25, Z25
loop:
	FMA12Z(VFMADD231PS)
	FMA12HI(VFMADD231PS)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func fmaAVX512F64(n int)
TEXT ·fmaAVX512F64(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	VZEROALL
	VPXORD Z16, Z16, Z16; VPXORD Z17, Z17, Z17; VPXORD Z18, Z18, Z18; VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20; VPXORD Z21, Z21, Z21; VPXORD Z22, Z22, Z22; VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24; VPXORD Z25, Z25, Z25
loop:
	FMA12Z(VFMADD231PD)
	FMA12HI(VFMADD231PD)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET
