package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goagx/agx/tensor/internal/vec"
)

// selectCase builds n values of T with NaN, ±0 and ±Inf mixed in, and a
// random mask.
func selectValues[T Num](r *rand.Rand, n int) []T {
	v := make([]T, n)
	special := []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1)}
	for i := range v {
		x := r.NormFloat64() * 3
		if _, isInt := any(T(0)).(int64); !isInt && r.IntN(8) == 0 {
			x = special[r.IntN(len(special))]
		}
		v[i] = T(x)
	}
	return v
}

func sameBitsNum[T Num](x, y T) bool {
	switch a := any(x).(type) {
	case float32:
		return math.Float32bits(a) == math.Float32bits(any(y).(float32))
	case float64:
		return math.Float64bits(a) == math.Float64bits(any(y).(float64))
	}
	return x == y
}

// TestWhereCompareFast checks the branch-free Where and comparison loops
// against per-element references: dense operands and broadcast scalars on
// either side, every length up to 70 (so every tail), offsets into larger
// buffers, and special values.
func TestWhereCompareFast(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testWhereCompareFast[float32](t) })
	t.Run("float64", func(t *testing.T) { testWhereCompareFast[float64](t) })
	t.Run("int64", func(t *testing.T) { testWhereCompareFast[int64](t) })
}

func testWhereCompareFast[T Num](t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cmp := map[string]func(x, y T) bool{
		"Eq": func(x, y T) bool { return x == y }, "Ne": func(x, y T) bool { return x != y },
		"Lt": func(x, y T) bool { return x < y }, "Le": func(x, y T) bool { return x <= y },
		"Gt": func(x, y T) bool { return x > y }, "Ge": func(x, y T) bool { return x >= y },
	}
	for n := 0; n <= 70; n++ {
		a := FromSlice(selectValues[T](r, n+3)).Narrow(0, 2, n) // offset view
		b := FromSlice(selectValues[T](r, n))
		s := FromSlice(selectValues[T](r, 1)).Reshape()
		av, bv, sv := ToSlice[T](a), ToSlice[T](b), ToSlice[T](s)[0]
		for name, f := range cmp {
			for _, tc := range []struct {
				kind string
				got  *Tensor
				ref  func(i int) bool
			}{
				{"vv", Binary(cmpOp(name), a, b), func(i int) bool { return f(av[i], bv[i]) }},
				{"vs", Binary(cmpOp(name), a, s), func(i int) bool { return f(av[i], sv) }},
			} {
				got := ToSlice[bool](tc.got)
				for i := range got {
					if got[i] != tc.ref(i) {
						t.Fatalf("n=%d %s %s [%d]: %v %v -> %v", n, name, tc.kind, i, av[i], bv[i], got[i])
					}
				}
			}
		}
		cond := a.Gt(0)
		cv := ToSlice[bool](cond)
		for _, tc := range []struct {
			kind string
			got  *Tensor
			ref  func(i int) T
		}{
			{"vv", Where(cond, a, b), func(i int) T { return pick(cv[i], av[i], bv[i]) }},
			{"vs", Where(cond, a, s), func(i int) T { return pick(cv[i], av[i], sv) }},
			{"sv", Where(cond, s, b), func(i int) T { return pick(cv[i], sv, bv[i]) }},
		} {
			got := ToSlice[T](tc.got)
			for i := range got {
				if want := tc.ref(i); !sameBitsNum(got[i], want) {
					t.Fatalf("n=%d Where %s [%d] = %v, want %v", n, tc.kind, i, got[i], want)
				}
			}
		}
	}
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

func cmpOp(name string) BinaryOp {
	switch name {
	case "Eq":
		return OpEq
	case "Ne":
		return OpNe
	case "Lt":
		return OpLt
	case "Le":
		return OpLe
	case "Gt":
		return OpGt
	case "Ge":
		return OpGe
	}
	panic(fmt.Sprint("unknown comparison ", name))
}

// TestReluSpecialValues pins Relu on its edge values: NaN stays NaN, -0
// becomes +0, -Inf 0, +Inf +Inf.
func TestReluSpecialValues(t *testing.T) {
	in := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(-1), math.Inf(1), -2.5, 2.5}
	want := []float64{math.NaN(), 0, 0, 0, math.Inf(1), 0, 2.5}
	for _, dt := range []DType{Float32, Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			got := FromSlice(in).To(dt).Relu().Float64s()
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
					t.Errorf("Relu(%v) = %v, want %v", in[i], got[i], want[i])
				}
			}
		})
	}
}

// TestReluDense checks Relu's dense loop, which runs on package vec from
// vecMin elements on, against vec.ReluOf bit for bit: x for a positive x or
// a NaN (a negative NaN keeps its sign bit, unlike with Go's max(x, 0)),
// else +0 (NaNs of either sign and ±0 among the values) on every length up to 70 and a large one,
// at an offset into a larger buffer.
func TestReluDense(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testReluDense[float32](t) })
	t.Run("float64", func(t *testing.T) { testReluDense[float64](t) })
}

func testReluDense[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	negNaN := T(math.Copysign(math.NaN(), -1))
	for _, n := range append(rangeInts(71), 1<<17) {
		v := selectValues[T](r, n+3)
		for i := range v {
			if r.IntN(20) == 0 {
				v[i] = negNaN
			}
		}
		x := FromSlice(v).Narrow(0, 2, n)
		got, xv := ToSlice[T](x.Relu()), ToSlice[T](x)
		for i := range got {
			if want := vec.ReluOf(xv[i]); !sameBitsNum(got[i], want) {
				t.Fatalf("n=%d: Relu(%v) = %v, want %v", n, xv[i], got[i], want)
			}
		}
	}
}

func rangeInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestSqrtDense checks Sqrt's dense loop, which runs on package vec from
// vecMin elements on, against math.Sqrt bit for bit (negative inputs, ±0
// and NaNs included) on every length up to 70 and a large one, at an
// offset into a larger buffer, and in place.
func TestSqrtDense(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testSqrtDense[float32](t) })
	t.Run("float64", func(t *testing.T) { testSqrtDense[float64](t) })
}

func testSqrtDense[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range append(rangeInts(71), 1<<17) {
		v := selectValues[T](r, n+3)
		for i := range v {
			switch r.IntN(20) {
			case 0:
				v[i] = T(math.NaN())
			case 1:
				v[i] = T(math.Copysign(0, -1))
			case 2:
				v[i] = -v[i]
			}
		}
		x := FromSlice(v).Narrow(0, 2, n)
		xv := ToSlice[T](x)
		for _, got := range [][]T{ToSlice[T](x.Sqrt()), ToSlice[T](func() *Tensor { c := x.Clone(); return UnaryTo(c, OpSqrt, c) }())} {
			for i := range got {
				if want := T(math.Sqrt(float64(xv[i]))); !sameBitsNum(got[i], want) {
					t.Fatalf("n=%d: Sqrt(%v) = %v, want %v", n, xv[i], got[i], want)
				}
			}
		}
	}
}
