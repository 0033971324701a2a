package tensor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// naiveMatMul implements torch.matmul's rules with plain loops over row-major
// float64 data; it returns the result data and shape.
func naiveMatMul(a []float64, as []int, b []float64, bs []int) ([]float64, []int) {
	as, bs = slices.Clone(as), slices.Clone(bs)
	dropM, dropN := len(as) == 1, len(bs) == 1
	if dropM {
		as = []int{1, as[0]}
	}
	if dropN {
		bs = []int{bs[0], 1}
	}
	ar, br := len(as), len(bs)
	m, k, n := as[ar-2], as[ar-1], bs[br-1]
	batch := BroadcastShapes("naive", as[:ar-2], bs[:br-2])
	nb := 1
	for _, s := range batch {
		nb *= s
	}
	// index of batch element i in an operand with batch shape sh (broadcast)
	bidx := func(i int, sh []int) int {
		off, mul := 0, 1
		for d := len(batch) - 1; d >= 0; d-- {
			c := i % batch[d]
			i /= batch[d]
			j := d - (len(batch) - len(sh))
			if j < 0 {
				continue
			}
			if sh[j] != 1 {
				off += c * mul
			}
			mul *= sh[j]
		}
		return off
	}
	out := make([]float64, nb*m*n)
	for bi := 0; bi < nb; bi++ {
		ao := bidx(bi, as[:ar-2]) * m * k
		bo := bidx(bi, bs[:br-2]) * k * n
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for p := 0; p < k; p++ {
					s += a[ao+i*k+p] * b[bo+p*n+j]
				}
				out[bi*m*n+i*n+j] = s
			}
		}
	}
	shape := slices.Clone(batch)
	if !dropM {
		shape = append(shape, m)
	}
	if !dropN {
		shape = append(shape, n)
	}
	return out, shape
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

func TestMatMulAgainstNaive(t *testing.T) {
	cases := []struct{ a, b []int }{
		{[]int{4}, []int{4}},
		{[]int{3, 4}, []int{4, 5}},
		{[]int{4}, []int{4, 5}},
		{[]int{3, 4}, []int{4}},
		{[]int{2, 3, 4}, []int{2, 4, 5}},
		{[]int{2, 3, 4}, []int{4, 5}},
		{[]int{3, 4}, []int{2, 4, 5}},
		{[]int{2, 1, 3, 4}, []int{5, 4, 2}},
		{[]int{4}, []int{2, 4, 5}},
		{[]int{2, 3, 4}, []int{4}},
		{[]int{1, 4}, []int{4, 1}},
		{[]int{3, 0}, []int{0, 2}},
		{[]int{0, 3}, []int{3, 2}},
		{[]int{2, 0, 3, 4}, []int{4, 1}},
		{[]int{70, 33}, []int{33, 65}},
		{[]int{9, 16, 24}, []int{9, 24, 8}},
	}
	// Layouts: contiguous, and the same logical matrix stored transposed.
	mk := func(dt DType, shape []int, transposed bool) *Tensor {
		n := numel(shape)
		if !transposed || len(shape) < 2 {
			return FromSlice(seq(n), shape...).To(dt)
		}
		sw := slices.Clone(shape)
		r := len(sw)
		sw[r-1], sw[r-2] = sw[r-2], sw[r-1]
		return FromSlice(seq(n + 3)[3:], sw...).To(dt).Transpose(-1, -2)
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range cases {
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					name := fmt.Sprintf("%v/%v@%v/transA=%v/transB=%v", dt, tc.a, tc.b, ta, tb)
					t.Run(name, func(t *testing.T) {
						a, b := mk(dt, tc.a, ta), mk(dt, tc.b, tb)
						want, ws := naiveMatMul(a.Float64s(), a.Shape(), b.Float64s(), b.Shape())
						got := MatMul(a, b)
						if !slices.Equal(got.Shape(), ws) || got.DType() != dt {
							t.Fatalf("shape %v %v, want %v %v", got.Shape(), got.DType(), ws, dt)
						}
						checkClose(t, got.Float64s(), want, 1e-6)
						dst := Empty(dt, ws...)
						v := dst.Version()
						if MatMulTo(dst, a, b) != dst || dst.Version() == v {
							t.Fatal("MatMulTo did not return dst or bump its version")
						}
						checkClose(t, dst.Float64s(), want, 1e-6)
					})
				}
			}
		}
	}
}

func TestMatMulLayouts(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		base := FromSlice(seq(6*8), 6, 8).To(dt)
		other := FromSlice(seq(5*8), 5, 8).To(dt)
		cases := []struct {
			name string
			a, b *Tensor
		}{
			{"aT", base.T(), FromSlice(seq(30), 6, 5).To(dt)},
			{"bT", base, other.T()},
			{"narrowed", base.Narrow(1, 2, 5), FromSlice(seq(35), 5, 7).To(dt)},
			{"narrowed-rows", base.Narrow(0, 1, 4), other.T()},
			{"strided-cols", base.Slice(1, 0, 8, 2), FromSlice(seq(12), 4, 3).To(dt)},
			{"expanded-row", FromSlice(seq(8), 1, 8).To(dt).Expand(3, 8), other.T()},
			{"expanded-batch", base.Unsqueeze(0).Expand(3, 6, 8), FromSlice(seq(3*8*2), 3, 8, 2).To(dt)},
			{"batch-permuted", FromSlice(seq(4*3*5), 3, 4, 5).To(dt).Permute(1, 0, 2), FromSlice(seq(4*5*2), 4, 5, 2).To(dt)},
			{"vector-strided", base.Select(1, 3), base},
		}
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%v/%s", dt, tc.name), func(t *testing.T) {
				want, ws := naiveMatMul(tc.a.Float64s(), tc.a.Shape(), tc.b.Float64s(), tc.b.Shape())
				got := tc.a.MatMul(tc.b)
				if !slices.Equal(got.Shape(), ws) {
					t.Fatalf("shape %v, want %v", got.Shape(), ws)
				}
				checkClose(t, got.Float64s(), want, 1e-6)
				// into transposed and strided destinations
				if len(ws) == 2 {
					dT := Empty(dt, ws[1], ws[0]).T()
					checkClose(t, MatMulTo(dT, tc.a, tc.b).Float64s(), want, 1e-6)
					dS := Empty(dt, ws[0], 2*ws[1]).Slice(1, 0, 2*ws[1], 2)
					checkClose(t, MatMulTo(dS, tc.a, tc.b).Float64s(), want, 1e-6)
				}
			})
		}
	}
}

