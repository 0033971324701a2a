//go:build cuda || cudaemu

package cudafn_test

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu/cudafn"
	"github.com/goagx/agx/gpu/gputest"
	"github.com/goagx/agx/tensor"
)

// The lessons' GPU code on the backend under test: with -tags cuda on a GPU
// machine these run lesson 12's kernel pair and lesson 09's training loop on
// the device (docs/gpu.md), where the notebooks themselves, executed by `make
// test`, run them on the emulator.

// lesson12Notebook is lesson 12, relative to this package's directory.
const lesson12Notebook = "../../notebooks/12-cuda-kernels.ipynb"

// softplusSource is lesson 12's example C16 kernel pair, as the notebook
// writes it (TestLesson12SourceMatchesNotebook keeps the two equal).
const softplusSource = `
extern "C" __global__ void softplus_f64(i64 n, const double* x, double* y) {
	AGX_GRID_LOOP(i, n) { y[i] = fmax(x[i], 0.0) + log1p(exp(-fabs(x[i]))); }
}

extern "C" __global__ void softplus_grad_f64(i64 n, const double* x, const double* y, const double* gy, double* gx) {
	AGX_GRID_LOOP(i, n) { gx[i] = gy[i] * -expm1(-y[i]); }
}
`

// TestLesson12SourceMatchesNotebook checks that softplusSource is the
// notebook's. A bundle run on a GPU machine (gpu-bundle.sh) has no checkout
// beside its binaries and says so; `make test` always has one.
func TestLesson12SourceMatchesNotebook(t *testing.T) {
	raw, err := os.ReadFile(lesson12Notebook)
	if os.IsNotExist(err) && os.Getenv("AGX_GPU_BUNDLE") == "1" {
		t.Skip("no checkout beside the bundle; make test compares the source with the notebook")
	}
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Type   string   `json:"cell_type"`
			Source []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		t.Fatal(err)
	}
	for _, c := range nb.Cells {
		src := strings.Join(c.Source, "")
		if c.Type == "code" && strings.Contains(src, "const softplusSource = `") {
			if !strings.Contains(src, "const softplusSource = `"+softplusSource+"`") {
				t.Fatalf("softplusSource differs from %s's; copy the notebook's", lesson12Notebook)
			}
			return
		}
	}
	t.Fatalf("%s has no softplusSource", lesson12Notebook)
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
	if d := agx.MaxAbsDiff(y, ref); d > 1e-15 {
		t.Errorf("softplus differs from x.Exp().Log1p() by %g", d)
	}
	if d := agx.MaxAbsDiff(x.Grad(), xr.Grad()); d > 1e-15 {
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
	gp := slope.Mul(g[0]).Div(float64(d.Numel()))
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
	defer tensor.SetDefault(prev)
	if got := agx.Zeros(agx.Float64).Data().Backend(); got != be {
		t.Fatalf("a new tensor lives on %v, not the backend under test", got)
	}
	losses, w, b := lesson09Train(steps)
	tensor.SetDefault(prev)
	for i := range losses {
		if d := math.Abs(losses[i] - cpuLosses[i]); d > 1e-12*math.Max(1, math.Abs(cpuLosses[i])) {
			t.Fatalf("step %d: loss %v on the backend, %v on the CPU", i, losses[i], cpuLosses[i])
		}
	}
	if math.Abs(w-cpuW) > 1e-12 || math.Abs(b-cpuB) > 1e-12 {
		t.Errorf("w, b = %v, %v on the backend, %v, %v on the CPU", w, b, cpuW, cpuB)
	}
	if losses[len(losses)-1] >= losses[0] || steps == 200 && (math.Abs(w-3) > 0.2 || math.Abs(b+1) > 0.2) {
		t.Errorf("the loop did not fit the line: w %.3f, b %.3f, loss %.3f → %.3f", w, b, losses[0], losses[len(losses)-1])
	}
}
