package functions

import (
	"fmt"

	"github.com/goagx/agx/agx"
)

// VerifyCustomFunction checks a Function's (or a func's) gradients the way
// the sources recommend: it converts every float input to float64 (detached
// copies that require grad exactly when the originals do; other inputs are
// passed as they are), then runs agx.GradCheck and, when that passes,
// agx.GradGradCheck, both with eps 1e-6 and atol 1e-4. It returns nil when both
// pass, or the first failure wrapped with the name of the check (the
// *agx.GradCheckError stays reachable with errors.As).
//
// f is anything agx.GradCheck accepts: an agx.Function or a func over tensors.
// For a once-differentiable Function the second check fails with agx's
// once-differentiable error, which is the right answer.
//
// example A6
func VerifyCustomFunction(f any, inputs ...*agx.Tensor) error {
	conv := make([]*agx.Tensor, len(inputs))
	for i, in := range inputs {
		if in == nil || !in.DType().IsFloat() {
			conv[i] = in
			continue
		}
		conv[i] = in.Detach().To(agx.Float64).Clone().SetRequiresGrad(in.RequiresGrad())
	}
	opts := []agx.GradCheckOption{agx.Eps(1e-6), agx.Atol(1e-4)}
	if err := agx.GradCheck(f, conv, opts...); err != nil {
		return fmt.Errorf("first-order gradcheck failed: %w", err)
	}
	if err := agx.GradGradCheck(f, conv, opts...); err != nil {
		return fmt.Errorf("second-order gradcheck failed: %w", err)
	}
	return nil
}
