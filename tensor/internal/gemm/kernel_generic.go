package gemm

// The portable micro-kernel: a 4×4 tile held in sixteen scalar accumulators,
// which the compiler keeps in registers. It serves CPUs without the assembly
// kernels and is the reference the tests compare those kernels with.

const genericMR, genericNR = 4, 4

var (
	genericF32 = &kernel[float32]{name: "go-4x4", mr: genericMR, nr: genericNR, mc: 128, kc: 256, nc: 2048, fn: kernGeneric[float32], set: kernGenericSet[float32]}
	genericF64 = &kernel[float64]{name: "go-4x4", mr: genericMR, nr: genericNR, mc: 128, kc: 256, nc: 2048, fn: kernGeneric[float64], set: kernGenericSet[float64]}
)

// kernGenericSet stores the product of the panels into the tile at c.
func kernGenericSet[T float32 | float64](k int, a, b, c *T, ldc int) {
	cs := unsafeSlice(c, 3*ldc+genericNR)
	for i := 0; i < genericMR; i++ {
		clear(cs[i*ldc : i*ldc+genericNR])
	}
	kernGeneric(k, a, b, c, ldc)
}

// kernGeneric adds the product of a packed 4×k A panel and a packed k×4 B
// panel into the 4×4 tile of C at c (row stride ldc).
func kernGeneric[T float32 | float64](k int, a, b, c *T, ldc int) {
	as := unsafeSlice(a, k*genericMR)
	bs := unsafeSlice(b, k*genericNR)
	var c00, c01, c02, c03, c10, c11, c12, c13 T
	var c20, c21, c22, c23, c30, c31, c32, c33 T
	for p := 0; p < k; p++ {
		ap := as[p*genericMR : p*genericMR+genericMR : p*genericMR+genericMR]
		bp := bs[p*genericNR : p*genericNR+genericNR : p*genericNR+genericNR]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		a0 := ap[0]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		a1 := ap[1]
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a2 := ap[2]
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		a3 := ap[3]
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	cs := unsafeSlice(c, 3*ldc+genericNR)
	r := cs[0:4:4]
	r[0], r[1], r[2], r[3] = r[0]+c00, r[1]+c01, r[2]+c02, r[3]+c03
	r = cs[ldc : ldc+4 : ldc+4]
	r[0], r[1], r[2], r[3] = r[0]+c10, r[1]+c11, r[2]+c12, r[3]+c13
	r = cs[2*ldc : 2*ldc+4 : 2*ldc+4]
	r[0], r[1], r[2], r[3] = r[0]+c20, r[1]+c21, r[2]+c22, r[3]+c23
	r = cs[3*ldc : 3*ldc+4 : 3*ldc+4]
	r[0], r[1], r[2], r[3] = r[0]+c30, r[1]+c31, r[2]+c32, r[3]+c33
}
