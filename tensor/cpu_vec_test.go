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

// arithCase is an arithmetic op and its scalar definition.
type arithCase[T Num] struct {
	op BinaryOp
	f  func(x, y T) T
}

// vecArithCases are the ops that run on package vec's kernels.
func vecArithCases[T Num]() []arithCase[T] {
	return []arithCase[T]{
		{OpAdd, func(x, y T) T { return x + y }},
		{OpSub, func(x, y T) T { return x - y }},
		{OpMul, func(x, y T) T { return x * y }},
		{OpDiv, func(x, y T) T { return x / y }},
	}
}

func testVecArith[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ops := vecArithCases[T]()
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

// TestArithShortRows checks the runs of short rows that forEachRow3 hands
// the arithmetic ops whole (see arithRows): three-dim broadcasts whose rows
// are shorter than shortRow, in every layout that reaches a row kernel (an
// outer difference, a scalar per row on either side, a broadcast row) and
// one that does not (a transposed operand), on rows shorter and longer
// than vecMin, per dtype, serially and split across goroutines, against
// the scalar op element by element.
func TestArithShortRows(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testArithShortRows[float32](t) })
	t.Run("float64", func(t *testing.T) { testArithShortRows[float64](t) })
	t.Run("int64", func(t *testing.T) { testArithShortRows[int64](t) })
}

func testArithShortRows[T Num](t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	values := func(n int) []T {
		v := make([]T, n)
		for i := range v {
			v[i] = T(r.IntN(19) - 9) // exact in every dtype; 0 gives Div its infinities
			if _, ok := any(v[i]).(int64); ok && v[i] == 0 {
				v[i] = 1 // no integer division by zero
			}
		}
		return v
	}
	ops := append(vecArithCases[T](), arithCase[T]{OpMaximum, func(x, y T) T { return max(x, y) }})
	// Each layout gives the operands of a [bt, m, n] result, as tensors
	// whose element (i, j, k) of the broadcast is at(i, j, k).
	type operand struct {
		t  *Tensor
		at func(i, j, k int) T
	}
	make3 := func(bt, m, n int, layout string) (operand, operand) {
		col := func() operand { // [bt, m, 1]
			v := values(bt * m)
			return operand{FromSlice(v, bt, m, 1), func(i, j, _ int) T { return v[i*m+j] }}
		}
		row := func() operand { // [bt, 1, n]
			v := values(bt * n)
			return operand{FromSlice(v, bt, 1, n), func(i, _, k int) T { return v[i*n+k] }}
		}
		full := func() operand { // [bt, m, n]
			v := values(bt * m * n)
			return operand{FromSlice(v, bt, m, n), func(i, j, k int) T { return v[(i*m+j)*n+k] }}
		}
		switch layout {
		case "outer":
			return col(), row()
		case "column-left":
			return col(), full()
		case "column-right":
			return full(), col()
		case "row":
			return full(), row()
		}
		// transposed: b is a [bt, n, m] tensor read as [bt, m, n]
		v := values(bt * m * n)
		tr := FromSlice(v, bt, n, m).Transpose(1, 2)
		return full(), operand{tr, func(i, j, k int) T { return v[(i*n+k)*m+j] }}
	}
	// Runs of rows from shortRowsMin rows of fewer than shortRow elements;
	// fewer rows, and longer ones, go row by row.
	sizes := [][3]int{{1, 2, 15}, {3, 5, 64}, {3, 16, 15}, {2, 8, 16}, {5, 7, 33}, {2, 70, 100}, {16, 3, 511}, {1, 3, 511}, {2, 8, 512}}
	for _, o := range ops {
		if _, isInt := any(T(0)).(int64); isInt && o.op == OpDiv {
			continue // an integer division returns floats (TestBroadcastingOps)
		}
		for _, layout := range []string{"outer", "column-left", "column-right", "row", "transposed"} {
			for _, par := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%s/parallel=%v", o.op, layout, par), func(t *testing.T) {
					for _, sz := range sizes {
						a, b := make3(sz[0], sz[1], sz[2], layout)
						pm := 1 << 40
						if par {
							pm = 2
						}
						var got *Tensor
						withParallelMin(pm, func() { got = Binary(o.op, a.t, b.t) })
						gd := Data[T](got.Contiguous())
						for i := range sz[0] {
							for j := range sz[1] {
								for k := range sz[2] {
									x, y := a.at(i, j, k), b.at(i, j, k)
									g := gd[(i*sz[1]+j)*sz[2]+k]
									if want := o.f(x, y); !(g == want || g != g && want != want) || math.Signbit(float64(g)) != math.Signbit(float64(want)) {
										t.Fatalf("%v: (%d,%d,%d): %v op %v = %v, want %v", sz, i, j, k, x, y, g, want)
									}
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
// ("serial") and split across GOMAXPROCS ("split", as if parallelMinCheap
// returned 1), per float dtype, on operands of 256 KiB to 16 MiB, for
// choosing cheapFactor: compare the two at each size.
func BenchmarkCheapSplit(b *testing.B) {
	for _, dt := range []DType{Float32, Float64} {
		for _, kib := range []int{256, 512, 800, 1024, 4096, 16384} {
			n := kib << 10 / dt.Size()
			x := FromSlice(benchF32(n), n).To(dt)
			y := FromSlice(benchF32(n), n).To(dt)
			dst := Empty(dt, n)
			for _, mode := range []string{"serial", "split"} {
				pm := 1 << 40
				if mode == "split" {
					pm = 1
				}
				name := fmt.Sprintf("%v/%dKiB/%s", dt, kib, mode)
				b.Run("Add/"+name, func(b *testing.B) {
					withParallelMin(pm, func() {
						for b.Loop() {
							BinaryTo(dst, OpAdd, x, y)
						}
					})
				})
				b.Run("Sum/"+name, func(b *testing.B) {
					withParallelMin(pm, func() {
						for b.Loop() {
							x.Sum()
						}
					})
				})
			}
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
