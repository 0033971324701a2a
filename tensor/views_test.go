package tensor

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// mustPanicWith checks that f panics with an *Error of the given kind whose
// message contains every fragment.
func mustPanicWith(t *testing.T, kind error, f func(), fragments ...string) {
	t.Helper()
	err := try(f)
	if err == nil {
		t.Fatalf("no panic, want %v", kind)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error %q does not wrap %v", err, kind)
	}
	for _, fr := range fragments {
		if !strings.Contains(err.Error(), fr) {
			t.Fatalf("error %q does not mention %q", err, fr)
		}
	}
}

// ar returns 1..n as a Float64 tensor of the given shape.
func ar(shape ...int) *Tensor { return arangeTensor(shape) }

func TestViewOps(t *testing.T) {
	x := ar(2, 3, 4) // values 1..24
	cases := []struct {
		name    string
		view    func() *Tensor
		shape   []int
		strides []int
		want    []float64
	}{
		{"Transpose(0,2)", func() *Tensor { return x.Transpose(0, 2) }, []int{4, 3, 2}, []int{1, 4, 12},
			refArange([]int{2, 3, 4}).permute([]int{2, 1, 0}).data},
		{"Transpose(-1,-2)", func() *Tensor { return x.Transpose(-1, -2) }, []int{2, 4, 3}, []int{12, 1, 4},
			refArange([]int{2, 3, 4}).permute([]int{0, 2, 1}).data},
		{"T", func() *Tensor { return ar(2, 3).T() }, []int{3, 2}, []int{1, 3}, []float64{1, 4, 2, 5, 3, 6}},
		{"T/1d", func() *Tensor { return ar(3).T() }, []int{3}, []int{1}, []float64{1, 2, 3}},
		{"MT", func() *Tensor { return x.MT() }, []int{2, 4, 3}, []int{12, 1, 4},
			refArange([]int{2, 3, 4}).permute([]int{0, 2, 1}).data},
		{"Permute(1,2,0)", func() *Tensor { return x.Permute(1, 2, 0) }, []int{3, 4, 2}, []int{4, 1, 12},
			refArange([]int{2, 3, 4}).permute([]int{1, 2, 0}).data},
		{"Permute(-1,0,1)", func() *Tensor { return x.Permute(-1, 0, 1) }, []int{4, 2, 3}, []int{1, 12, 4},
			refArange([]int{2, 3, 4}).permute([]int{2, 0, 1}).data},
		{"View(6,4)", func() *Tensor { return x.View(6, 4) }, []int{6, 4}, []int{4, 1}, refArange([]int{24}).data},
		{"View(-1)", func() *Tensor { return x.View(-1) }, []int{24}, []int{1}, refArange([]int{24}).data},
		{"View(2,-1,3)", func() *Tensor { return x.View(2, -1, 3) }, []int{2, 4, 3}, []int{12, 3, 1}, refArange([]int{24}).data},
		{"Reshape/view", func() *Tensor { return x.Reshape(4, 6) }, []int{4, 6}, []int{6, 1}, refArange([]int{24}).data},
		{"Flatten", func() *Tensor { return x.Flatten() }, []int{24}, []int{1}, refArange([]int{24}).data},
		{"Expand", func() *Tensor { return ar(3, 1).Expand(2, 3, 4) }, []int{2, 3, 4}, []int{0, 1, 0},
			[]float64{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}},
		{"Expand(-1)", func() *Tensor { return ar(3, 1).Expand(-1, 2) }, []int{3, 2}, []int{1, 0}, []float64{1, 1, 2, 2, 3, 3}},
		{"BroadcastTo", func() *Tensor { return ar(3).BroadcastTo(2, 3) }, []int{2, 3}, []int{0, 1}, []float64{1, 2, 3, 1, 2, 3}},
		{"Narrow", func() *Tensor { return x.Narrow(2, 1, 2) }, []int{2, 3, 2}, []int{12, 4, 1},
			refArange([]int{2, 3, 4}).narrow(2, 1, 2).data},
		{"Narrow/negative-start", func() *Tensor { return ar(5).Narrow(0, -2, 2) }, []int{2}, []int{1}, []float64{4, 5}},
		{"Slice/step", func() *Tensor { return ar(7).Slice(0, 1, 7, 2) }, []int{3}, []int{2}, []float64{2, 4, 6}},
		{"Slice/negative", func() *Tensor { return ar(7).Slice(0, -3, -1, 1) }, []int{2}, []int{1}, []float64{5, 6}},
		{"Slice/clipped", func() *Tensor { return ar(4).Slice(0, -10, 10, 3) }, []int{2}, []int{3}, []float64{1, 4}},
		{"Slice/huge-step", func() *Tensor { return ar(4).Slice(0, 1, math.MaxInt, math.MaxInt) }, []int{1}, []int{math.MaxInt}, []float64{2}},
		{"Slice/empty", func() *Tensor { return ar(4).Slice(0, 3, 1, 1) }, []int{0}, []int{1}, []float64{}},
		{"Slice/dim1", func() *Tensor { return x.Slice(1, 0, 3, 2) }, []int{2, 2, 4}, []int{12, 8, 1},
			refArange([]int{2, 3, 4}).slice(1, 0, 3, 2).data},
		{"Select", func() *Tensor { return x.Select(1, 2) }, []int{2, 4}, []int{12, 1},
			refArange([]int{2, 3, 4}).selectAt(1, 2).data},
		{"Select/negative", func() *Tensor { return x.Select(-1, -1) }, []int{2, 3}, []int{12, 4},
			refArange([]int{2, 3, 4}).selectAt(2, 3).data},
		{"Select/to-scalar", func() *Tensor { return ar(3).Select(0, 1) }, []int{}, []int{}, []float64{2}},
		{"Squeeze/all", func() *Tensor { return ar(1, 3, 1).Squeeze() }, []int{3}, []int{1}, []float64{1, 2, 3}},
		{"Squeeze/dim", func() *Tensor { return ar(1, 3, 1).Squeeze(-1) }, []int{1, 3}, []int{3, 1}, []float64{1, 2, 3}},
		{"Squeeze/not-one", func() *Tensor { return ar(1, 3, 1).Squeeze(1) }, []int{1, 3, 1}, []int{3, 1, 1}, []float64{1, 2, 3}},
		{"Unsqueeze(0)", func() *Tensor { return ar(2, 3).Unsqueeze(0) }, []int{1, 2, 3}, []int{6, 3, 1}, refArange([]int{6}).data},
		{"Unsqueeze(1)", func() *Tensor { return ar(2, 3).Unsqueeze(1) }, []int{2, 1, 3}, []int{3, 3, 1}, refArange([]int{6}).data},
		{"Unsqueeze(-1)", func() *Tensor { return ar(2, 3).Unsqueeze(-1) }, []int{2, 3, 1}, []int{3, 1, 1}, refArange([]int{6}).data},
		{"Scalar/Reshape(1)", func() *Tensor { return Scalar(7.0).Reshape(1, 1) }, []int{1, 1}, []int{1, 1}, []float64{7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := c.view()
			if !slices.Equal(v.Shape(), c.shape) || !slices.Equal(v.Strides(), c.strides) {
				t.Fatalf("shape %v strides %v, want %v %v", v.Shape(), v.Strides(), c.shape, c.strides)
			}
			for d := range c.strides {
				if v.Stride(d) != c.strides[d] || v.Stride(d-len(c.strides)) != c.strides[d] {
					t.Fatalf("Stride(%d) = %d, Stride(%d) = %d, want %d", d, v.Stride(d), d-len(c.strides), v.Stride(d-len(c.strides)), c.strides[d])
				}
			}
			if got := v.Float64s(); !slices.Equal(got, c.want) {
				t.Fatalf("values %v, want %v", got, c.want)
			}
		})
	}
}

