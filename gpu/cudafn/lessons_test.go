//go:build cuda || cudaemu

package cudafn_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu/cudafn"
	"github.com/goagx/agx/gpu/gputest"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/tensor"
)

// The lessons' GPU code on the backend under test: with -tags cuda on a GPU
// machine these run lesson 12's kernel pair and lesson 09's training loop on
// the device (docs/gpu.md), where the notebooks themselves, executed by `make
// test`, run them on the emulator.

// softplusSource is lesson 12's example C16 kernel pair, as the notebook
// writes it (TestLessonCodeMatchesNotebooks keeps the two equal).
const softplusSource = `
extern "C" __global__ void softplus_f64(i64 n, const double* x, double* y) {
	AGX_GRID_LOOP(i, n) { y[i] = fmax(x[i], 0.0) + log1p(exp(-fabs(x[i]))); }
}

extern "C" __global__ void softplus_grad_f64(i64 n, const double* x, const double* y, const double* gy, double* gx) {
	AGX_GRID_LOOP(i, n) { gx[i] = gy[i] * -expm1(-y[i]); }
}
`

// TestLessonCodeMatchesNotebooks checks that the lessons' code copied into
// this file is the notebooks' own: lesson 12's kernel source, and lesson
// 09's SmoothL1Function methods (named lesson09SmoothL1 here). A bundle run
// on a GPU machine (gpu-bundle.sh) has no checkout beside its binaries and
// says so; `make test` always has one.
func TestLessonCodeMatchesNotebooks(t *testing.T) {
	self, err := os.ReadFile("lessons_test.go")
	if os.IsNotExist(err) && os.Getenv("AGX_GPU_BUNDLE") == "1" {
		t.Skip("no checkout beside the bundle; make test compares the lessons' code with the notebooks")
	}
	if err != nil {
		t.Fatal(err)
	}
	// between returns the text of this file from the last start up to the
	// last end, trimmed (the first ones are the calls below).
	between := func(start, end string) string {
		i, j := strings.LastIndex(string(self), start), strings.LastIndex(string(self), end)
		if i < 0 || j < i {
			t.Fatalf("lessons_test.go has no %q before %q", start, end)
		}
		return strings.TrimSpace(string(self[i:j]))
	}
	for _, tc := range []struct {
		notebook, marker string // the notebook and a text of the cell copied
		copied           string // the copy, as the notebook writes it
	}{
		{"12-cuda-kernels", "const softplusSource", "const softplusSource = `" + softplusSource + "`"},
		{"09-practical-examples", "type SmoothL1Function struct", strings.ReplaceAll(
			between("func (f lesson09SmoothL1) Forward", "// lesson09Train is"), "lesson09SmoothL1", "SmoothL1Function")},
	} {
		t.Run(tc.notebook, func(t *testing.T) {
			nb, err := notebook.Read("../../notebooks/" + tc.notebook + ".ipynb")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range nb.Cells {
				if c.CellType == notebook.Code && strings.Contains(c.Source, tc.marker) {
					if !strings.Contains(c.Source, tc.copied) {
						t.Fatalf("this copy in lessons_test.go is not in %s's cell; copy the cell's code again:\n%s", tc.notebook, tc.copied)
					}
					return
				}
			}
			t.Fatalf("%s has no code cell with %q", tc.notebook, tc.marker)
		})
	}
}

// TestLesson12Softplus is example C16 on the backend: the kernel pair
// against the built-in ops, and GradCheck.
func TestLesson12Softplus(t *testing.T) {
	be := gputest.Backend(t)
	softplus := func(x *agx.Tensor) *agx.Tensor {
		return agx.Apply(cudafn.Kernel{
			FuncName: "Softplus", Source: softplusSource,
			ForwardKernel: "softplus", BackwardKernel: "softplus_grad", Backend: be,
		}, x)
	}
	x := agx.FromSlice([]float64{-2, -0.5, 0, 1, 3}).SetRequiresGrad(true)
	y := softplus(x)
	y.Sum().Backward()
	xr := x.Detach().SetRequiresGrad(true)
	ref := xr.Exp().Log1p()
	ref.Sum().Backward()
	if d := agx.MaxAbsDiff(y, ref); d > 1e-14 {
		t.Errorf("softplus differs from x.Exp().Log1p() by %g", d)
	}
	if d := agx.MaxAbsDiff(x.Grad(), xr.Grad()); d > 1e-14 {
		t.Errorf("its gradient differs from the built-in ops' by %g", d)
	}
	agx.ManualSeed(0)
	xg := agx.Randn(tensor.Float64, 3, 4).SetRequiresGrad(true)
	if err := agx.GradCheck(softplus, []*agx.Tensor{xg}); err != nil {
		t.Errorf("GradCheck: %v", err)
	}
}

