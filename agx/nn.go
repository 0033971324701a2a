package agx

import (
	"fmt"
	"slices"

	"github.com/goagx/agx/tensor"
)

// CrossEntropy is the mean negative log-likelihood of Int64 class targets under
// softmax(logits): logits [N, C], target [N]. It is composed from LogSoftmax and
// Gather, so its gradient (softmax - onehot)/N and higher derivatives follow.
func CrossEntropy(logits, target *Tensor) *Tensor {
	need("CrossEntropy", "input", 1, logits)
	need("CrossEntropy", "target", 2, target)
	if logits.Dim() != 2 || target.Dim() != 1 || target.Size(0) != logits.Size(0) {
		tensor.PanicHint("CrossEntropy", tensor.ErrShape, "logits are [N, C] and targets [N] class indices",
			"got logits %v and target %v", logits.Shape(), target.Shape())
	}
	if target.DType() != Int64 {
		tensor.Panicf("CrossEntropy", tensor.ErrDType, "target must hold Int64 class indices, got %v", target.DType())
	}
	c := int64(logits.Size(1))
	for _, v := range tensor.ToSlice[int64](target.data) {
		if v < 0 || v >= c { // the first bad one, as PyTorch
			tensor.PanicHint("CrossEntropy", tensor.ErrIndex, fmt.Sprintf("class indices must lie in [0, %d) for logits of shape %v", c, logits.Shape()),
				"Target %d is out of bounds.", v)
		}
	}
	lp := logits.LogSoftmax(1)
	picked := lp.Gather(1, target.Unsqueeze(1))
	return picked.Mean().Neg()
}

// MSELoss is the mean squared error mean((pred - target)²).
func MSELoss(pred, target *Tensor) *Tensor {
	need("MSELoss", "input", 1, pred)
	need("MSELoss", "target", 2, target)
	if ps, ts := pred.data.Raw().Shape, target.data.Raw().Shape; !slices.Equal(ps, ts) {
		// PyTorch only warns; a broadcast loss is almost always a bug (a [N, 1]
		// prediction against [N] targets gives an N×N loss), so agx refuses it.
		tensor.PanicHint("MSELoss", tensor.ErrShape, "reshape one of them, e.g. pred.Reshape(-1) or target.Unsqueeze(1)",
			"Using a target size (%v) that is different to the input size (%v). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.", ts, ps)
	}
	d := pred.Sub(target)
	return d.Mul(d).Mean()
}
