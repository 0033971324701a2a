package agx

import (
	"math"
	"slices"

	"github.com/goagx/agx/tensor"
)

// MaxAbsDiff returns the largest |a[i] - b[i]| over the elements of two tensors
// of the same shape, computed in float64 on their values only: neither tensor's
// graph is touched, so it can be called on outputs and gradients alike. It is the
// comparison the course notebooks use ("same as the built-in: max diff < 1e-12").
//
// The shapes must be equal (no broadcasting: comparing a [3] with a [1, 3] is
// almost always a mistake), otherwise it panics with tensor.ErrShape, like other
// agx misuse errors (recover it with Try). Any NaN on either side gives NaN, so
// that a NaN never passes a "< tol" test; two equal infinities differ by 0.
// Tensors with no elements differ by 0. It reads every element once: O(n) time
// and one float64 copy of each tensor.
func MaxAbsDiff(a, b *Tensor) float64 {
	need("MaxAbsDiff", "a", 1, a)
	need("MaxAbsDiff", "b", 2, b)
	if !slices.Equal(a.Shape(), b.Shape()) {
		tensor.Panicf("MaxAbsDiff", tensor.ErrShape, "tensors of shapes %v and %v cannot be compared element by element", a.Shape(), b.Shape())
	}
	as, bs := a.Float64s(), b.Float64s()
	m := 0.0
	for i, x := range as {
		y := bs[i]
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return math.NaN()
		case x == y: // also equal infinities, whose difference would be NaN
			continue
		}
		m = math.Max(m, math.Abs(x-y))
	}
	return m
}
