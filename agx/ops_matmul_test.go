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
	}
}

func TestMatMulOps(t *testing.T) { runOpCases(t, matmulCases()) }
