package agx

import (
	"math"

	"github.com/goagx/agx/tensor"
)

// Exp returns e^x. Backward: g·e^x (the saved output).
func (t *Tensor) Exp() *Tensor {
	t.self("Exp")
	r := record("ExpBackward0", t.data.Exp(), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(s[0])}
	})
	saveOutput(r)
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(r) })
	}
	return r
}

// Expm1 returns e^x - 1, accurate for small x. Backward: g·(out + 1).
func (t *Tensor) Expm1() *Tensor {
	t.self("Expm1")
	r := record("Expm1Backward0", t.data.Expm1(), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(s[0].Add(1))}
	})
	saveOutput(r)
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(r.Add(1)) })
	}
	return r
}

// Log returns the natural logarithm. Backward: g / x.
func (t *Tensor) Log() *Tensor {
	t.self("Log")
	r := record("LogBackward0", t.data.Log(), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Div(s[0])}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Div(t) })
	}
	return r
}

// Log1p returns log(1 + x), accurate for small x. Backward: g / (1 + x).
func (t *Tensor) Log1p() *Tensor {
	t.self("Log1p")
	r := record("Log1pBackward0", t.data.Log1p(), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Div(s[0].Add(1))}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Div(t.Add(1)) })
	}
	return r
}

// Sqrt returns √x. Backward: g / (2√x).
func (t *Tensor) Sqrt() *Tensor {
	t.self("Sqrt")
	r := record("SqrtBackward0", t.data.Sqrt(), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Div(s[0].Mul(2))}
	})
	saveOutput(r)
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Div(r.Mul(2)) })
	}
	return r
}

// Rsqrt returns 1/√x. Backward: -g·out³/2.
func (t *Tensor) Rsqrt() *Tensor {
	t.self("Rsqrt")
	r := record("RsqrtBackward0", t.data.Rsqrt(), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(s[0].Pow(3)).Mul(-0.5)}
	})
	saveOutput(r)
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(r.Pow(3)).Mul(-0.5) })
	}
	return r
}

// Abs returns |x|. Backward: g·sign(x) (0 at 0).
func (t *Tensor) Abs() *Tensor {
	t.self("Abs")
	r := record("AbsBackward0", t.data.Abs(), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(s[0].Sign())}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(t.Sign()) })
	}
	return r
}

// zeroGrad records ops whose derivative is zero almost everywhere (sign, round,
// floor, ceil): their gradient is zeros, as in PyTorch.
func zeroGrad(name string, out *tensor.Tensor, t *Tensor) *Tensor {
	r := record(name, out, []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(0.0)}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return nil }) // zeros, as PyTorch's
	}
	return r
}

// Sign returns -1, 0 or 1. Its gradient is zero (see the STE helpers for the
// straight-through alternative).
func (t *Tensor) Sign() *Tensor {
	t.self("Sign")
	return zeroGrad("SignBackward0", t.data.Sign(), t)
}

// Round rounds half to even, as PyTorch does. Its gradient is zero.
func (t *Tensor) Round() *Tensor {
	t.self("Round")
	return zeroGrad("RoundBackward0", t.data.Round(), t)
}

// Floor rounds down. Its gradient is zero.
func (t *Tensor) Floor() *Tensor {
	t.self("Floor")
	return zeroGrad("FloorBackward0", t.data.Floor(), t)
}

// Ceil rounds up. Its gradient is zero.
func (t *Tensor) Ceil() *Tensor {
	t.self("Ceil")
	return zeroGrad("CeilBackward0", t.data.Ceil(), t)
}

// Clamp limits x to [lo, hi] (math.Inf bounds mean none). Backward: g where
// lo ≤ x ≤ hi, else 0.
func (t *Tensor) Clamp(lo, hi float64) *Tensor {
	t.self("Clamp")
	r := record("ClampBackward1", t.data.Clamp(lo, hi), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		x := s[0].data
		in := x.Ge(lo).LogicalAnd(x.Le(hi))
		return []*Tensor{Where(wrap(in), g, 0.0)}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return Where(wrap(t.data.Ge(lo).LogicalAnd(t.data.Le(hi))), t.tangentOf(), 0.0) })
	}
	return r
}

// ClampMin is Clamp with only a lower bound (ReLU is ClampMin(0)).
func (t *Tensor) ClampMin(lo float64) *Tensor {
	t.self("ClampMin")
	return t.Clamp(lo, math.Inf(1))
}

// ClampMax is Clamp with only an upper bound.
func (t *Tensor) ClampMax(hi float64) *Tensor {
	t.self("ClampMax")
	return t.Clamp(math.Inf(-1), hi)
}

// Sigmoid returns 1/(1+e^-x), computed stably for large |x|. Backward:
// g·σ·(1-σ) from the saved output.
func (t *Tensor) Sigmoid() *Tensor {
	t.self("Sigmoid")
	r := record("SigmoidBackward0", t.data.Sigmoid(), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		y := s[0]
		if recordsNothing(g, y) {
			// one fused pass; the same products in the same order as below
			return []*Tensor{wrap(tensor.SigmoidGrad(g.data, y.data))}
		}
		return []*Tensor{g.Mul(y.Mul(y.RSub(1)))}
	})
	saveOutput(r)
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(r.Mul(r.RSub(1))) })
	}
	return r
}

