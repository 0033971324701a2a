package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// testNarrowSplit runs products that narrow sends to the transposed path,
// large enough (parallelMin lowered) for the transposed product to be split
// across the team on two threads, with C all NaN when beta is 0. It checks
// them against the naive product and the split result against the serial
// one bit for bit, and that C's padding columns are left alone.
func testNarrowSplit[T float32 | float64](t *testing.T, ks []*kernel[T]) {
	defer func(old int) { parallelMin = old }(parallelMin)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, kn := range testKernels(ks) {
		t.Run(kn.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 12))
			for _, n := range []int{1, 3, kn.nr/2 + 1} {
				for _, m := range []int{97, 600} {
					for _, tr := range [][2]bool{{false, false}, {true, true}, {false, true}, {true, false}} {
						for _, s := range [][2]float64{{1, 0}, {-1.5, 0.5}, {0.75, 1}} {
							name := fmt.Sprintf("m=%d n=%d tA=%v tB=%v alpha=%v beta=%v", m, n, tr[0], tr[1], s[0], s[1])
							k := 37
							ar, ac := m, k
							if tr[0] {
								ar, ac = k, m
							}
							br, bc := k, n
							if tr[1] {
								br, bc = n, k
							}
							lda, ldb, ldc := ac+1, bc+2, n+3
							a, b := randSlice[T](r, ar*lda), randSlice[T](r, br*ldb)
							c0 := randSlice[T](r, m*ldc)
							if s[1] == 0 {
								for i := range c0 {
									c0[i] = T(math.NaN())
								}
							}
							p := problem[T]{transA: tr[0], transB: tr[1], m: m, n: n, k: k, alpha: T(s[0]),
								a: a, lda: lda, b: b, ldb: ldb, ldc: ldc}
							run := func(min int) []T {
								parallelMin = min
								q := p
								q.c = append([]T(nil), c0...)
								gemm(kn, q, T(s[1]))
								return q.c
							}
							serial, split := run(math.MaxInt/8), run(1)
							p.c = c0
							want, _ := naive(p, T(s[1]))
							for x := range serial {
								i, j := x/ldc, x%ldc
								if j >= n {
									if !same(serial[x], c0[x]) || !same(split[x], c0[x]) {
										t.Fatalf("%s: C[%d][%d] outside the result changed", name, i, j)
									}
									continue
								}
								if !same(serial[x], split[x]) {
									t.Fatalf("%s: C[%d][%d]: split %v, serial %v", name, i, j, split[x], serial[x])
								}
								if w := want[i*n+j]; !(math.Abs(float64(serial[x])-w) <= 1e-3*math.Max(1, math.Abs(w))) {
									t.Fatalf("%s: C[%d][%d] = %v, want %v", name, i, j, serial[x], w)
								}
							}
						}
					}
				}
			}
		})
	}
}

// same reports whether x and y are equal or both NaN.
func same[T float32 | float64](x, y T) bool { return x == y || (x != x && y != y) }

func TestNarrowSplit(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testNarrowSplit(t, kernelsF32) })
	t.Run("float64", func(t *testing.T) { testNarrowSplit(t, kernelsF64) })
}

// poisonStash fills buffers kept in worker 0's stash with NaN, so that a
// transposed product that read its scratch before storing into it, with
// any beta, shows it.
func poisonStash[T float32 | float64]() {
	var bs []*buf[T]
	for _, n := range []int{1 << 10, 1 << 14, 1 << 16} {
		b := getBuf[T](n, 0)
		for i := range b.s {
			b.s[i] = T(math.NaN())
		}
		bs = append(bs, b)
	}
	for _, b := range bs {
		putBuf(b, 0)
	}
}

// testNarrowStaleScratch runs transposed products over a scratch matrix
// full of NaN, with several k blocks on the small-block kernels.
func testNarrowStaleScratch[T float32 | float64](t *testing.T, ks []*kernel[T]) {
	for _, kn := range testKernels(ks) {
		t.Run(kn.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			c := 0
			for _, n := range []int{1, 5, kn.nr/2 + 1} {
				for _, m := range []int{n + 1, 300} {
					for _, k := range []int{1, 600} {
						for _, tr := range [][2]bool{{false, false}, {true, true}} {
							s := scalars[c%len(scalars)]
							poisonStash[T]()
							runCase(t, kn, r, tr[0], tr[1], m, n, k, 1, T(s[0]), T(s[1]))
							c++
						}
					}
				}
			}
		})
	}
}

func TestNarrowStaleScratch(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testNarrowStaleScratch(t, kernelsF32) })
	t.Run("float64", func(t *testing.T) { testNarrowStaleScratch(t, kernelsF64) })
}
