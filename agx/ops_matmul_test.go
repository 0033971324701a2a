package agx

import "testing"

// mmRef multiplies row-major matrices a [n,k] and b [k,m] for each batch of
// already-broadcast operands.
func mmRef(a, b []float64, batch, n, k, m int) []float64 {
	out := make([]float64, batch*n*m)
	for p := 0; p < batch; p++ {
		for i := 0; i < n; i++ {
			for j := 0; j < m; j++ {
				s := 0.0
				for l := 0; l < k; l++ {
					s += a[p*n*k+i*k+l] * b[p*k*m+l*m+j]
				}
				out[p*n*m+i*m+j] = s
			}
		}
	}
	return out
}

func seq(n int, scale, off float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = off + scale*float64(i)
	}
	return v
}

// tr transposes the row-major r×c matrices of v (batch of them in a row).
func tr(v []float64, batch, r, c int) []float64 {
	out := make([]float64, len(v))
	for p := 0; p < batch; p++ {
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				out[p*r*c+j*r+i] = v[p*r*c+i*c+j]
			}
		}
	}
	return out
}

func matmulCases() []opCase {
	a3, b3 := seq(3, 0.5, -0.7), seq(3, -0.3, 0.9)
	a23, b32 := seq(6, 0.25, -0.6), seq(6, -0.2, 0.8)
	a2, b23 := seq(2, 0.4, 0.3), seq(6, 0.15, -0.35)
	a2123, b232 := seq(12, 0.1, -0.5), seq(12, -0.12, 0.6)
	mm := func(x []*Tensor) *Tensor { return MatMul(x[0], x[1]) }
	return []opCase{
		{name: "MatMul/dot", in: []opIn{gIn(shp(3), a3...), gIn(shp(3), b3...)}, f: mm,
			want: mmRef(a3, b3, 1, 1, 3, 1), wantShape: shp(), oracle: "matmul"},
		{name: "MatMul/vec_mat", in: []opIn{gIn(shp(2), a2...), gIn(shp(2, 3), b23...)}, f: mm,
			want: mmRef(a2, b23, 1, 1, 2, 3), wantShape: shp(3), oracle: "matmul"},
		{name: "MatMul/mat_vec", in: []opIn{gIn(shp(2, 3), a23...), gIn(shp(3), b3...)}, f: mm,
			want: mmRef(a23, b3, 1, 2, 3, 1), wantShape: shp(2), oracle: "matmul"},
		{name: "MatMul/mat_mat", in: []opIn{gIn(shp(2, 3), a23...), gIn(shp(3, 2), b32...)}, f: mm,
			want: mmRef(a23, b32, 1, 2, 3, 2), wantShape: shp(2, 2), oracle: "matmul"},
		{name: "MatMul/mat_const", in: []opIn{gIn(shp(2, 3), a23...), cIn(shp(3, 2), b32...)}, f: mm,
			want: mmRef(a23, b32, 1, 2, 3, 2), oracle: "matmul"},
		// [2,1,2,3] @ [2,3,2]: batch dims broadcast to [2,2].
		{name: "MatMul/batched_broadcast", in: []opIn{gIn(shp(2, 1, 2, 3), a2123...), gIn(shp(2, 3, 2), b232...)}, f: mm,
			want:      mmRef(opBcast(a2123, shp(2, 1, 2, 3), shp(2, 2, 2, 3)), opBcast(b232, shp(2, 3, 2), shp(2, 2, 3, 2)), 4, 2, 3, 2),
			wantShape: shp(2, 2, 2, 2), oracle: "matmul"},
		{name: "MatMul/batched_matrix", in: []opIn{gIn(shp(2, 2, 3), a2123...), gIn(shp(3, 2), b32...)}, f: mm,
			want: mmRef(a2123, opBcast(b32, shp(3, 2), shp(2, 3, 2)), 2, 2, 3, 2), wantShape: shp(2, 2, 2), oracle: "matmul"},
		// Operands stored transposed (x.MT()), as nn.Linear's weight is: their
		// gradients are computed in that layout (see MatMul).
		{name: "MatMul/a_bT", in: []opIn{gIn(shp(2, 3), a23...), gIn(shp(2, 3), b23...)},
			f:    func(x []*Tensor) *Tensor { return MatMul(x[0], x[1].MT()) },
			want: mmRef(a23, tr(b23, 1, 2, 3), 1, 2, 3, 2), wantShape: shp(2, 2), oracle: "matmul_a_bT"},
		{name: "MatMul/aT_b", in: []opIn{gIn(shp(3, 2), b32...), gIn(shp(3, 2), a23...)},
			f:    func(x []*Tensor) *Tensor { return MatMul(x[0].MT(), x[1]) },
			want: mmRef(tr(b32, 1, 3, 2), a23, 1, 2, 3, 2), wantShape: shp(2, 2), oracle: "matmul_aT_b"},
		{name: "MatMul/batched_aT_bT", in: []opIn{gIn(shp(2, 3, 2), a2123...), gIn(shp(2, 2, 3), b232...)},
			f:    func(x []*Tensor) *Tensor { return MatMul(x[0].MT(), x[1].MT()) },
			want: mmRef(tr(a2123, 2, 3, 2), tr(b232, 2, 2, 3), 2, 2, 3, 2), wantShape: shp(2, 2, 2), oracle: "matmul_aT_bT"},
		{name: "MatMul/bT_broadcast", in: []opIn{gIn(shp(2, 2, 3), a2123...), gIn(shp(2, 3), b23...)},
			f:    func(x []*Tensor) *Tensor { return MatMul(x[0], x[1].MT()) },
			want: mmRef(a2123, opBcast(tr(b23, 1, 2, 3), shp(3, 2), shp(2, 3, 2)), 2, 2, 3, 2), wantShape: shp(2, 2, 2), oracle: "matmul_a_bT"},
	}
}

func TestMatMulOps(t *testing.T) { runOpCases(t, matmulCases()) }

// A leaf used transposed (nn.Linear's x·wᵀ, or wᵀ·x) gets a contiguous
// gradient, per dtype.
func TestMatMulTransposedLeafGradContiguous(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		x := Randn(dt, 5, 7)
		w := Randn(dt, 4, 7).SetRequiresGrad(true)
		v := Randn(dt, 5, 4).SetRequiresGrad(true)
		MatMul(x, w.T()).Sum().Backward()
		MatMul(v.T(), x).Sum().Backward()
		for name, p := range map[string]*Tensor{"w": w, "v": v} {
			if g := p.Grad(); !g.Data().IsContiguous() {
				t.Errorf("%v: %s's gradient has strides %v, want contiguous", dt, name, g.Data().Strides())
			}
		}
	}
}
