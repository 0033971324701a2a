package agx

import (
	"fmt"
	"math"

	"github.com/goagx/agx/tensor"
)

// CheckForwardAD adds PyTorch's check_forward_ad to GradCheck: the Jacobian
// is computed a third time in forward mode, column by column (one forward
// pass per input element, the input dual with a one-hot tangent), and
// compared with the numerical Jacobian and with the backward's. It checks
// every built-in op's forward rule and every Function's Jvp; a Function
// without Jvp fails with ErrForwardAD. In fast mode, one forward pass per
// input with a random unit tangent u is compared with the central difference
// along u. With GradGradCheck, the forward pass runs through the gradients
// that Grad computes with CreateGraph: that checks forward-over-reverse
// (the tangents of the backward's own ops, which Hessian-vector products by
// forward-over-reverse rely on). Off by default.
func CheckForwardAD(on ...bool) GradCheckOption {
	return func(c *gradCheckConfig) { c.forwardAD = len(on) == 0 || on[0] }
}

// forwardJacobian builds J[o][i] column by column from one-hot tangents.
// Outputs without a tangent give zero columns.
func forwardJacobian(fn func(in ...*Tensor) []*Tensor, leaves []*Tensor, diff []int, outs []*Tensor) [][][][]float64 {
	fwd := make([][][][]float64, len(outs))
	for o := range outs {
		fwd[o] = make([][][]float64, len(leaves))
		for _, i := range diff {
			fwd[o][i] = newMatrix(outs[o].Numel(), leaves[i].Numel())
		}
	}
	for _, i := range diff {
		n := leaves[i].Numel()
		for j := range n {
			ins := append([]*Tensor(nil), leaves...)
			ins[i] = MakeDual(leaves[i], onehotAt(leaves[i], j))
			res := fn(ins...)
			for o := range outs {
				if o >= len(res) || !res[o].DType().IsFloat() {
					continue
				}
				tt := res[o].tangentOf()
				if tt == nil {
					continue
				}
				for k, v := range tt.data.Float64s() {
					fwd[o][i][k][j] = v
				}
			}
		}
	}
	return fwd
}

// forwardADCheck compares the forward-mode Jacobian with the numerical one
// and with the backward's (ana; nil when no output requires grad).
func forwardADCheck(fn func(in ...*Tensor) []*Tensor, leaves, outs []*Tensor, diff []int, num, ana [][][][]float64, c gradCheckConfig) *GradCheckError {
	fwd := forwardJacobian(fn, leaves, diff, outs)
	for o := range outs {
		if !outs[o].DType().IsFloat() {
			continue
		}
		for _, i := range diff {
			if e := compareForward(num[o][i], fwd[o][i], o, i, "numerical", c); e != nil {
				return e
			}
		}
	}
	if ana == nil {
		return nil
	}
	for o := range outs {
		if !outs[o].DType().IsFloat() || !outs[o].RequiresGrad() {
			continue
		}
		for _, i := range diff {
			if e := compareForward(ana[o][i], fwd[o][i], o, i, "backward", c); e != nil {
				return e
			}
		}
	}
	return nil
}

func compareForward(ref, fwd [][]float64, o, i int, refName string, c gradCheckConfig) *GradCheckError {
	for k := range ref {
		for j := range ref[k] {
			r, f := ref[k][j], fwd[k][j]
			if math.Abs(f-r) > c.atol+c.rtol*math.Abs(r) || math.IsNaN(f) != math.IsNaN(r) {
				what := "Jacobian computed with forward mode mismatch"
				hint := "the forward rule (Jvp) disagrees with finite differences"
				if refName == "backward" {
					what = "Jacobians of forward mode and backward mode mismatch"
					hint = "Jvp and Backward disagree: one of them is wrong (the numerical check passed for Backward)"
				}
				return &GradCheckError{Kind: "forward-ad", Output: o, Input: i, Element: j, OutElement: k,
					Numerical: r, Analytical: f, NumericalJacobian: ref, AnalyticalJacobian: fwd,
					Labels: [2]string{refName, "forward mode"},
					Msg: fmt.Sprintf("%s for output %d with respect to input %d,\nat input element %d, output element %d: %s %.6g vs forward mode %.6g (atol %g, rtol %g); %s\n%s:%s\nforward mode:%s",
						what, o, i, j, k, refName, r, f, c.atol, c.rtol, hint, refName, formatMatrix(ref), formatMatrix(fwd))}
			}
		}
	}
	return nil
}

// forwardFastCheck is the fast-mode forward check: per input, one forward
// pass with a random unit tangent u, compared element-wise with the central
// difference of the outputs along u.
func forwardFastCheck(fn func(in ...*Tensor) []*Tensor, leaves, plain []*Tensor, diff []int, eval func() [][]float64, c gradCheckConfig) *GradCheckError {
	gen := tensor.NewGenerator(c.seed + 2)
	for _, i := range diff {
		get, set, n := accessor(plain[i].data)
		u := gen.Rand(tensor.Float64, n).Float64s()
		norm := 0.0
		for _, x := range u {
			norm += x * x
		}
		if norm = math.Sqrt(norm); norm > 0 {
			for j := range u {
				u[j] /= norm
			}
		}
		orig := make([]float64, n)
		for j := range orig {
			orig[j] = get(j)
		}
		shift := func(sign float64) {
			for j := range orig {
				set(j, orig[j]+sign*c.eps*u[j])
			}
		}
		shift(1)
		plus := eval()
		shift(-1)
		minus := eval()
		shift(0)
		ut := wrap(tensor.FromSlice(u, n).Reshape(leaves[i].data.Shape()...).To(leaves[i].DType()))
		ins := append([]*Tensor(nil), leaves...)
		ins[i] = MakeDual(leaves[i], ut)
		res := fn(ins...)
		for o := range res {
			if plus[o] == nil {
				continue
			}
			var got []float64
			if tt := res[o].tangentOf(); tt != nil {
				got = tt.data.Float64s()
			}
			for k := range plus[o] {
				want := (plus[o][k] - minus[o][k]) / (2 * c.eps)
				f := at(got, k)
				if math.Abs(f-want) > c.atol+c.rtol*math.Abs(want) || math.IsNaN(f) != math.IsNaN(want) {
					return &GradCheckError{Kind: "forward-ad", Output: o, Input: i, Element: -1, OutElement: k, Numerical: want, Analytical: f,
						Msg: fmt.Sprintf("Jacobian computed with forward mode mismatch for output %d with respect to input %d,\nat output element %d: numerical %.6g vs forward mode %.6g along a random unit direction u (fast mode: these are elements of Ju)", o, i, k, want, f)}
				}
			}
		}
	}
	return nil
}