func TestViewsShareStorage(t *testing.T) {
	x := ar(2, 3)
	views := map[string]*Tensor{
		"Transpose": x.Transpose(0, 1), "T": x.T(), "Permute": x.Permute(1, 0), "View": x.View(3, 2),
		"Reshape": x.Reshape(6), "Flatten": x.Flatten(), "Expand": x.Unsqueeze(0).Expand(4, 2, 3),
		"Narrow": x.Narrow(1, 1, 2), "Slice": x.Slice(1, 0, 3, 2), "Select": x.Select(0, 1),
		"Squeeze": x.Unsqueeze(0).Squeeze(), "Unsqueeze": x.Unsqueeze(1), "BroadcastTo": x.BroadcastTo(5, 2, 3),
		"MT": x.MT(), "Contiguous": x.Contiguous(),
	}
	for _, name := range sortedNames(views) {
		v := views[name]
		t.Run(name, func(t *testing.T) {
			if !v.SameStorage(x) || !x.SameStorage(v) {
				t.Fatal("view does not share storage")
			}
			before := v.Version()
			x.Fill(5) // a write through the base is seen by the view
			for _, got := range v.Float64s() {
				if got != 5 {
					t.Fatalf("view sees %v after Fill(5) on the base", v.Float64s())
				}
			}
			if v.Version() != before+1 {
				t.Fatalf("version %d after a write to the base, want %d", v.Version(), before+1)
			}
		})
	}
	t.Run("Clone", func(t *testing.T) {
		c := x.Clone()
		if c.SameStorage(x) {
			t.Fatal("Clone shares storage")
		}
	})
	t.Run("Reshape/copy", func(t *testing.T) {
		r := x.T().Reshape(6)
		if r.SameStorage(x) {
			t.Fatal("Reshape of a transposed tensor must copy")
		}
		if !slices.Equal(r.Float64s(), x.T().Contiguous().Float64s()) {
			t.Fatalf("Reshape values %v", r.Float64s())
		}
	})
	t.Run("write-through-view", func(t *testing.T) {
		y := ar(2, 3)
		y.Narrow(1, 1, 1).Fill(-1)
		if want := []float64{1, -1, 3, 4, -1, 6}; !slices.Equal(y.Float64s(), want) {
			t.Fatalf("got %v, want %v", y.Float64s(), want)
		}
	})
}

