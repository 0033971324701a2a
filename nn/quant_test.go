package nn

import (
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// quantTask is a trained float model on a seeded 4-class task in 32 dims,
// with held-out data.
func quantTask(t *testing.T) (m *Sequential, xtr, ytr, xte, yte *agx.Tensor) {
	t.Helper()
	g := tensor.NewGenerator(22)
	x, y := blobs(g, 1024, 32, 4, 0.4)
	xtr, ytr, xte, yte = x.Narrow(0, 0, 512), y.Narrow(0, 0, 512), x.Narrow(0, 512, 512), y.Narrow(0, 512, 512)
	m = NewSequential(NewLinear(32, 128, WithGenerator(g)), ReLU(), NewLinear(128, 4, WithGenerator(g)))
	opt := NewAdam(m.Parameters())
	opt.LR = 0.005
	train(m, opt, CrossEntropyLoss{}, xtr, ytr, 100)
	return
}

// example C22: dynamic, static and quantisation-aware int8 models are ~4x
// smaller and lose little accuracy.
func TestQuantization(t *testing.T) {
	m, xtr, ytr, xte, yte := quantTask(t)
	floatAcc, floatSize := accuracy(m, xte, yte), ParamBytes(m)
	if floatAcc < 0.75 || floatSize != (32*128+128+128*4+4)*4 {
		t.Fatalf("float model: accuracy %.3f, size %d", floatAcc, floatSize)
	}
	dynamic := QuantizeDynamic(m)

	static := PrepareStatic(m)
	agx.NoGrad(func() {
		for i := range 4 {
			static.Forward(xtr.Narrow(0, 128*i, 128))
		}
	})
	staticQ, err := Convert(static)
	if err != nil {
		t.Fatal(err)
	}

	qat := PrepareQAT(m)
	opt := NewAdam(qat.Parameters())
	opt.LR = 0.001
	train(qat, opt, CrossEntropyLoss{}, xtr, ytr, 30)
	qat.Train(false)
	qatQ, err := Convert(qat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    *Sequential
	}{{"dynamic", dynamic}, {"static", staticQ}, {"qat", qatQ}} {
		t.Run(tc.name, func(t *testing.T) {
			acc, size := accuracy(tc.q, xte, yte), ParamBytes(tc.q)
			ratio := float64(floatSize) / float64(size)
			t.Logf("size %d → %d bytes (%.2fx), accuracy %.4f → %.4f", floatSize, size, ratio, floatAcc, acc)
			if ratio < 3.5 || ratio > 4 {
				t.Errorf("size ratio %.2f, want about 4 (int8 weights, float biases)", ratio)
			}
			if acc < floatAcc-0.02 {
				t.Errorf("accuracy dropped from %.4f to %.4f", floatAcc, acc)
			}
			if !strings.Contains(tc.q.String(), "QuantizedLinear(in_features=32, out_features=128") {
				t.Errorf("model:\n%v", tc.q)
			}
		})
	}
	t.Run("float_untouched", func(t *testing.T) {
		if acc := accuracy(m, xte, yte); acc != floatAcc {
			t.Errorf("preparing changed the float model: %.4f → %.4f", floatAcc, acc)
		}
	})
}

// The int8 layer's output equals the float layer on the quantised values: a
// check of the integer arithmetic against a float recomputation.
func TestQuantLinearArithmetic(t *testing.T) {
	g := tensor.NewGenerator(9)
	l := NewLinear(5, 3, WithGenerator(g), WithDType(tensor.Float64))
	q := quantizeLinear(l)
	x := agx.New(g.Randn(tensor.Float64, 4, 5))
	p := qparams(x.Amin().Item(), x.Amax().Item())
	w := make([]float64, len(q.Weight))
	for i, v := range q.Weight {
		w[i] = float64(v) * q.WScale
	}
	xs := x.Data().Float64s()
	for i, v := range xs {
		xs[i] = float64(p.quantize(v)) * p.Scale
	}
	want := tensor.FromSlice(xs, 4, 5).MatMul(tensor.FromSlice(w, 3, 5).T()).Add(l.Bias.Data())
	if d := oracle.Close(q.Forward(x).Data(), want, 1e-12, 1e-12); d != "" {
		t.Error(d)
	}
	// Weights are within half a step of the float weights.
	if d := oracle.Close(tensor.FromSlice(w, 3, 5), l.Weight.Data(), 0, q.WScale/2+1e-12); d != "" {
		t.Error(d)
	}
}

func TestConvertNeedsCalibration(t *testing.T) {
	if _, err := Convert(PrepareStatic(NewSequential(NewLinear(2, 2)))); err == nil || !strings.Contains(err.Error(), "observed no data") {
		t.Fatalf("got %v", err)
	}
}
