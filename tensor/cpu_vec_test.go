package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goagx/agx/tensor/internal/vec"
)

// vecTestValues returns n values of type T, a fifth of them special (±0,
// ±Inf, NaN, subnormal, huge).
func vecTestValues[T Float](r *rand.Rand, n int) []T {
	sub := T(math.SmallestNonzeroFloat64)
	var z T
	if _, ok := any(z).(float32); ok {
		sub = T(math.Float32frombits(1))
	}
	big64 := 1e300
	big := T(big64)
	if _, ok := any(z).(float32); ok {
		big = T(float32(3e38))
	}
	sp := []T{0, T(math.Copysign(0, -1)), T(math.Inf(1)), T(math.Inf(-1)), T(math.NaN()), sub, -sub, big, -big, 1, 3}
	v := make([]T, n)
	for i := range v {
		if r.IntN(5) == 0 {
			v[i] = sp[r.IntN(len(sp))]
		} else {
			v[i] = T(r.NormFloat64() * 100)
		}
	}
	return v
}

func sameBits[T Float](x, y T) bool {
	if x != x || y != y {
		return x != x && y != y
	}
	return x == y && math.Signbit(float64(x)) == math.Signbit(float64(y))
}

// TestVecArith checks that the four arithmetic ops, which run on package vec
// for dense float runs, give exactly the scalar results in every operand
// layout that reaches the vectorised loops (same shape, a scalar on either
// side, a broadcast row, a broadcast column on either side), on rows shorter
// and longer than vecMin, serially and split across goroutines.
func TestVecArith(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testVecArith[float32](t) })
	t.Run("float64", func(t *testing.T) { testVecArith[float64](t) })
}

func testVecArith[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ops := []struct {
		op BinaryOp
		f  func(x, y T) T
	}{
		{OpAdd, func(x, y T) T { return x + y }},
		{OpSub, func(x, y T) T { return x - y }},
		{OpMul, func(x, y T) T { return x * y }},
		{OpDiv, func(x, y T) T { return x / y }},
	}
	// Each layout gives the operand shapes for an r×c result.
	layouts := []struct {
		name   string
		shapes func(r, c int) (a, b []int)
	}{
		{"same", func(r, c int) ([]int, []int) { return []int{r, c}, []int{r, c} }},
		{"scalar-right", func(r, c int) ([]int, []int) { return []int{r, c}, []int{} }},
		{"scalar-left", func(r, c int) ([]int, []int) { return []int{}, []int{r, c} }},
		{"row", func(r, c int) ([]int, []int) { return []int{r, c}, []int{c} }},
		{"column-right", func(r, c int) ([]int, []int) { return []int{r, c}, []int{r, 1} }},
		{"column-left", func(r, c int) ([]int, []int) { return []int{r, 1}, []int{r, c} }},
	}
	sizes := [][2]int{{1, 1}, {1, 15}, {1, 16}, {1, 17}, {3, 33}, {5, 100}, {2, 1000}, {300, 400}}
	for _, o := range ops {
		for _, l := range layouts {
			for _, par := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%s/parallel=%v", o.op, l.name, par), func(t *testing.T) {
					for _, sz := range sizes {
						as, bs := l.shapes(sz[0], sz[1])
						a := FromSlice(vecTestValues[T](r, refNumel(as)), as...)
						b := FromSlice(vecTestValues[T](r, refNumel(bs)), bs...)
						var got *Tensor
						pm := 1 << 40
						if par {
							pm = 2
						}
						withParallelMin(pm, func() { got = Binary(o.op, a, b) })
						ad, bd, gd := Data[T](a), Data[T](b), Data[T](got)
						// Broadcast by hand: element (i, j) of an operand.
						at := func(d []T, sh []int, i, j int) T {
							switch {
							case len(sh) == 0:
								return d[0]
							case len(sh) == 1:
								return d[j]
							case sh[1] == 1:
								return d[i]
							}
							return d[i*sh[1]+j]
						}
						for i := 0; i < sz[0]; i++ {
							for j := 0; j < sz[1]; j++ {
								x, y := at(ad, as, i, j), at(bd, bs, i, j)
								if want := o.f(x, y); !sameBits(gd[i*sz[1]+j], want) {
									t.Fatalf("%v: (%d,%d): %v op %v = %v, want %v", sz, i, j, x, y, gd[i*sz[1]+j], want)
								}
							}
						}
					}
				})
			}
		}
	}
}

// TestVecSums checks the float sums that run on package vec against their
// documented order exactly: a sum over the outer dim adds the rows in turn
// (dst_row += src_row from +0), a sum over the last dim is vec.Sum of each
// row, serially and split across goroutines.
func TestVecSums(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testVecSums[float32](t) })
	t.Run("float64", func(t *testing.T) { testVecSums[float64](t) })
}