func sortedNames[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestViewErrors(t *testing.T) {
	x := ar(2, 3)
	cases := []struct {
		name  string
		kind  error
		f     func()
		frags []string
	}{
		{"Transpose/dim", ErrIndex, func() { x.Transpose(0, 2) }, []string{"Transpose: dimension 2 out of range for a 2-d tensor of shape [2 3]", "hint: valid dims"}},
		{"T/3d", ErrShape, func() { ar(1, 2, 3).T() }, []string{"T expects a tensor with <= 2 dims, got shape [1 2 3]", "Transpose(-2, -1)"}},
		{"MT/1d", ErrShape, func() { ar(3).MT() }, []string{"MT: needs at least 2 dims, got shape [3]"}},
		{"Permute/len", ErrShape, func() { x.Permute(0) }, []string{"got 1 dims in permutation [0] for a 2-d tensor"}},
		{"Permute/repeat", ErrArg, func() { x.Permute(1, 1) }, []string{"repeated dim 1 in permutation [1 1]"}},
		{"Permute/repeat-negative", ErrArg, func() { x.Permute(1, -1) }, []string{"repeated dim"}},
		{"Permute/range", ErrIndex, func() { x.Permute(0, 2) }, []string{"dimension 2 out of range"}},
		{"View/incompatible", ErrShape, func() { x.T().View(6) }, []string{"view size [6] is not compatible with input of shape [3 2] and strides [1 3]", "use Reshape"}},
		{"View/size", ErrShape, func() { x.View(4) }, []string{"shape [4] is invalid for input of size 6"}},
		{"View/two-minus-one", ErrShape, func() { x.View(-1, -1) }, []string{"only one -1 is allowed"}},
		{"Reshape/size", ErrShape, func() { x.Reshape(-1, 4) }, []string{"Reshape: shape [-1 4] is invalid for input of size 6"}},
		{"Reshape/zero-with-minus-one", ErrShape, func() { x.Reshape(0, -1) }, []string{"is invalid for input of size 6"}},
		{"Expand/non-singleton", ErrShape, func() { x.Expand(2, 4) }, []string{"the expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1", "only dims of size 1"}},
		{"Expand/fewer-dims", ErrShape, func() { x.Expand(6) }, []string{"fewer dims"}},
		{"Expand/leading-minus-one", ErrShape, func() { x.Expand(-1, 2, 3) }, []string{"-1 is not allowed for a new leading dim"}},
		{"Expand/negative", ErrShape, func() { ar(1, 3).Expand(-2, 3) }, []string{"invalid size -2"}},
		{"BroadcastTo", ErrShape, func() { x.BroadcastTo(3, 3) }, []string{"BroadcastTo: shapes [2 3] and [3 3] are not broadcastable"}},
		{"BroadcastTo/fewer-dims", ErrShape, func() { x.BroadcastTo(3) }, []string{"BroadcastTo: cannot broadcast shape [2 3] to [3]"}},
		{"Narrow/range", ErrIndex, func() { x.Narrow(1, 2, 2) }, []string{"start (2) + length (2) exceeds dimension size (3) of dim 1"}},
		{"Narrow/negative-length", ErrIndex, func() { x.Narrow(1, 0, -1) }, []string{"exceeds dimension size"}},
		{"Narrow/scalar", ErrIndex, func() { Scalar(1.0).Narrow(0, 0, 1) }, []string{"out of range for a 0-d tensor"}},
		{"Narrow/overflow", ErrIndex, func() { x.Narrow(1, math.MaxInt, 1) }, []string{"exceeds dimension size"}},
		{"Narrow/overflow-length", ErrIndex, func() { x.Narrow(1, 1, math.MaxInt) }, []string{"exceeds dimension size"}},
		{"Slice/step", ErrArg, func() { x.Slice(0, 0, 2, 0) }, []string{"step must be positive, got 0"}},
		{"Slice/dim", ErrIndex, func() { x.Slice(-3, 0, 2, 1) }, []string{"dimension -3 out of range"}},
		{"Select/index", ErrIndex, func() { x.Select(1, 3) }, []string{"index 3 is out of bounds for dimension 1 with size 3"}},
		{"Select/negative-index", ErrIndex, func() { x.Select(0, -3) }, []string{"index -3 is out of bounds"}},
		{"Squeeze/dim", ErrIndex, func() { x.Squeeze(2) }, []string{"Squeeze: dimension 2 out of range"}},
		{"Unsqueeze/dim", ErrIndex, func() { x.Unsqueeze(4) }, []string{"Unsqueeze: dimension 4 out of range for a result of 3 dims"}},
		{"Size/dim", ErrIndex, func() { x.Size(2) }, []string{"Size: dimension 2 out of range"}},
		{"BroadcastShapes", ErrShape, func() { BroadcastShapes("Add", []int{2, 3}, []int{4, 1, 2}) }, []string{"agx: Add: shapes [2 3] and [4 1 2] are not broadcastable (dim -1: 3 vs 2)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { mustPanicWith(t, c.kind, c.f, c.frags...) })
	}
}

func TestTensorBasics(t *testing.T) {
	x := ar(2, 3, 4)
	if x.Dim() != 3 || x.Numel() != 24 || x.Size(-1) != 4 || x.Size(0) != 2 || x.DType() != Float64 {
		t.Fatalf("Dim %d Numel %d Size(-1) %d DType %v", x.Dim(), x.Numel(), x.Size(-1), x.DType())
	}
	if x.Backend().Name() != "cpu" || !x.IsContiguous() || x.Transpose(0, 1).IsContiguous() {
		t.Fatal("backend or contiguity wrong")
	}
	if x.Narrow(0, 1, 1).Offset() != 12 {
		t.Fatalf("Narrow offset %d, want 12", x.Narrow(0, 1, 1).Offset())
	}
	// Shape and Strides return copies.
	s := x.Shape()
	s[0] = 100
	if x.Shape()[0] != 2 {
		t.Fatal("Shape aliases the tensor's shape")
	}
	raw := x.Raw()
	if raw.DType() != Float64 || raw.Buf.Len() != 24 || !slices.Equal(raw.Shape, []int{2, 3, 4}) {
		t.Fatalf("Raw %+v", raw)
	}
	t.Run("FromSlice/int", func(t *testing.T) {
		y := FromSlice([]int{1, 2, 3, 4}, 2, 2)
		if y.DType() != Int64 || !slices.Equal(ToSlice[int64](y), []int64{1, 2, 3, 4}) {
			t.Fatalf("got %v %v", y.DType(), ToSlice[int64](y))
		}
	})
	t.Run("FromSlice/named-types", func(t *testing.T) {
		type celsius float32
		type count int
		type flag bool
		type meters float64
		type id int64
		cases := []struct {
			x    *Tensor
			dt   DType
			want []float64
		}{
			{FromSlice([]celsius{1.5, -2}), Float32, []float64{1.5, -2}},
			{FromSlice([]count{3, 4}, 2, 1), Int64, []float64{3, 4}},
			{FromSlice([]flag{true, false}), Bool, []float64{1, 0}},
			{FromSlice([]meters{0.25}), Float64, []float64{0.25}},
			{FromSlice([]id{-7}), Int64, []float64{-7}},
			{Scalar(meters(2)), Float64, []float64{2}},
		}
		for _, c := range cases {
			if c.x.DType() != c.dt || !slices.Equal(c.x.Float64s(), c.want) {
				t.Fatalf("got %v %v, want %v %v", c.x.DType(), c.x.Float64s(), c.dt, c.want)
			}
		}
	})
	t.Run("FromSlice/copies", func(t *testing.T) {
		data := []float32{1, 2}
		y := FromSlice(data)
		data[0] = 9
		if y.Float64s()[0] != 1 {
			t.Fatal("FromSlice adopted the caller's slice")
		}
	})
	t.Run("FromSlice/shape-mismatch", func(t *testing.T) {
		mustPanicWith(t, ErrShape, func() { FromSlice([]float64{1, 2, 3}, 2, 2) },
			"FromSlice: shape [2 2] needs 4 elements, got 3")
	})
	t.Run("Empty/negative", func(t *testing.T) {
		mustPanicWith(t, ErrShape, func() { Empty(Float32, 2, -1) }, "negative dimension in shape [2 -1]")
	})
	t.Run("Empty/dtype", func(t *testing.T) {
		mustPanicWith(t, ErrDType, func() { Empty(DType(9), 2) }, "unknown dtype DType(9)")
	})
	t.Run("Scalar", func(t *testing.T) {
		for _, c := range []struct {
			s  *Tensor
			dt DType
		}{{Scalar(1.5), Float64}, {Scalar(float32(1.5)), Float32}, {Scalar(3), Int64}, {Scalar(int64(3)), Int64}, {Scalar(true), Bool}} {
			if c.s.Dim() != 0 || c.s.Numel() != 1 || c.s.DType() != c.dt {
				t.Fatalf("Scalar: dim %d dtype %v, want 0-d %v", c.s.Dim(), c.s.DType(), c.dt)
			}
		}
	})
	t.Run("To", func(t *testing.T) {
		f := FromSlice([]float64{-1.7, -0.2, 0, 0.5, 2.9})
		if got := ToSlice[int64](f.To(Int64)); !slices.Equal(got, []int64{-1, 0, 0, 0, 2}) {
			t.Fatalf("To(Int64) = %v", got)
		}
		if got := ToSlice[bool](f.To(Bool)); !slices.Equal(got, []bool{true, true, false, true, true}) {
			t.Fatalf("To(Bool) = %v", got)
		}
		if f.To(Float64) != f {
			t.Fatal("To(same dtype) must return the receiver")
		}
		mustPanicWith(t, ErrDType, func() { f.To(DType(0)) }, "unknown dtype")
	})
	t.Run("CopyFrom/broadcast-and-convert", func(t *testing.T) {
		d := Empty(Int64, 2, 3)
		v := d.Version()
		d.CopyFrom(FromSlice([]float32{1.9, -2.5, 3}))
		if got := ToSlice[int64](d); !slices.Equal(got, []int64{1, -2, 3, 1, -2, 3}) {
			t.Fatalf("CopyFrom = %v", got)
		}
		if d.Version() != v+1 {
			t.Fatal("CopyFrom must bump the version")
		}
		mustPanicWith(t, ErrShape, func() { d.CopyFrom(ar(4)) }, "CopyFrom")
	})
	t.Run("ToBackend/same", func(t *testing.T) {
		if x.ToBackend(x.Backend()) != x {
			t.Fatal("ToBackend to the same backend must return the receiver")
		}
	})
}

func TestBackendNotImplementedAndDefault(t *testing.T) {
	t.Run("NotImplemented", func(t *testing.T) {
		ni := NotImplemented{BackendName: "wip"}
		mustPanicWith(t, ErrDevice, func() { ni.MatMul(View{}, View{}, View{}) }, `MatMul: primitive not implemented by backend "wip"`)
		if ni.Name() != "wip" {
			t.Fatal(ni.Name())
		}
	})
	t.Run("SetDefault", func(t *testing.T) {
		other := otherCPU{}
		prev := SetDefault(other)
		defer SetDefault(prev)
		if Default().Name() != "cpu2" || Empty(Float32, 2).Backend().Name() != "cpu2" {
			t.Fatal("SetDefault did not take effect")
		}
	})
}

// otherCPU is the CPU backend under another name, to test cross-backend checks.
type otherCPU struct{ CPU }

func (otherCPU) Name() string { return "cpu2" }
