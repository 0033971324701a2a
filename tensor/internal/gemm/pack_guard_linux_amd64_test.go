package gemm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"unsafe"
)

// guarded returns a slice of n elements that ends where an inaccessible
// page begins, so that reading or writing past its end faults, and a
// function that unmaps it.
func guarded[T float32 | float64](t *testing.T, n int) ([]T, func()) {
	t.Helper()
	page := syscall.Getpagesize()
	size := n * int(sizeOf[T]())
	span := (size + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, span+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[span:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&mem[span-size])), n), func() { syscall.Munmap(mem) }
}

// testPackGuarded runs the packing of mode with src and dst each ending at
// an inaccessible page (a read or write past either faults) and compares
// the result with the Go code's.
func testPackGuarded[T float32 | float64](t *testing.T, mode packing) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, strided := range []bool{true, false} {
		for w := 1; w <= 24; w++ {
			for n := 0; n <= w; n++ {
				for _, kcb := range []int{1, 7, 8, 9, 16, 33} {
					for pad := 0; pad < 2; pad++ {
						var ld, ns int
						if strided {
							ld = kcb + pad
							ns = max(0, n-1)*ld + kcb
						} else {
							ld = n + pad
							ns = (kcb-1)*ld + n
						}
						src, freeSrc := guarded[T](t, max(ns, 1))
						src = src[max(ns, 1)-ns:]
						copy(src, specialSlice[T](r, ns))
						dst, freeDst := guarded[T](t, kcb*w)
						want := make([]T, kcb*w)
						run := func(mode packing, dst []T) {
							old := asmPack
							asmPack = mode
							defer func() { asmPack = old }()
							if strided {
								packStrided(dst, src, ld, n, w, kcb, 1)
							} else {
								packContig(dst, src, ld, n, w, kcb, 1)
							}
						}
						run(packGo, want)
						run(mode, dst)
						if i := sameBits(dst, want); i >= 0 {
							t.Fatalf("strided=%v n=%d w=%d kcb=%d ld=%d: element %d = %v, want %v",
								strided, n, w, kcb, ld, i, dst[i], want[i])
						}
						freeSrc()
						freeDst()
					}
				}
			}
		}
	}
}

// TestPackGuarded checks that no packing assembly reads past its source or
// writes past its panel: TestPack compares values only, and a read past the
// end does not change them.
func TestPackGuarded(t *testing.T) {
	if raceEnabled {
		t.Skip("serial comparison of assembly with Go code: run without -race")
	}
	for _, mode := range packings()[1:] {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			t.Run("float32", func(t *testing.T) { testPackGuarded[float32](t, mode) })
			t.Run("float64", func(t *testing.T) { testPackGuarded[float64](t, mode) })
		})
	}
}

// testInPlaceGuarded runs products whose A, read in place by the strided
// kernels (inPlaceA), ends at an inaccessible page, and compares C with the
// same product with A packed.
func testInPlaceGuarded[T float32 | float64](t *testing.T, kn *kernel[T]) {
	packed := *kn
	packed.strided = stridedKernels[T]{}
	r := rand.New(rand.NewPCG(11, 12))
	for _, tA := range []bool{false, true} {
		for _, m := range []int{6, 12, 13} {
			// Past kc = 256 the second k block adds into C.
			for _, k := range []int{1, 3, 4, 7, 9, 257, 300} {
				n := kn.nr + 3
				lda := k + 1
				na := (m-1)*lda + k
				if tA {
					lda = m + 2
					na = (k-1)*lda + m
				}
				a, free := guarded[T](t, na)
				copy(a, randSlice[T](r, na))
				p := problem[T]{transA: tA, m: m, n: n, k: k, alpha: 1, a: a, lda: lda,
					b: randSlice[T](r, k*n), ldb: n, ldc: n}
				if !inPlaceA(kn, p) {
					t.Fatalf("tA=%v m=%d k=%d: A is not read in place", tA, m, k)
				}
				for _, beta := range []T{0, 1} {
					c0 := randSlice[T](r, m*n)
					got, want := slices.Clone(c0), slices.Clone(c0)
					p.c = got
					gemm(kn, p, beta)
					p.c = want
					gemm(&packed, p, beta)
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("tA=%v m=%d k=%d beta=%v: C[%d] = %v in place, %v packed", tA, m, k, beta, i, got[i], want[i])
					}
				}
				free()
			}
		}
	}
}

// TestInPlaceGuarded checks that the strided kernels read no further than
// the last value of A they use.
func TestInPlaceGuarded(t *testing.T) {
	if !available()[1] {
		t.Skip("no AVX2 and FMA: no strided kernels")
	}
	t.Run("float32", func(t *testing.T) { testInPlaceGuarded(t, kernelsF32[1]) })
	t.Run("float64", func(t *testing.T) { testInPlaceGuarded(t, kernelsF64[1]) })
}