// lesson09SmoothL1 is lesson 09's SmoothL1Function, as the notebook writes it.
type lesson09SmoothL1 struct{ Beta float64 }

func (f lesson09SmoothL1) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	d := in[0].Sub(in[1])
	ctx.SaveForBackward(d)
	ad := d.Abs()
	l := agx.Where(ad.Lt(f.Beta), d.Mul(d).Mul(0.5/f.Beta), ad.Sub(0.5*f.Beta))
	return agx.Outputs(l.Mean())
}

func (f lesson09SmoothL1) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	d := ctx.SavedTensors()[0]
	slope := agx.Where(d.Abs().Lt(f.Beta), d.Div(f.Beta), d.Sign())
	gp := slope.Mul(g[0]).Div(float64(d.Numel())) // g is a scalar: broadcasting does the rest
	var gt *agx.Tensor
	if ctx.NeedsInputGrad(1) {
		gt = gp.Neg()
	}
	return agx.Outputs(gp, gt)
}

// lesson09Train is example D11's loop: steps of SGD (200 in the lesson) on
// a line with two outliers, every tensor made on the default backend. It
// returns the losses and the fitted w and b.
func lesson09Train(steps int) (losses []float64, w, b float64) {
	agx.ManualSeed(1)
	x := agx.Linspace(agx.Float64, -2, 2, 20)
	ys := x.Mul(3).Sub(1).Add(agx.Randn(agx.Float64, 20).Mul(0.05)).Float64s()
	ys[15] += 15
	ys[4] -= 12
	target := agx.FromSlice(ys)
	wt := agx.Zeros(agx.Float64).SetRequiresGrad(true)
	bt := agx.Zeros(agx.Float64).SetRequiresGrad(true)
	const lr = 0.5
	for range steps {
		loss := agx.Apply(lesson09SmoothL1{Beta: 0.5}, x.Mul(wt).Add(bt), target)
		loss.Backward()
		losses = append(losses, loss.Item())
		agx.NoGrad(func() {
			wt.SubInPlace(wt.Grad().Mul(lr))
			bt.SubInPlace(bt.Grad().Mul(lr))
		})
		wt.ZeroGrad()
		bt.ZeroGrad()
	}
	return losses, wt.Item(), bt.Item()
}

// TestLesson09TrainingOnBackend runs example D11's training loop with the
// backend as the default (every tensor lives there) and compares it with
// the same loop on the CPU. The emulator runs the first 8 of its 200 steps
// (each of its launches starts a thread per CUDA thread).
func TestLesson09TrainingOnBackend(t *testing.T) {
	be := gputest.Backend(t)
	steps := 200
	if gputest.Emulated {
		steps = 8
	}
	cpuLosses, cpuW, cpuB := lesson09Train(steps)
	prev := tensor.SetDefault(be)
	t.Cleanup(func() { tensor.SetDefault(prev) })
	if got := agx.Zeros(agx.Float64).Data().Backend(); got != be {
		t.Fatalf("a new tensor lives on %v, not the backend under test", got)
	}
	losses, w, b := lesson09Train(steps)
	for i := range losses {
		if d := math.Abs(losses[i] - cpuLosses[i]); d > 1e-12*math.Max(1, math.Abs(cpuLosses[i])) {
			t.Fatalf("step %d: loss %v on the backend, %v on the CPU", i, losses[i], cpuLosses[i])
		}
	}
	if math.Abs(w-cpuW) > 1e-12 || math.Abs(b-cpuB) > 1e-12 {
		t.Errorf("w, b = %v, %v on the backend, %v, %v on the CPU", w, b, cpuW, cpuB)
	}
	fitted := math.Abs(w-3) <= 0.2 && math.Abs(b+1) <= 0.2
	if losses[len(losses)-1] >= losses[0] || (steps == 200 && !fitted) {
		t.Errorf("the loop did not fit the line: w %.3f, b %.3f, loss %.3f → %.3f", w, b, losses[0], losses[len(losses)-1])
	}
}
