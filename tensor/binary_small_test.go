package tensor

import (
	"math"
	"slices"
	"testing"
)

// TestBinarySmall checks Binary's shortcut for small same-shape float operands
// against BinaryTo, which always takes the general path, including operands
// the shortcut must leave alone (strided, offset, broadcast, mixed dtypes).
func TestBinarySmall(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		other := Float64
		if dt == Float64 {
			other = Float32
		}
		operands := []struct {
			name string
			a, b func() *Tensor
		}{
			{"0-d", func() *Tensor { return Full(dt, 1.5) }, func() *Tensor { return Full(dt, -0.25) }},
			{"[1]", func() *Tensor { return Full(dt, 3, 1) }, func() *Tensor { return Full(dt, 0, 1) }},
			{"[4]", func() *Tensor { return Arange(dt, 1, 5, 1) }, func() *Tensor { return Arange(dt, -2, 2, 1) }},
			{"offset", func() *Tensor { return Arange(dt, 0, 8, 1).Narrow(0, 3, 3) }, func() *Tensor { return Arange(dt, 1, 4, 1) }},
			{"strided", func() *Tensor { return Arange(dt, 0, 8, 1).Reshape(4, 2).Select(1, 1) }, func() *Tensor { return Arange(dt, 1, 5, 1) }},
			{"broadcast", func() *Tensor { return Full(dt, 2, 1) }, func() *Tensor { return Arange(dt, 1, 4, 1) }},
			{"0-d and [1]", func() *Tensor { return Full(dt, 2) }, func() *Tensor { return Full(dt, 5, 1) }},
			{"mixed dtypes", func() *Tensor { return Full(dt, 2, 2) }, func() *Tensor { return Full(other, 3, 2) }},
			{"[5]", func() *Tensor { return Arange(dt, 1, 6, 1) }, func() *Tensor { return Arange(dt, 2, 7, 1) }},
		}
		for _, op := range []BinaryOp{OpAdd, OpSub, OpMul, OpDiv} {
			for _, o := range operands {
				t.Run(dt.String()+"/"+op.String()+"/"+o.name, func(t *testing.T) {
					got := Binary(op, o.a(), o.b())
					want := BinaryTo(Empty(got.DType(), got.Shape()...), op, o.a(), o.b())
					if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
						t.Fatalf("got %v %v, want %v %v", got.DType(), got.Shape(), want.DType(), want.Shape())
					}
					g, w := got.Float64s(), want.Float64s()
					for i := range w {
						if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
							t.Fatalf("element %d: got %v, want %v", i, g[i], w[i])
						}
					}
				})
			}
		}
	}
}
