package agx

import "testing"

func indexCases() []opCase {
	x := gIn(shp(2, 3), 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
	src := gIn(shp(2, 3), 1, 2, 3, 4, 5, 6)
	return []opCase{
		{name: "Gather/dim1", in: []opIn{x, idxIn(shp(2, 2), 2, 0, 1, 1)},
			f:    func(x []*Tensor) *Tensor { return x[0].Gather(1, x[1]) },
			want: []float64{0.3, 0.1, 0.5, 0.5}, oracle: "gather", params: map[string]any{"dim": 1}},
		{name: "Gather/dim0", in: []opIn{x, idxIn(shp(1, 3), 1, 0, 1)},
			f:    func(x []*Tensor) *Tensor { return x[0].Gather(0, x[1]) },
			want: []float64{0.4, 0.2, 0.6}, oracle: "gather", params: map[string]any{"dim": 0}},
		// out[index[i][j]][j] += src[i][j], with repeated targets.
		{name: "ScatterAdd/dim0", in: []opIn{x, idxIn(shp(2, 3), 1, 0, 1, 1, 1, 0), src},
			f:    func(x []*Tensor) *Tensor { return x[0].ScatterAdd(0, x[1], x[2]) },
			want: []float64{0.1, 2.2, 6.3, 5.4, 5.5, 3.6}, oracle: "scatter_add", params: map[string]any{"dim": 0}},
		{name: "Scatter/dim0", in: []opIn{x, idxIn(shp(1, 3), 1, 0, 1), gIn(shp(1, 3), 1, 2, 3)},
			f:    func(x []*Tensor) *Tensor { return x[0].Scatter(0, x[1], x[2]) },
			want: []float64{0.1, 2, 0.3, 1, 0.5, 3}, oracle: "scatter", params: map[string]any{"dim": 0}},
		{name: "IndexSelect/dim0_repeated", in: []opIn{x, idxIn(shp(3), 1, 0, 1)},
			f:    func(x []*Tensor) *Tensor { return x[0].IndexSelect(0, x[1]) },
			want: []float64{0.4, 0.5, 0.6, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, wantShape: shp(3, 3), oracle: "index_select", params: map[string]any{"dim": 0}},
		{name: "IndexSelect/dim-1", in: []opIn{x, idxIn(shp(2), 2, 0)},
			f:    func(x []*Tensor) *Tensor { return x[0].IndexSelect(-1, x[1]) },
			want: []float64{0.3, 0.1, 0.6, 0.4}, oracle: "index_select", params: map[string]any{"dim": -1}},
	}
}

func TestIndexOps(t *testing.T) { runOpCases(t, indexCases()) }
