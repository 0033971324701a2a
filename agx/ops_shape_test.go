package agx

import "testing"

var (
	shX  = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}           // [2,3]
	shX3 = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8} // [2,2,2]
)

func shapeCases() []opCase {
	x := gIn(shp(2, 3), shX...)
	x3 := gIn(shp(2, 2, 2), shX3...)
	f := func(fn func(*Tensor) *Tensor) func([]*Tensor) *Tensor {
		return func(x []*Tensor) *Tensor { return fn(x[0]) }
	}
	xT := []float64{0.1, 0.4, 0.2, 0.5, 0.3, 0.6}
	return []opCase{
		{name: "Reshape", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Reshape(3, -1) }),
			want: shX, wantShape: shp(3, 2), oracle: "reshape", params: map[string]any{"shape": []int{3, -1}}},
		{name: "Reshape/of_transposed", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.T().Reshape(6) }),
			want: xT, wantShape: shp(6), oracle: "t_reshape", params: map[string]any{"shape": []int{6}}},
		{name: "View", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.View(3, 2) }),
			want: shX, wantShape: shp(3, 2), oracle: "view", params: map[string]any{"shape": []int{3, 2}}},
		{name: "Flatten", in: []opIn{x3}, f: f((*Tensor).Flatten),
			want: shX3, wantShape: shp(8), oracle: "flatten"},
		{name: "Transpose", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Transpose(0, 1) }),
			want: xT, wantShape: shp(3, 2), oracle: "transpose", params: map[string]any{"d0": 0, "d1": 1}},
		{name: "T", in: []opIn{x}, f: f((*Tensor).T), want: xT, wantShape: shp(3, 2), oracle: "t"},
		{name: "MT", in: []opIn{x3}, f: f((*Tensor).MT),
			want: []float64{0.1, 0.3, 0.2, 0.4, 0.5, 0.7, 0.6, 0.8}, oracle: "mT"},
		{name: "Permute", in: []opIn{x3}, f: f(func(t *Tensor) *Tensor { return t.Permute(2, 0, 1) }),
			want: []float64{0.1, 0.3, 0.5, 0.7, 0.2, 0.4, 0.6, 0.8}, oracle: "permute", params: map[string]any{"perm": []int{2, 0, 1}}},
		{name: "Squeeze/dim", in: []opIn{gIn(shp(2, 1, 3), shX...)}, f: f(func(t *Tensor) *Tensor { return t.Squeeze(1) }),
			want: shX, wantShape: shp(2, 3), oracle: "squeeze", params: map[string]any{"dims": []int{1}}},
		{name: "Squeeze/all", in: []opIn{gIn(shp(1, 3, 1), 0.1, 0.2, 0.3)}, f: f(func(t *Tensor) *Tensor { return t.Squeeze() }),
			want: []float64{0.1, 0.2, 0.3}, wantShape: shp(3), oracle: "squeeze", params: map[string]any{"dims": []int{}}},
		{name: "Unsqueeze", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Unsqueeze(-1) }),
			want: shX, wantShape: shp(2, 3, 1), oracle: "unsqueeze", params: map[string]any{"dim": -1}},
		{name: "Expand/size1", in: []opIn{gIn(shp(2, 1), 0.1, 0.2)}, f: f(func(t *Tensor) *Tensor { return t.Expand(2, 3) }),
			want: []float64{0.1, 0.1, 0.1, 0.2, 0.2, 0.2}, oracle: "expand", params: map[string]any{"shape": []int{2, 3}}},
		{name: "Expand/new_dims", in: []opIn{gIn(shp(3), 0.1, 0.2, 0.3)}, f: f(func(t *Tensor) *Tensor { return t.Expand(2, 2, 3) }),
			want: opBcast([]float64{0.1, 0.2, 0.3}, shp(3), shp(2, 2, 3)), oracle: "expand", params: map[string]any{"shape": []int{2, 2, 3}}},
		{name: "BroadcastTo", in: []opIn{gIn(shp(1, 3), 0.1, 0.2, 0.3)}, f: f(func(t *Tensor) *Tensor { return t.BroadcastTo(2, 3) }),
			want: []float64{0.1, 0.2, 0.3, 0.1, 0.2, 0.3}, oracle: "broadcast_to", params: map[string]any{"shape": []int{2, 3}}},
		{name: "Narrow", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Narrow(1, 1, 2) }),
			want: []float64{0.2, 0.3, 0.5, 0.6}, oracle: "narrow", params: map[string]any{"dim": 1, "start": 1, "length": 2}},
		{name: "Slice/step", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Slice(1, 0, 3, 2) }),
			want: []float64{0.1, 0.3, 0.4, 0.6}, oracle: "slice", params: map[string]any{"dim": 1, "start": 0, "stop": 3, "step": 2}},
		{name: "Select", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Select(0, 1) }),
			want: []float64{0.4, 0.5, 0.6}, wantShape: shp(3), oracle: "select", params: map[string]any{"dim": 0, "index": 1}},
		{name: "Select/twice", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Select(1, 2).Select(0, 0) }),
			want: []float64{0.3}, wantShape: shp(), oracle: "select_twice"},
		{name: "Cat/dim0", in: []opIn{x, gIn(shp(1, 3), 0.7, 0.8, 0.9)},
			f:    func(x []*Tensor) *Tensor { return Cat(0, x...) },
			want: []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, wantShape: shp(3, 3), oracle: "cat", params: map[string]any{"dim": 0}},
		{name: "Cat/dim1_with_const", in: []opIn{x, cIn(shp(2, 1), 0.7, 0.8)},
			f:    func(x []*Tensor) *Tensor { return Cat(-1, x...) },
			want: []float64{0.1, 0.2, 0.3, 0.7, 0.4, 0.5, 0.6, 0.8}, wantShape: shp(2, 4), oracle: "cat", params: map[string]any{"dim": -1}},
		{name: "Stack/dim0", in: []opIn{gIn(shp(3), 0.1, 0.2, 0.3), gIn(shp(3), 0.4, 0.5, 0.6)},
			f:    func(x []*Tensor) *Tensor { return Stack(0, x...) },
			want: shX, wantShape: shp(2, 3), oracle: "stack", params: map[string]any{"dim": 0}},
		{name: "Stack/dim-1", in: []opIn{gIn(shp(3), 0.1, 0.2, 0.3), gIn(shp(3), 0.4, 0.5, 0.6)},
			f:    func(x []*Tensor) *Tensor { return Stack(-1, x...) },
			want: xT, wantShape: shp(3, 2), oracle: "stack", params: map[string]any{"dim": -1}},
	}
}

func TestShapeOps(t *testing.T) { runOpCases(t, shapeCases()) }
