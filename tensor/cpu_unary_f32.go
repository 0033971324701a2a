package tensor

import "math"

// Float32 kernels for exp, sigmoid and tanh.
//
// The generic path converts each float32 to float64 and calls math.Exp or
// math.Tanh, which handle the whole float64 range and are not inlined. A
// float32 result needs far less: every input is clamped to a range where the
// float64 intermediates can neither overflow nor underflow, exp is reduced
// to 2^k·e^r with |r| ≤ ln2/2 and e^r (or e^r - 1) is a degree-8 Taylor
// polynomial evaluated in float64. The truncation error is below 2.5e-10
// relative, the float64 rounding errors below 1e-15, so the float64 value
// before the single rounding to float32 is within 0.01 ulp of float32 of
// the exact result: outputs are the correctly rounded value or, rarely, its
// neighbour (at most 1 ulp from float32(math.Exp(float64(x))) etc.; the
// tests check this over tens of millions of inputs, including ±0, ±Inf, NaN,
// subnormals and the overflow and underflow thresholds). The loops are plain
// straight-line code that the compiler inlines.

const (
	f32Log2e  = 1.4426950408889634
	f32Ln2    = 0.6931471805599453
	f32Round  = 0x1.8p52 // adding it rounds a float64 of magnitude < 2^51 to an integer
	f32ExpMin = -150.0   // e^-150 < half the smallest float32 subnormal
	f32ExpMax = 150.0    // e^150 > the largest float32, e^-150 rounds 1/(1+e^150) to 0
)

// expm1Poly returns e^r - 1 for |r| ≤ ln2/2: the Taylor polynomial to
// degree 8, without its constant term so that small r keep their relative
// accuracy, evaluated in Estrin's scheme (a short dependency chain, so that
// the iterations of a loop overlap).
func expm1Poly(r float64) float64 {
	r2 := r * r
	a := 1 + r*(1.0/2)
	b := 1.0/6 + r*(1.0/24)
	c := 1.0/120 + r*(1.0/720)
	d := 1.0/5040 + r*(1.0/40320)
	return r * ((a + b*r2) + (c+d*r2)*(r2*r2))
}

// clampExp limits a non-NaN v to [f32ExpMin, f32ExpMax]. (Comparisons are
// cheaper than the builtin min and max, which order NaNs and signed zeros.)
func clampExp(v float64) float64 {
	if v < f32ExpMin {
		v = f32ExpMin
	}
	if v > f32ExpMax {
		v = f32ExpMax
	}
	return v
}

// clampTanh returns min(|v|, 20) for a non-NaN v; tanh(20) rounds to 1 in
// float32.
func clampTanh(v float64) float64 {
	a := math.Abs(v)
	if a > 20 {
		a = 20
	}
	return a
}

// pow2 returns 2^k for an integral k in [-1022, 1023].
func pow2(k float64) float64 { return math.Float64frombits(uint64(int64(k)+1023) << 52) }

// exp32 is e^x for a float32 x. The loops in unaryFloat32Fast repeat its
// body so that it is inlined there.
func exp32(x float32) float32 {
	if x != x {
		return x
	}
	v := clampExp(float64(x))
	k := (v*f32Log2e + f32Round) - f32Round
	return float32((1 + expm1Poly(v-k*f32Ln2)) * pow2(k))
}

// sigmoid32 is 1/(1+e^-x) for a float32 x.
func sigmoid32(x float32) float32 {
	if x != x {
		return x
	}
	v := clampExp(-float64(x))
	k := (v*f32Log2e + f32Round) - f32Round
	return float32(1 / (1 + (1+expm1Poly(v-k*f32Ln2))*pow2(k)))
}

// tanh32 is tanh(x) for a float32 x, as (e^2|x| - 1)/(e^2|x| + 1) with the
// sign of x (so tanh(-0) = -0). e^v - 1 = 2^k·(e^r - 1) + (2^k - 1), where
// both products are exact and the second term is 0 for k = 0, so small x keep
// their relative accuracy without a branch.
func tanh32(x float32) float32 {
	if x != x {
		return x
	}
	v := 2 * clampTanh(float64(x))
	k := (v*f32Log2e + f32Round) - f32Round
	s := pow2(k)
	em1 := expm1Poly(v-k*f32Ln2)*s + (s - 1)
	return float32(math.Copysign(em1/(em1+2), float64(x)))
}

// unaryFloat32Fast runs the float32 kernels of exp, sigmoid and tanh over
// contiguous slices; it reports false for other ops.
func unaryFloat32Fast(op UnaryOp, dd, ss []float32) bool {
	switch op {
	case OpExp:
		for i, x := range ss {
			if x != x {
				dd[i] = x
				continue
			}
			v := clampExp(float64(x))
			k := (v*f32Log2e + f32Round) - f32Round
			dd[i] = float32((1 + expm1Poly(v-k*f32Ln2)) * pow2(k))
		}
	case OpSigmoid:
		for i, x := range ss {
			if x != x {
				dd[i] = x
				continue
			}
			v := clampExp(-float64(x))
			k := (v*f32Log2e + f32Round) - f32Round
			dd[i] = float32(1 / (1 + (1+expm1Poly(v-k*f32Ln2))*pow2(k)))
		}
	case OpTanh:
		for i, x := range ss {
			if x != x {
				dd[i] = x
				continue
			}
			v := 2 * clampTanh(float64(x))
			k := (v*f32Log2e + f32Round) - f32Round
			s := pow2(k)
			em1 := expm1Poly(v-k*f32Ln2)*s + (s - 1)
			dd[i] = float32(math.Copysign(em1/(em1+2), float64(x)))
		}
	default:
		return false
	}
	return true
}
