//go:build !agx_goid_stack

#include "textflag.h"

// func curg() uintptr: the address of the calling goroutine's runtime g,
// which the arm64 port keeps in register g (R28).
TEXT ·curg(SB),NOSPLIT,$0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET
