package agx

import (
	"math"

	"github.com/goagx/agx/tensor"
)

// The unary ops. Each one's rules are declared in unaryOps (init, below)
// and written after it, op by op: forward, backward (g·f'(x) with agx ops),
// the fused data-only backward where there is one, and the forward-mode rule
// (ẋ·f'(x)).

var (
	expOp, expm1Op, logOp, log1pOp, sqrtOp, rsqrtOp, absOp opDef[noArgs]
	signOp, roundOp, floorOp, ceilOp                       opDef[noArgs]
	sigmoidOp, tanhOp, reluOp, erfOp, sinOp, cosOp         opDef[noArgs]
	geluOp, siluOp, cloneOp                                opDef[noArgs]
	clampOp                                                opDef[clampArgs]
	toOp                                                   opDef[toArgs]
	unaryOps                                               []rules
)

func init() {
	expOp = opDef[noArgs]{name: "ExpBackward0", arity: 1, forward: expForward, saveOut: true, backward: expBackward, jvp: expJVP}
	expm1Op = opDef[noArgs]{name: "Expm1Backward0", arity: 1, forward: expm1Forward, saveOut: true, backward: expm1Backward, jvp: expm1JVP}
	logOp = opDef[noArgs]{name: "LogBackward0", arity: 1, forward: logForward, save: saveInputs, backward: logBackward, jvp: logJVP}
	log1pOp = opDef[noArgs]{name: "Log1pBackward0", arity: 1, forward: log1pForward, save: saveInputs, backward: log1pBackward, jvp: log1pJVP}
	sqrtOp = opDef[noArgs]{name: "SqrtBackward0", arity: 1, forward: sqrtForward, saveOut: true, backward: sqrtBackward, jvp: sqrtJVP}
	rsqrtOp = opDef[noArgs]{name: "RsqrtBackward0", arity: 1, forward: rsqrtForward, saveOut: true, backward: rsqrtBackward, jvp: rsqrtJVP}
	absOp = opDef[noArgs]{name: "AbsBackward0", arity: 1, forward: absForward, save: saveInputs, backward: absBackward, jvp: absJVP}
	signOp = opDef[noArgs]{name: "SignBackward0", arity: 1, forward: signForward, backward: zeroBackward, jvp: nil}
	roundOp = opDef[noArgs]{name: "RoundBackward0", arity: 1, forward: roundForward, backward: zeroBackward, jvp: nil}
	floorOp = opDef[noArgs]{name: "FloorBackward0", arity: 1, forward: floorForward, backward: zeroBackward, jvp: nil}
	ceilOp = opDef[noArgs]{name: "CeilBackward0", arity: 1, forward: ceilForward, backward: zeroBackward, jvp: nil}
	clampOp = opDef[clampArgs]{name: "ClampBackward1", arity: 1, forward: clampForward, save: saveInputs, backward: clampBackward, jvp: clampJVP}
	sigmoidOp = opDef[noArgs]{name: "SigmoidBackward0", arity: 1, forward: sigmoidForward, saveOut: true, backward: sigmoidBackward, dataBackward: sigmoidDataBackward, jvp: sigmoidJVP}
	tanhOp = opDef[noArgs]{name: "TanhBackward0", arity: 1, forward: tanhForward, saveOut: true, backward: tanhBackward, dataBackward: tanhDataBackward, jvp: tanhJVP}
	reluOp = opDef[noArgs]{name: "ReluBackward0", arity: 1, forward: reluForward, saveOut: true, backward: reluBackward, dataBackward: reluDataBackward, jvp: reluJVP}
	erfOp = opDef[noArgs]{name: "ErfBackward0", arity: 1, forward: erfForward, save: saveInputs, backward: erfBackward, jvp: erfJVP}
	sinOp = opDef[noArgs]{name: "SinBackward0", arity: 1, forward: sinForward, save: saveInputs, backward: sinBackward, jvp: sinJVP}
	cosOp = opDef[noArgs]{name: "CosBackward0", arity: 1, forward: cosForward, save: saveInputs, backward: cosBackward, jvp: cosJVP}
	geluOp = opDef[noArgs]{name: "GeluBackward0", arity: 1, forward: geluForward, save: saveInputs, backward: geluBackward, jvp: geluJVP}
	siluOp = opDef[noArgs]{name: "SiluBackward0", arity: 1, forward: siluForward, save: saveInputs, backward: siluBackward, jvp: siluJVP}
	toOp = opDef[toArgs]{name: "ToCopyBackward0", arity: 1, forward: toForward, backward: toBackward, jvp: toJVP}
	cloneOp = opDef[noArgs]{name: "CloneBackward0", arity: 1, forward: cloneForward, backward: cloneBackward, jvp: cloneJVP}

	unaryOps = []rules{expOp.done(), expm1Op.done(), logOp.done(), log1pOp.done(), sqrtOp.done(), rsqrtOp.done(),
		absOp.done(), signOp.done(), roundOp.done(), floorOp.done(), ceilOp.done(), clampOp.done(),
		sigmoidOp.done(), tanhOp.done(), reluOp.done(), erfOp.done(), sinOp.done(), cosOp.done(),
		geluOp.done(), siluOp.done(), toOp.done(), cloneOp.done()}
}

// Exp returns e^x. Backward: g·e^x (the saved output).
func (t *Tensor) Exp() *Tensor {
	t.self("Exp")
	return expOp.run(noArgs{}, one(t))
}

func expForward(_ noArgs, x ins) *tensor.Tensor              { return x[0].data.Exp() }
func expBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor { return []*Tensor{g.Mul(s[0])} }
func expJVP(_ noArgs, x ins, out *Tensor) *Tensor            { return x[0].tangentOf().Mul(out) }

// Expm1 returns e^x - 1, accurate for small x. Backward: g·(out + 1).
func (t *Tensor) Expm1() *Tensor {
	t.self("Expm1")
	return expm1Op.run(noArgs{}, one(t))
}

func expm1Forward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Expm1() }
func expm1Backward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Mul(s[0].Add(1))}
}
func expm1JVP(_ noArgs, x ins, out *Tensor) *Tensor { return x[0].tangentOf().Mul(out.Add(1)) }

// Log returns the natural logarithm. Backward: g / x.
func (t *Tensor) Log() *Tensor {
	t.self("Log")
	return logOp.run(noArgs{}, one(t))
}

func logForward(_ noArgs, x ins) *tensor.Tensor              { return x[0].data.Log() }
func logBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor { return []*Tensor{g.Div(s[0])} }
func logJVP(_ noArgs, x ins, _ *Tensor) *Tensor              { return x[0].tangentOf().Div(x[0]) }

// Log1p returns log(1 + x), accurate for small x. Backward: g / (1 + x).
func (t *Tensor) Log1p() *Tensor {
	t.self("Log1p")
	return log1pOp.run(noArgs{}, one(t))
}

func log1pForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Log1p() }
func log1pBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Div(s[0].Add(1))}
}
func log1pJVP(_ noArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().Div(x[0].Add(1)) }

// Sqrt returns √x. Backward: g / (2√x).
func (t *Tensor) Sqrt() *Tensor {
	t.self("Sqrt")
	return sqrtOp.run(noArgs{}, one(t))
}

func sqrtForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Sqrt() }
func sqrtBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Div(s[0].Mul(2))}
}
func sqrtJVP(_ noArgs, x ins, out *Tensor) *Tensor { return x[0].tangentOf().Div(out.Mul(2)) }

// Rsqrt returns 1/√x. Backward: -g·out³/2.
func (t *Tensor) Rsqrt() *Tensor {
	t.self("Rsqrt")
	return rsqrtOp.run(noArgs{}, one(t))
}

func rsqrtForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Rsqrt() }
func rsqrtBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Mul(s[0].Pow(3)).Mul(-0.5)}
}
func rsqrtJVP(_ noArgs, x ins, out *Tensor) *Tensor {
	return x[0].tangentOf().Mul(out.Pow(3)).Mul(-0.5)
}

// Abs returns |x|. Backward: g·sign(x) (0 at 0).
func (t *Tensor) Abs() *Tensor {
	t.self("Abs")
	return absOp.run(noArgs{}, one(t))
}

func absForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Abs() }
func absBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Mul(s[0].Sign())}
}
func absJVP(_ noArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().Mul(x[0].Sign()) }

// Sign returns -1, 0 or 1. Its gradient is zero (see the STE helpers for the
// straight-through alternative).
func (t *Tensor) Sign() *Tensor {
	t.self("Sign")
	return signOp.run(noArgs{}, one(t))
}

