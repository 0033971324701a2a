//go:build !agx_goid_stack

#include "textflag.h"

// func curg() uintptr: the address of the calling goroutine's runtime g,
// which the amd64 port keeps in thread-local storage.
TEXT ·curg(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