func TestMatMulErrors(t *testing.T) {
	f := func(s ...int) *Tensor { return Empty(Float32, s...) }
	cases := []struct {
		name string
		fn   func()
		kind error
		msg  string
	}{
		{"inner", func() { MatMul(f(2, 3), f(4, 5)) }, ErrShape, "agx: MatMul: inner dimensions differ: [2 3] @ [4 5] (3 != 4)"},
		{"dot", func() { MatMul(f(3), f(4)) }, ErrShape, "inner dimensions differ: [3] @ [4] (3 != 4)"},
		{"batched", func() { MatMul(f(2, 3, 4), f(2, 5, 6)) }, ErrShape, "(4 != 5)"},
		{"batch-broadcast", func() { MatMul(f(2, 3, 4), f(3, 4, 6)) }, ErrShape, "not broadcastable"},
		{"scalar", func() { MatMul(Scalar(float32(1)), f(3)) }, ErrShape, "at least 1 dim"},
		{"int", func() { MatMul(Empty(Int64, 2, 2), Empty(Int64, 2, 2)) }, ErrDType, "float tensors"},
		{"mixed", func() { MatMul(f(2, 2), Empty(Float64, 2, 2)) }, ErrDType, "same dtype"},
		{"to-shape", func() { MatMulTo(f(3, 3), f(2, 3), f(3, 3)) }, ErrShape, "destination shape"},
		{"to-dtype", func() { MatMulTo(Empty(Float64, 2, 3), f(2, 3), f(3, 3)) }, ErrDType, "destination dtype"},
		{"to-alias", func() { a := f(3, 3); MatMulTo(a, a, f(3, 3)) }, ErrArg, "shares storage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := try(tc.fn)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want %v containing %q", err, tc.kind, tc.msg)
			}
		})
	}
	t.Run("int-hint", func(t *testing.T) {
		err := try(func() { MatMul(Empty(Int64, 2), Empty(Int64, 2)) })
		if !strings.Contains(err.Error(), "hint: convert with To(tensor.Float32)") {
			t.Fatalf("no hint in %v", err)
		}
	})
}

// TestBLASLayout checks which operands reach GEMM without a copy.
func TestBLASLayout(t *testing.T) {
	m := Empty(Float32, 6, 8)
	cases := []struct {
		name  string
		v     *Tensor
		trans bool
		ld    int
		ok    bool
	}{
		{"row-major", m, false, 8, true},
		{"transposed", m.T(), true, 8, true},
		{"narrowed-cols", m.Narrow(1, 1, 4), false, 8, true},
		{"narrowed-transposed", m.Narrow(1, 1, 4).T(), true, 8, true},
		{"column", m.Narrow(1, 0, 1), false, 8, true},
		{"strided-cols", m.Slice(1, 0, 8, 2), false, 0, false},
		{"expanded", Empty(Float32, 1, 8).Expand(6, 8), false, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, ld, ok := blasLayout(tc.v.Raw())
			if ok != tc.ok || (ok && ((tr != blas.NoTrans) != tc.trans || ld != tc.ld)) {
				t.Fatalf("got %v %d %v, want trans=%v %d %v", tr, ld, ok, tc.trans, tc.ld, tc.ok)
			}
		})
	}
}

// TestMatMulBatchParallel forces the batched products onto the path that
// spreads them over goroutines (its threshold lowered to 0) and checks
// every layout against the naive product.
func TestMatMulBatchParallel(t *testing.T) {
	old := batchParallelMin
	batchParallelMin = 0
	defer func() { batchParallelMin = old }()
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range []struct{ a, b []int }{
			{[]int{5, 20, 24}, []int{5, 24, 16}},
			{[]int{3, 2, 17, 33}, []int{33, 19}},
		} {
			t.Run(fmt.Sprintf("%v/%v@%v", dt, tc.a, tc.b), func(t *testing.T) {
				g := NewGenerator(4)
				a, b := g.Randn(dt, tc.a...), g.Randn(dt, tc.b...)
				want, ws := naiveMatMul(a.Float64s(), a.Shape(), b.Float64s(), b.Shape())
				got := MatMul(a, b)
				if !slices.Equal(got.Shape(), ws) {
					t.Fatalf("shape %v, want %v", got.Shape(), ws)
				}
				checkClose(t, got.Float64s(), want, 1e-5)
				gotT := MatMul(a, b.Transpose(-1, -2).Contiguous().Transpose(-1, -2))
				checkClose(t, gotT.Float64s(), want, 1e-5)
			})
		}
	}
}
