package agx

import "github.com/goagx/agx/tensor"

// In-place ops write into t's storage, bump its version (shared with its views)
// and, when the graph is recorded, rebase t's history onto the op. They are not
// allowed on a leaf that requires grad (outside NoGrad). A tensor saved for a
// backward pass and then modified in place makes that pass fail with
// "has been modified by an inplace operation".

func (t *Tensor) inplace(name string, f func(x *Tensor) *Tensor) *Tensor {
	t.syncView()
	if t.gradFn == nil && t.requiresGrad && IsGradEnabled() {
		tensor.PanicHint(name, ErrGraph, "clone the leaf first, or run the update inside agx.NoGrad",
			"a leaf Variable that requires grad is being used in an in-place operation")
	}
	if v := t.view; v != nil && v.base.gradFn == nil && v.base.requiresGrad && IsGradEnabled() {
		tensor.PanicHint(name, ErrGraph, "clone the view first, or run the update inside agx.NoGrad",
			"a view of a leaf Variable that requires grad is being used in an in-place operation")
	}
	// Compute out of place on an alias that carries t's current history, then
	// write the values into t and move t's history onto the new node. When the
	// graph may be recorded the alias holds a copy of t's values (PyTorch's
	// "original self"): the op may save it for backward (Mul, Div, Clamp do),
	// and the write into t below must not invalidate that saved value.
	data := t.data
	if IsGradEnabled() {
		data = t.data.Clone()
	}
	alias := &Tensor{data: data, gradFn: t.gradFn, outputNr: t.outputNr, requiresGrad: t.requiresGrad}
	if tt := t.tangentOf(); tt != nil {
		alias.writeExtra().tangent = tt
	}
	r := f(alias)
	rt := r.tangentOf()
	if rt != nil && tangentsEnabled() {
		if t.view != nil {
			tensor.PanicHint(name, ErrForwardAD, "clone the view first (x.Clone()), then modify the clone",
				"in-place operations on a view with forward-mode tangents are not supported: the tangent of the tensor it views would not follow")
		}
	}
	if t.view != nil && r.gradFn != nil {
		t.inplaceView(name, r)
		return t
	}
	t.data.CopyFrom(r.data)
	if rt != nil && tangentsEnabled() {
		// The new value's tangent; an in-place op keeps t's tangent a
		// separate tensor rather than writing into the old one, which the
		// caller may hold.
		t.writeExtra().tangent = rt
	}
	if r.gradFn != nil {
		t.gradFn, t.outputNr = r.gradFn, r.outputNr
		t.requiresGrad = false
		t.gradFn.setOutMeta(int(t.outputNr), meta{t.data.Shape(), t.DType()})
		if t.retainsGrad {
			t.gradFn.setRetain(t) // Grad() is the gradient of the new value
		}
	}
	return t
}

// AddInPlace adds b (tensor or Go number) into t.
func (t *Tensor) AddInPlace(b any) *Tensor {
	t.self("AddInPlace")
	return t.inplace("AddInPlace", func(x *Tensor) *Tensor { return Add(x, b) })
}

// SubInPlace subtracts b from t.
func (t *Tensor) SubInPlace(b any) *Tensor {
	t.self("SubInPlace")
	return t.inplace("SubInPlace", func(x *Tensor) *Tensor { return Sub(x, b) })
}

// MulInPlace multiplies t by b.
func (t *Tensor) MulInPlace(b any) *Tensor {
	t.self("MulInPlace")
	return t.inplace("MulInPlace", func(x *Tensor) *Tensor { return Mul(x, b) })
}

// DivInPlace divides t by b.
func (t *Tensor) DivInPlace(b any) *Tensor {
	t.self("DivInPlace")
	return t.inplace("DivInPlace", func(x *Tensor) *Tensor { return Div(x, b) })
}

// ClampInPlace clamps t to [lo, hi].
func (t *Tensor) ClampInPlace(lo, hi float64) *Tensor {
	t.self("ClampInPlace")
	return t.inplace("ClampInPlace", func(x *Tensor) *Tensor { return x.Clamp(lo, hi) })
}

// ExpInPlace replaces t by e^t.
func (t *Tensor) ExpInPlace() *Tensor {
	t.self("ExpInPlace")
	return t.inplace("ExpInPlace", func(x *Tensor) *Tensor { return x.Exp() })
}

// ZeroInPlace sets every element of t to 0 (no gradient flows through it).
func (t *Tensor) ZeroInPlace() *Tensor {
	t.self("ZeroInPlace")
	return t.inplace("ZeroInPlace", func(x *Tensor) *Tensor { return x.Mul(0.0) })
}

// FillInPlace sets every element of t to v.
func (t *Tensor) FillInPlace(v float64) *Tensor {
	t.self("FillInPlace")
	return t.inplace("FillInPlace", func(x *Tensor) *Tensor { return x.Mul(0.0).Add(v) })
}
