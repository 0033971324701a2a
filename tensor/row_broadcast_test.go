package tensor

import (
	"math"
	"slices"
	"testing"
)

// rowCases are operand pairs for rowArith: one dense operand and one
// broadcast along the last dim or along the others, and pairs it must leave
// to the general path (fast says which).
var rowCases = []struct {
	name   string
	a, b   func(dt DType) *Tensor
	fast   bool
	shapes [2][]int
}{
	{name: "[4,16] and [4,1]", fast: true, shapes: [2][]int{{4, 16}, {4, 1}}},
	{name: "[4,1] and [4,16]", fast: true, shapes: [2][]int{{4, 1}, {4, 16}}},
	{name: "[4,16] and [16]", fast: true, shapes: [2][]int{{4, 16}, {16}}},
	{name: "[1,16] and [4,16]", fast: true, shapes: [2][]int{{1, 16}, {4, 16}}},
	{name: "[2,3,5] and [2,3,1]", fast: true, shapes: [2][]int{{2, 3, 5}, {2, 3, 1}}},
	{name: "[2,3,5] and [5]", fast: true, shapes: [2][]int{{2, 3, 5}, {5}}},
	{name: "[2,1,3,7] and [2,1,3,1]", fast: true, shapes: [2][]int{{2, 1, 3, 7}, {2, 1, 3, 1}}},
	{name: "[33,17] and [33,1]: odd lengths", fast: true, shapes: [2][]int{{33, 17}, {33, 1}}},
	{name: "[2,3,5] and [2,1,1]: outer dims broadcast", shapes: [2][]int{{2, 3, 5}, {2, 1, 1}}},
	{name: "[2,3,5] and [3,5]: a row per outer index", shapes: [2][]int{{2, 3, 5}, {3, 5}}},
	{name: "[4,1] and [1,16]: neither dense", shapes: [2][]int{{4, 1}, {1, 16}}},
	{
		name: "transposed and [16,1]",
		a:    func(dt DType) *Tensor { return Arange(dt, -30, 34, 1).Reshape(4, 16).T() },
		b:    func(dt DType) *Tensor { return Arange(dt, 1, 17, 1).Reshape(16, 1) },
	},
}

// rowOperand returns a tensor of shape with distinct values, some zero (so
// that Div makes infinities and NaNs), and some negative.
func rowOperand(dt DType, shape []int, seed float64) *Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Round(seed*float64(i%7-2)*100) / 37
	}
	return FromSlice(v, shape...).To(dt)
}

// checkBinaryBroadcast checks Binary(op, a, b) of float operands element by
// element, bit for bit, against the scalar op on the operands broadcast and
// copied.
func checkBinaryBroadcast(t *testing.T, op BinaryOp, a, b *Tensor) {
	t.Helper()
	dt := a.DType()
	got := Binary(op, a, b)
	shape := BroadcastShapes("test", a.Shape(), b.Shape())
	if !slices.Equal(got.Shape(), shape) || got.DType() != dt {
		t.Fatalf("%v %v %v: got %v %v, want %v %v", a.Shape(), op, b.Shape(), got.DType(), got.Shape(), dt, shape)
	}
	x := a.BroadcastTo(shape...).Contiguous().Float64s()
	y := b.BroadcastTo(shape...).Contiguous().Float64s()
	for i, g := range got.Float64s() {
		var w float64
		if dt == Float32 {
			w = float64(arithScalar[float32](op)(float32(x[i]), float32(y[i])))
		} else {
			w = arithScalar[float64](op)(x[i], y[i])
		}
		if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
			t.Fatalf("%v %v %v %v, element %d: %v %v %v = %v, want %v", dt, a.Shape(), op, b.Shape(), i, x[i], op, y[i], g, w)
		}
	}
}

func TestRowArith(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for _, op := range []BinaryOp{OpAdd, OpSub, OpMul, OpDiv} {
			for _, c := range rowCases {
				t.Run(dt.String()+"/"+op.String()+"/"+c.name, func(t *testing.T) {
					var a, b *Tensor
					if c.a != nil {
						a, b = c.a(dt), c.b(dt)
					} else {
						a, b = rowOperand(dt, c.shapes[0], 1.3), rowOperand(dt, c.shapes[1], -0.7)
					}
					checkBinaryBroadcast(t, op, a, b)
				})
			}
		}
	}
}

// The row-broadcast cases run without allocating; the others take the
// general path, which does (so the check can fail).
func TestRowArithAllocs(t *testing.T) {
	for _, c := range rowCases {
		if c.a != nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			a, b := rowOperand(Float32, c.shapes[0], 1), rowOperand(Float32, c.shapes[1], 2)
			shape := BroadcastShapes("test", a.Shape(), b.Shape())
			dst := Empty(Float32, shape...)
			dv, av, bv := broadcastView(dst, shape), broadcastView(a, shape), broadcastView(b, shape)
			allocs := testing.AllocsPerRun(20, func() { CPU{}.Binary(OpSub, dv, av, bv) })
			if c.fast && allocs != 0 {
				t.Errorf("%v allocations a call, want none", allocs)
			}
			if !c.fast && allocs == 0 {
				t.Errorf("no allocations: the general path was not taken")
			}
		})
	}
}
