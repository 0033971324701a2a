package agx

import "github.com/goagx/agx/tensor"

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
	lp := logits.LogSoftmax(1)
	picked := lp.Gather(1, target.Unsqueeze(1))
	return picked.Mean().Neg()
}

// MSELoss is the mean squared error mean((pred - target)²).
func MSELoss(pred, target *Tensor) *Tensor {
	need("MSELoss", "input", 1, pred)
	need("MSELoss", "target", 2, target)
	d := pred.Sub(target)
	return d.Mul(d).Mean()
}