// Tanh returns tanh(x). Backward: g·(1 - tanh²) from the saved output.
func (t *Tensor) Tanh() *Tensor {
	t.self("Tanh")
	r := record("TanhBackward0", t.data.Tanh(), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		y := s[0]
		if recordsNothing(g, y) {
			return []*Tensor{wrap(tensor.TanhGrad(g.data, y.data))}
		}
		return []*Tensor{g.Mul(y.Mul(y).RSub(1))}
	})
	saveOutput(r)
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(r.Mul(r).RSub(1)) })
	}
	return r
}

// Relu returns max(x, 0). Backward: g where the output is positive.
func (t *Tensor) Relu() *Tensor {
	t.self("Relu")
	r := record("ReluBackward0", t.data.Relu(), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		y := s[0]
		if recordsNothing(g) {
			// one fused pass, no mask; the same values as below
			return []*Tensor{wrap(tensor.ReluGrad(g.data, y.data))}
		}
		return []*Tensor{Where(wrap(y.data.Gt(0)), g, 0.0)}
	})
	saveOutput(r)
	if isDual(t) {
		jvp(r, func() *Tensor { return Where(wrap(r.data.Gt(0)), t.tangentOf(), 0.0) })
	}
	return r
}

// Erf returns the error function. Backward: g·2/√π·e^(-x²).
func (t *Tensor) Erf() *Tensor {
	t.self("Erf")
	r := record("ErfBackward0", t.data.Erf(), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		x := s[0]
		return []*Tensor{g.Mul(x.Mul(x).Neg().Exp().Mul(2 / math.Sqrt(math.Pi)))}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(t.Mul(t).Neg().Exp().Mul(2 / math.Sqrt(math.Pi))) })
	}
	return r
}

// Sin returns sin(x). Backward: g·cos(x).
func (t *Tensor) Sin() *Tensor {
	t.self("Sin")
	r := record("SinBackward0", t.data.Sin(), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(s[0].Cos())}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(t.Cos()) })
	}
	return r
}

// Cos returns cos(x). Backward: -g·sin(x).
func (t *Tensor) Cos() *Tensor {
	t.self("Cos")
	r := record("CosBackward0", t.data.Cos(), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(s[0].Sin()).Neg()}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(t.Sin()).Neg() })
	}
	return r
}

// GELU returns x·Φ(x) with Φ the standard normal CDF (exact, erf form).
// Backward: g·(Φ(x) + x·φ(x)).
func (t *Tensor) GELU() *Tensor {
	t.self("GELU")
	x := t.data
	cdf := x.Mul(1 / math.Sqrt2).Erf().Add(1).Mul(0.5)
	r := record("GeluBackward0", x.Mul(cdf), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(geluGrad(s[0]))}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Mul(geluGrad(t)) })
	}
	return r
}

// GELUTanh is GELU's tanh approximation:
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func (t *Tensor) GELUTanh() *Tensor {
	t.self("GELUTanh")
	c := math.Sqrt(2 / math.Pi)
	inner := t.Add(t.Pow(3).Mul(0.044715)).Mul(c)
	return t.Mul(0.5).Mul(inner.Tanh().Add(1))
}

// SiLU returns x·σ(x) (Swish). Backward: g·σ(x)·(1 + x·(1-σ(x))).
func (t *Tensor) SiLU() *Tensor {
	t.self("SiLU")
	x := t.data
	r := record("SiluBackward0", x.Mul(x.Sigmoid()), []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		x := s[0]
		sg := x.Sigmoid()
		return []*Tensor{g.Mul(sg.Mul(x.Mul(sg.RSub(1)).Add(1)))}
	})
	if isDual(t) {
		jvp(r, func() *Tensor {
			sg := t.Sigmoid()
			return t.tangentOf().Mul(sg.Mul(t.Mul(sg.RSub(1)).Add(1)))
		})
	}
	return r
}

// To returns t converted to dtype dt (t itself if it has it already). The
// gradient is cast back to t's dtype.
func (t *Tensor) To(dt DType) *Tensor {
	t.self("To")
	if t.DType() == dt {
		return t
	}
	src := t.DType()
	r := record("ToCopyBackward0", t.data.To(dt), []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{g.To(src)}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().To(dt) })
	}
	return r
}

// Clone returns a copy with its own storage; gradients flow through unchanged.
func (t *Tensor) Clone() *Tensor {
	t.self("Clone")
	r := record("CloneBackward0", t.data.Clone(), []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{g}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf() })
	}
	return r
}

// Contiguous returns t when it is contiguous, else a contiguous copy (which
// gradients flow through unchanged).
func (t *Tensor) Contiguous() *Tensor {
	t.self("Contiguous")
	if t.data.IsContiguous() {
		return t
	}
	return t.Clone()
}

// geluGrad is GELU's derivative Φ(x) + x·φ(x).
func geluGrad(x *Tensor) *Tensor {
	phi := x.Mul(1 / math.Sqrt2).Erf().Add(1).Mul(0.5)
	pdf := x.Mul(x).Mul(-0.5).Exp().Mul(1 / math.Sqrt(2*math.Pi))
	return phi.Add(x.Mul(pdf))
}