func testVecSums[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, sz := range [][2]int{{1, 1}, {2, 17}, {33, 5}, {256, 512}, {40, 3000}} {
		for _, par := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d/parallel=%v", sz[0], sz[1], par), func(t *testing.T) {
				rows, cols := sz[0], sz[1]
				d := make([]T, rows*cols)
				for i := range d {
					d[i] = T(r.NormFloat64())
				}
				x := FromSlice(d, rows, cols)
				pm := 1 << 40
				if par {
					pm = 2
				}
				var s0, s1, all []T
				withParallelMin(pm, func() {
					s0 = Data[T](x.Sum(0))
					s1 = Data[T](x.Sum(1))
					all = Data[T](x.Sum())
				})
				for j := 0; j < cols; j++ {
					var acc T
					for i := 0; i < rows; i++ {
						acc += d[i*cols+j]
					}
					if !sameBits(s0[j], acc) {
						t.Fatalf("Sum(0)[%d] = %v, want %v", j, s0[j], acc)
					}
				}
				for i := 0; i < rows; i++ {
					if want := vecSumOf(d[i*cols : (i+1)*cols]); !sameBits(s1[i], want) {
						t.Fatalf("Sum(1)[%d] = %v, want %v", i, s1[i], want)
					}
				}
				if !par {
					if got, want := all[0], vecSumOf(d); !sameBits(got, want) {
						t.Fatalf("Sum() = %v, want %v", got, want)
					}
				}
			})
		}
	}
}

// vecSumOf is vec.Sum for the tensor package's float types.
func vecSumOf[T Float](v []T) T {
	switch s := any(v).(type) {
	case []float32:
		return T(vec.Sum(s))
	case []float64:
		return T(vec.Sum(s))
	}
	panic("vecSumOf: not a float slice")
}

// BenchmarkCheapSplit times the cheap (vectorised) kernels on one goroutine
// ("serial") and split across GOMAXPROCS ("split", as if parallelMinCheap were
// 1), for choosing cheapFactor: compare the two at each size.
func BenchmarkCheapSplit(b *testing.B) {
	for _, n := range []int{1 << 17, 1 << 18, 1 << 20, 1 << 22} {
		x := FromSlice(benchF32(n), n/512, 512)
		y := FromSlice(benchF32(n), n/512, 512)
		dst := Empty(Float32, n/512, 512)
		for _, mode := range []string{"serial", "split"} {
			pm := 1 << 40
			if mode == "split" {
				pm = 1
			}
			b.Run(fmt.Sprintf("Add/f32/n=%d/%s", n, mode), func(b *testing.B) {
				withParallelMin(pm, func() {
					for b.Loop() {
						BinaryTo(dst, OpAdd, x, y)
					}
				})
			})
			b.Run(fmt.Sprintf("SumDim0/f32/n=%d/%s", n, mode), func(b *testing.B) {
				withParallelMin(pm, func() {
					for b.Loop() {
						x.Sum(0)
					}
				})
			})
			b.Run(fmt.Sprintf("SumAll/f32/n=%d/%s", n, mode), func(b *testing.B) {
				withParallelMin(pm, func() {
					for b.Loop() {
						x.Sum()
					}
				})
			})
		}
	}
}

// TestDivByPowerOfTwo checks that a division by a scalar power of two, which
// runs as a product with its reciprocal, gives the bits of the division for
// every dividend (specials, subnormal results, results that round into the
// subnormals), per dtype, and that other divisors stay divisions.
func TestDivByPowerOfTwo(t *testing.T) {
	t.Run("float32", func(t *testing.T) {
		testDivByPowerOfTwo(t, []float32{0.5, 2, -4, 1, -1, 256, 0x1p-126, 0x1p127, -0x1p127},
			[]float32{3, 0.1, -6, 0x1p-149, 0x1p-127, float32(math.Inf(1)), 0, float32(math.NaN())})
	})
	t.Run("float64", func(t *testing.T) {
		testDivByPowerOfTwo(t, []float64{0.5, 2, -4, 1, -1, 256, 0x1p-1022, 0x1p1023, -0x1p1023},
			[]float64{3, 0.1, -6, 0x1p-1074, 0x1p-1023, math.Inf(-1), math.Copysign(0, -1), math.NaN()})
	})
}

func testDivByPowerOfTwo[T Float](t *testing.T, pow2, others []T) {
	r := rand.New(rand.NewPCG(9, 10))
	x := vecTestValues[T](r, 1000)
	minExp := -1021 // float64's smallest normal exponent, plus one
	if _, ok := any(T(0)).(float32); ok {
		minExp = -125
	}
	for i := range 200 {
		// Dividends whose quotients land in and near the subnormals.
		x[i] = T(math.Ldexp((r.Float64()+1)*float64(1-2*(i%2)), minExp+i%12-4))
	}
	for _, n := range []int{5, len(x)} {
		for _, d := range append(append([]T{}, pow2...), others...) {
			_, fast := exactReciprocal(d)
			if want := slices.Contains(pow2, d); fast != want {
				t.Fatalf("exactReciprocal(%v) reports %v, want %v", d, fast, want)
			}
			got := Data[T](Binary(OpDiv, FromSlice(x[:n]), d))
			for i, v := range x[:n] {
				if !sameBits(got[i], v/d) {
					t.Fatalf("n=%d: %v / %v = %v, want %v", n, v, d, got[i], v/d)
				}
			}
		}
	}
}
