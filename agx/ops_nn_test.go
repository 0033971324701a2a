package agx

import "testing"

func lossCases() []opCase {
	logits := seq(12, 0.37, -2.1)
	target := []float64{1, 0, 3}
	ce := 0.0
	for i, c := range target {
		row := logits[i*4 : i*4+4]
		ce += rdLSE(row) - row[int(c)]
	}
	pred, tgt := seq(6, 0.3, -0.8), seq(6, -0.25, 0.5)
	mse := 0.0
	for i := range pred {
		mse += (pred[i] - tgt[i]) * (pred[i] - tgt[i])
	}
	return []opCase{
		{name: "CrossEntropy", in: []opIn{gIn(shp(3, 4), logits...), idxIn(shp(3), target...)},
			f:    func(x []*Tensor) *Tensor { return CrossEntropy(x[0], x[1]) },
			want: []float64{ce / 3}, wantShape: shp(), oracle: "cross_entropy"},
		{name: "MSELoss", in: []opIn{gIn(shp(2, 3), pred...), gIn(shp(2, 3), tgt...)},
			f:    func(x []*Tensor) *Tensor { return MSELoss(x[0], x[1]) },
			want: []float64{mse / 6}, wantShape: shp(), oracle: "mse_loss"},
		{name: "MSELoss/const_target", in: []opIn{gIn(shp(2, 3), pred...), cIn(shp(2, 3), tgt...)},
			f:    func(x []*Tensor) *Tensor { return MSELoss(x[0], x[1]) },
			want: []float64{mse / 6}, oracle: "mse_loss"},
	}
}

func TestLossOps(t *testing.T) { runOpCases(t, lossCases()) }
