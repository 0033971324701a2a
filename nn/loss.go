package nn

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
)

// Loss is a criterion: a scalar from a prediction and a target.
type Loss interface {
	Forward(pred, target *agx.Tensor) *agx.Tensor
}

// MSELoss is mean((pred - target)²), PyTorch's nn.MSELoss().
type MSELoss struct{}

// Forward returns the mean squared error.
func (MSELoss) Forward(pred, target *agx.Tensor) *agx.Tensor { return agx.MSELoss(pred, target) }

// CrossEntropyLoss is the mean negative log-likelihood of Int64 class targets
// [N] under softmax(logits [N, C]), PyTorch's nn.CrossEntropyLoss().
type CrossEntropyLoss struct{}

// Forward returns the mean cross-entropy.
func (CrossEntropyLoss) Forward(logits, target *agx.Tensor) *agx.Tensor {
	return agx.CrossEntropy(logits, target)
}

// SmoothL1Loss is mean(SmoothL1Function(pred - target)) with threshold Beta:
// the source's module built on the custom Function (example D11). Beta 1 is
// PyTorch's default; the source uses 0.5.
type SmoothL1Loss struct{ Beta float64 }

// Forward returns the mean smooth L1 penalty of pred - target.
func (l SmoothL1Loss) Forward(pred, target *agx.Tensor) *agx.Tensor {
	return functions.SmoothL1(pred.Sub(target), l.Beta).Mean()
}
