package tensor

import (
	"math"
	"testing"
)

// withPoison turns AGX_DEBUG_UNINIT's NaN filling on for one test.
func withPoison(t *testing.T) {
	t.Helper()
	old := poisonUninit
	poisonUninit = true
	t.Cleanup(func() { poisonUninit = old })
}

func TestAllocHostUninit(t *testing.T) {
	withPoison(t)
	for _, n := range []int{uninitMin, 1000, 1 << 20} {
		b32 := allocHostUninit[float32](n)
		b64 := allocHostUninit[float64](n)
		if len(b32.s) != n || len(b64.s) != n {
			t.Fatalf("n=%d: lengths %d, %d", n, len(b32.s), len(b64.s))
		}
		for _, i := range []int{0, n / 2, n - 1} {
			if !math.IsNaN(float64(b32.s[i])) || !math.IsNaN(b64.s[i]) {
				t.Fatalf("n=%d: element %d not poisoned: %v %v", n, i, b32.s[i], b64.s[i])
			}
		}
	}
	// Below uninitMin, and for the non-float dtypes, memory stays zeroed.
	if s := allocHostUninit[float64](uninitMin - 1).s; s[len(s)-1] != 0 {
		t.Fatalf("small buffer not zeroed: %v", s[len(s)-1])
	}
	if got := ToSlice[int64](emptyUninit(CPU{}, Int64, 500)); got[499] != 0 {
		t.Fatalf("int64 buffer not zeroed: %v", got[499])
	}
	if got := ToSlice[bool](emptyUninit(CPU{}, Bool, 500)); got[499] {
		t.Fatal("bool buffer not zeroed")
	}
}

// TestUninitResultsFullyWritten runs every op that allocates its result
// without zeroing on layouts that take different kernel paths (contiguous,
// broadcast, transposed, strided, empty inner dimension), with poisoned
// memory: an element a kernel leaves unwritten would come out as NaN.
func TestUninitResultsFullyWritten(t *testing.T) {
	withPoison(t)
	for _, dt := range []DType{Float32, Float64} {
		g := NewGenerator(7)
		x := g.Randn(dt, 37, 41)
		y := g.Randn(dt, 41, 37)
		row := g.Randn(dt, 1, 41)
		cases := []struct {
			name string
			f    func() *Tensor
		}{
			{"add", func() *Tensor { return x.Add(x) }},
			{"add broadcast", func() *Tensor { return x.Add(row) }},
			{"mul transposed", func() *Tensor { return x.Mul(y.T()) }},
			{"sub scalar", func() *Tensor { return x.Sub(1.5) }},
			{"div strided", func() *Tensor { return x.Slice(1, 0, 41, 2).Div(2) }},
			{"exp", func() *Tensor { return x.Exp() }},
			{"tanh transposed", func() *Tensor { return y.T().Tanh() }},
			{"sigmoid", func() *Tensor { return x.Sigmoid() }},
			{"relu", func() *Tensor { return x.Relu() }},
			{"where", func() *Tensor { return Where(x.Gt(0), x, row) }},
			{"matmul", func() *Tensor { return x.MatMul(y) }},
			{"matmul transposed operands", func() *Tensor { return y.T().MatMul(x.T()) }},
			{"matmul batched", func() *Tensor {
				return x.Reshape(1, 37, 41).Expand(3, 37, 41).MatMul(y)
			}},
			{"matmul empty inner", func() *Tensor {
				return Empty(dt, 40, 0).MatMul(Empty(dt, 0, 30))
			}},
			{"clone transposed", func() *Tensor { return x.T().Clone() }},
			{"contiguous", func() *Tensor { return x.Slice(0, 1, 37, 3).Contiguous() }},
			{"cast", func() *Tensor { return x.To(Float32 + Float64 - dt) }},
			{"sigmoid grad", func() *Tensor { return SigmoidGrad(x, x.Sigmoid()) }},
			{"tanh grad broadcast", func() *Tensor { return TanhGrad(row, x.Tanh()) }},
			{"cat rows", func() *Tensor { return Cat(0, x, y.T(), Empty(dt, 0)) }},
			{"cat columns promoted", func() *Tensor { return Cat(1, x, Ones(Int64, 37, 5), Ones(Bool, 37, 2)) }},
			{"gather", func() *Tensor { return x.Gather(1, FromSlice([]int64{3, 0, 40}).Reshape(1, 3).Expand(37, 3)) }},
			{"index select", func() *Tensor { return y.T().IndexSelect(0, FromSlice([]int64{2, 2, 36, 0})) }},
		}
		for _, c := range cases {
			out := c.f().To(Float64)
			for i, v := range out.Float64s() {
				if math.IsNaN(v) {
					t.Fatalf("%v %s: element %d of %v left unwritten", dt, c.name, i, out.Shape())
				}
			}
		}
	}
}

func TestEmptyUninit(t *testing.T) {
	withPoison(t)
	for _, dt := range []DType{Float32, Float64} {
		x := EmptyUninit(dt, 64, 96)
		if x.DType() != dt || x.Dim() != 2 || x.Size(0) != 64 || x.Size(1) != 96 {
			t.Fatalf("%v: got %v %v", dt, x.DType(), x.Shape())
		}
		if v := x.Float64s()[100]; !math.IsNaN(v) {
			t.Fatalf("%v: element not poisoned: %v", dt, v)
		}
		if x.AllocID() == 0 {
			t.Fatalf("%v: a large float result should be recyclable", dt)
		}
		// A recycled buffer of the same size is handed out again.
		DropRecycled()
		if !Recycle(x) {
			t.Fatalf("%v: Recycle refused the buffer", dt)
		}
		if y := EmptyUninit(dt, 96, 64); RecycledBytes() != 0 || y.Numel() != 64*96 {
			t.Fatalf("%v: the recycled buffer was not reused (%d bytes still free)", dt, RecycledBytes())
		}
		if s := EmptyUninit(dt, 3).Float64s(); s[2] != 0 {
			t.Fatalf("%v: a small tensor is not zeroed: %v", dt, s)
		}
	}
	if got := ToSlice[int64](EmptyUninit(Int64, 5000)); got[4999] != 0 {
		t.Fatal("int64 tensor not zeroed")
	}
	mustPanicWith(t, ErrDType, func() { EmptyUninit(DType(99), 3) }, "EmptyUninit")
}