// Round rounds half to even, as PyTorch does. Its gradient is zero.
func (t *Tensor) Round() *Tensor {
	t.self("Round")
	return roundOp.run(noArgs{}, one(t))
}

// Floor rounds down. Its gradient is zero.
func (t *Tensor) Floor() *Tensor {
	t.self("Floor")
	return floorOp.run(noArgs{}, one(t))
}

// Ceil rounds up. Its gradient is zero.
func (t *Tensor) Ceil() *Tensor {
	t.self("Ceil")
	return ceilOp.run(noArgs{}, one(t))
}

func signForward(_ noArgs, x ins) *tensor.Tensor  { return x[0].data.Sign() }
func roundForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Round() }
func floorForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Floor() }
func ceilForward(_ noArgs, x ins) *tensor.Tensor  { return x[0].data.Ceil() }

// zeroBackward is the backward of the ops whose derivative is zero almost
// everywhere (sign, round, floor, ceil): zeros, as in PyTorch. Their
// forward-mode rule is nil: zero tangents.
func zeroBackward(_ noArgs, g *Tensor, _ []*Tensor) []*Tensor { return []*Tensor{g.Mul(0.0)} }

// Clamp limits x to [lo, hi] (math.Inf bounds mean none). Backward: g where
// lo ≤ x ≤ hi, else 0.
func (t *Tensor) Clamp(lo, hi float64) *Tensor {
	t.self("Clamp")
	return clampOp.run(clampArgs{lo, hi}, one(t))
}

// clampArgs are Clamp's bounds.
type clampArgs struct{ lo, hi float64 }

// inside is the mask of the elements of x within the bounds.
func (c clampArgs) inside(x *tensor.Tensor) *Tensor { return wrap(x.Ge(c.lo).LogicalAnd(x.Le(c.hi))) }

func clampForward(c clampArgs, x ins) *tensor.Tensor { return x[0].data.Clamp(c.lo, c.hi) }
func clampBackward(c clampArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{Where(c.inside(s[0].data), g, 0.0)}
}
func clampJVP(c clampArgs, x ins, _ *Tensor) *Tensor {
	return Where(c.inside(x[0].data), x[0].tangentOf(), 0.0)
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
	return sigmoidOp.run(noArgs{}, one(t))
}

func sigmoidForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Sigmoid() }
func sigmoidBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	y := s[0]
	return []*Tensor{g.Mul(y.Mul(y.RSub(1)))}
}

// sigmoidDataBackward is one fused pass: the same products in the same order
// as sigmoidBackward.
func sigmoidDataBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{wrap(tensor.SigmoidGrad(g.data, s[0].data))}
}
func sigmoidJVP(_ noArgs, x ins, out *Tensor) *Tensor {
	return x[0].tangentOf().Mul(out.Mul(out.RSub(1)))
}

// Tanh returns tanh(x). Backward: g·(1 - tanh²) from the saved output.
func (t *Tensor) Tanh() *Tensor {
	t.self("Tanh")
	return tanhOp.run(noArgs{}, one(t))
}

func tanhForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Tanh() }
func tanhBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	y := s[0]
	return []*Tensor{g.Mul(y.Mul(y).RSub(1))}
}
func tanhDataBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{wrap(tensor.TanhGrad(g.data, s[0].data))}
}
func tanhJVP(_ noArgs, x ins, out *Tensor) *Tensor {
	return x[0].tangentOf().Mul(out.Mul(out).RSub(1))
}

// Relu returns max(x, 0). Backward: g where the output is positive.
func (t *Tensor) Relu() *Tensor {
	t.self("Relu")
	return reluOp.run(noArgs{}, one(t))
}

func reluForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Relu() }
func reluBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{Where(wrap(s[0].data.Gt(0)), g, 0.0)}
}

// reluDataBackward is one fused pass, no mask; the same values as
// reluBackward.
func reluDataBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{wrap(tensor.ReluGrad(g.data, s[0].data))}
}
func reluJVP(_ noArgs, x ins, out *Tensor) *Tensor {
	return Where(wrap(out.data.Gt(0)), x[0].tangentOf(), 0.0)
}

// Erf returns the error function. Backward: g·2/√π·e^(-x²).
func (t *Tensor) Erf() *Tensor {
	t.self("Erf")
	return erfOp.run(noArgs{}, one(t))
}

func erfForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Erf() }
func erfBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Mul(erfDeriv(s[0]))}
}
func erfJVP(_ noArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().Mul(erfDeriv(x[0])) }

// erfDeriv is erf's derivative 2/√π·e^(-x²).
func erfDeriv(x *Tensor) *Tensor { return x.Mul(x).Neg().Exp().Mul(2 / math.Sqrt(math.Pi)) }

// Sin returns sin(x). Backward: g·cos(x).
func (t *Tensor) Sin() *Tensor {
	t.self("Sin")
	return sinOp.run(noArgs{}, one(t))
}

func sinForward(_ noArgs, x ins) *tensor.Tensor              { return x[0].data.Sin() }
func sinBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor { return []*Tensor{g.Mul(s[0].Cos())} }
func sinJVP(_ noArgs, x ins, _ *Tensor) *Tensor              { return x[0].tangentOf().Mul(x[0].Cos()) }

// Cos returns cos(x). Backward: -g·sin(x).
func (t *Tensor) Cos() *Tensor {
	t.self("Cos")
	return cosOp.run(noArgs{}, one(t))
}

func cosForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.Cos() }
func cosBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Mul(s[0].Sin()).Neg()}
}
func cosJVP(_ noArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().Mul(x[0].Sin()).Neg() }

// GELU returns x·Φ(x) with Φ the standard normal CDF (exact, erf form).
// Backward: g·(Φ(x) + x·φ(x)).
func (t *Tensor) GELU() *Tensor {
	t.self("GELU")
	return geluOp.run(noArgs{}, one(t))
}

func geluForward(_ noArgs, x ins) *tensor.Tensor { return x[0].data.GELU() }
func geluBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Mul(geluGrad(s[0]))}
}
func geluJVP(_ noArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().Mul(geluGrad(x[0])) }

// geluGrad is GELU's derivative Φ(x) + x·φ(x).
func geluGrad(x *Tensor) *Tensor {
	phi := x.Mul(1 / math.Sqrt2).Erf().Add(1).Mul(0.5)
	pdf := x.Mul(x).Mul(-0.5).Exp().Mul(1 / math.Sqrt(2*math.Pi))
	return phi.Add(x.Mul(pdf))
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
	return siluOp.run(noArgs{}, one(t))
}

func siluForward(_ noArgs, x ins) *tensor.Tensor {
	d := x[0].data
	return d.Mul(d.Sigmoid())
}
func siluBackward(_ noArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{g.Mul(siluDeriv(s[0]))}
}
func siluJVP(_ noArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().Mul(siluDeriv(x[0])) }

// siluDeriv is SiLU's derivative σ(x)·(1 + x·(1-σ(x))).
func siluDeriv(x *Tensor) *Tensor {
	sg := x.Sigmoid()
	return sg.Mul(x.Mul(sg.RSub(1)).Add(1))
}

// To returns t converted to dtype dt (t itself if it has it already). The
// gradient is cast back to t's dtype.
func (t *Tensor) To(dt DType) *Tensor {
	t.self("To")
	if t.DType() == dt {
		return t
	}
	return toOp.run(toArgs{from: t.DType(), to: dt}, one(t))
}

// toArgs are the dtypes of To's input and result.
type toArgs struct{ from, to DType }

func toForward(c toArgs, x ins) *tensor.Tensor { return x[0].data.To(c.to) }
func toBackward(c toArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{g.To(c.from)}
}
func toJVP(c toArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().To(c.to) }

// Clone returns a copy with its own storage; gradients flow through unchanged.
func (t *Tensor) Clone() *Tensor {
	t.self("Clone")
	return cloneOp.run(noArgs{}, one(t))
}

func cloneForward(_ noArgs, x ins) *tensor.Tensor              { return x[0].data.Clone() }
func cloneBackward(_ noArgs, g *Tensor, _ []*Tensor) []*Tensor { return []*Tensor{g} }
func cloneJVP(_ noArgs, x ins, _ *Tensor) *Tensor              { return x[0].tangentOf() }

// Contiguous returns t when it is contiguous, else a contiguous copy (which
// gradients flow through unchanged).
func (t *Tensor) Contiguous() *Tensor {
	t.self("Contiguous")
	if t.data.IsContiguous() {
		return t
	}
	return t.Clone()
}
