package tensor

import (
	"fmt"
	"math"
	"testing"
)

func TestSoftmaxBackwardInPlace(t *testing.T) {
	gen := NewGenerator(31)
	cases := []struct {
		name  string
		shape []int
		scale float64
	}{
		{"scalar", nil, 1},
		{"one", []int{1}, 1},
		{"row7", []int{7}, 0.5},
		{"2x16", []int{2, 16}, 1},
		{"3x17", []int{3, 17}, 0.125},
		{"4x33", []int{4, 33}, 2},
		{"attention", []int{2, 3, 5, 128}, 0.125},
		{"2x129", []int{2, 129}, 1},
		{"long-rows", []int{2, 3000}, 1},
		{"nan-row", []int{3, 40}, 0.5}, // a NaN in y's second row
		{"no-rows", []int{0, 5}, 1},
		{"empty-rows", []int{3, 0}, 1},
	}
	for _, dt := range []DType{Float32, Float64} {
		rtol := 1e-12
		if dt == Float32 {
			rtol = 1e-5
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%s", dt, c.name), func(t *testing.T) {
				y := gen.Randn(dt, c.shape...).Mul(3)
				if y.Dim() > 0 {
					y = y.Softmax(-1)
				} else {
					y = OnesLike(y)
				}
				if c.name == "nan-row" {
					y.Select(0, 1).Select(0, 33).Fill(math.NaN())
				}
				g := gen.Randn(dt, c.shape...)
				want := g.Clone()
				want.SubInPlace(want.Mul(y).SumKeep(-1)).MulInPlace(y).MulInPlace(c.scale)
				got := g.Clone()
				v := got.Version()
				if r := got.SoftmaxBackwardInPlace(y, c.scale); r != got {
					t.Fatal("did not return its receiver")
				}
				if got.Version() == v {
					t.Error("version not bumped")
				}
				checkClose(t, got.Float64s(), want.Float64s(), rtol)
				// y as the gradient too: t = scale·y⊙(y - Σy²).
				self := y.Clone()
				wantSelf := y.Sub(y.Mul(y).SumKeep(-1)).Mul(y).Mul(c.scale)
				checkClose(t, self.SoftmaxBackwardInPlace(self, c.scale).Float64s(), wantSelf.Float64s(), rtol)
			})
		}
	}
}

func TestSoftmaxBackwardInPlaceErrors(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		other := Float64
		if dt == Float64 {
			other = Float32
		}
		shared := Zeros(dt, 10)
		cases := []struct {
			name      string
			g, y      *Tensor
			kind      error
			fragments []string
		}{
			{"int64", Zeros(Int64, 2, 3), Zeros(Int64, 2, 3), ErrDType, []string{"SoftmaxBackwardInPlace", "floating-point"}},
			{"dtypes differ", Zeros(dt, 2, 3), Zeros(other, 2, 3), ErrDType, []string{"dtype"}},
			{"shapes differ", Zeros(dt, 2, 3), Zeros(dt, 3, 2), ErrShape, []string{"[2 3]", "[3 2]"}},
			{"broadcast y", Zeros(dt, 2, 3), Zeros(dt, 1, 3), ErrShape, []string{"[1 3]"}},
			{"strided gradient", Zeros(dt, 3, 2).MT(), Zeros(dt, 2, 3), ErrArg, []string{"not contiguous"}},
			{"strided output", Zeros(dt, 2, 3), Zeros(dt, 3, 2).MT(), ErrArg, []string{"not contiguous"}},
			{"other backend", EmptyOn(otherCPU{}, dt, 2, 3), Zeros(dt, 2, 3), ErrDevice, []string{`"cpu2"`}},
			{"overlap", shared.Narrow(0, 0, 6), shared.Narrow(0, 2, 6), ErrArg, []string{"single memory location"}},
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%s", dt, c.name), func(t *testing.T) {
				mustPanicWith(t, c.kind, func() { c.g.SoftmaxBackwardInPlace(c.y, 1) }, c.fragments...)
			})
		}
	}
}
