package vmath

import "math"

const (
	log2e  = 1.4426950408889634
	round  = 0x1.8p52 // adding it rounds a float64 of magnitude < 2^51 to an integer
	tanhHi = 20.0     // tanh(20) rounds to 1 in float64
	erfHi  = 4.0      // erf(4) = 1 - 1.5e-8 rounds to 1 in float32
)

// erfC are the coefficients, lowest degree first, of a degree-18 polynomial
// P with erf(a) ≈ a·P(a²) for 0 ≤ a ≤ erfHi: the Chebyshev interpolant of
// erf(√t)/√t on t in [0, 16], computed with 50-digit arithmetic and rounded
// to float64. Its error is below 2e-10 absolute, 8e-10 relative (erf(√t)/√t
// falls from 2/√π to 1/4 over the interval), and the largest term of the sum
// is 1.7e4 (at t = 16), so rounding costs below 1e-11: the float64 value of
// a·P(a²) is within 0.02 ulp of float32 of erf(a).
var erfC = [19]float64{
	1.1283791668944105,
	-0.37612637994416254,
	0.11283784806429992,
	-0.026865963750455343,
	0.005223646149613631,
	-0.0008545065101948847,
	0.0001203383996463952,
	-1.4825297167592423e-05,
	1.6116703597671405e-06,
	-1.546381394408387e-07,
	1.2980389195573635e-08,
	-9.37064885712255e-10,
	5.6823739391549953e-11,
	-2.8122359092737115e-12,
	1.0968599972908687e-13,
	-3.221478427940935e-15,
	6.66142222231235e-17,
	-8.611370426755082e-19,
	5.220164524238099e-21,
}

// The float64(...) conversions around products below keep the compiler from
// fusing them with the following addition (it does on arm64, and on amd64
// with GOAMD64=v3): each product is rounded, as in the assembly kernels.
// (Check: building with -gcflags=-S for GOAMD64=v3 or GOARCH=arm64 shows no
// fused multiply-add in this file or in exp32.go.)

// clampTanh returns min(|v|, tanhHi) for a non-NaN v.
func clampTanh(v float64) float64 {
	a := math.Abs(v)
	if a > tanhHi {
		a = tanhHi
	}
	return a
}

// pow2 returns 2^k for k = t - round, t = float64(v*log2e) + round, k in
// [-1022, 1023]. The low 12 bits of t's bit pattern are those of k (round's
// are 0), so adding the exponent bias and shifting leaves only 2^k's
// exponent field.
func pow2(t float64) float64 { return math.Float64frombits((math.Float64bits(t) + 1023) << 52) }

// erfPoly returns P(t) for the erf polynomial (see erfC), in Estrin's
// scheme: pairs c[2j] + c[2j+1]·t, combined with t², then t⁴, and the three
// groups of eight with t⁸ in Horner's form. The assembly kernels run the same
// operations in the same order.
func erfPoly(t float64) float64 {
	t2 := t * t
	t4 := t2 * t2
	t8 := t4 * t4
	q0 := erfC[0] + float64(erfC[1]*t)
	q1 := erfC[2] + float64(erfC[3]*t)
	q2 := erfC[4] + float64(erfC[5]*t)
	q3 := erfC[6] + float64(erfC[7]*t)
	q4 := erfC[8] + float64(erfC[9]*t)
	q5 := erfC[10] + float64(erfC[11]*t)
	q6 := erfC[12] + float64(erfC[13]*t)
	q7 := erfC[14] + float64(erfC[15]*t)
	q8 := erfC[16] + float64(erfC[17]*t)
	r0 := q0 + float64(q1*t2)
	r1 := q2 + float64(q3*t2)
	r2 := q4 + float64(q5*t2)
	r3 := q6 + float64(q7*t2)
	r4 := q8 + float64(erfC[18]*t2)
	s0 := r0 + float64(r1*t4)
	s1 := r2 + float64(r3*t4)
	return float64(s0 + float64(t8*float64(s1+float64(t8*r4))))
}

// clampErf returns min(|v|, erfHi) for a non-NaN v.
func clampErf(v float64) float64 {
	a := math.Abs(v)
	if a > erfHi {
		a = erfHi
	}
	return a
}

// Erf32 is erf(x) for a float32 x, as a·P(a²) for a = min(|x|, 4) with the
// sign of x (so Erf32(-0) = -0 and Erf32(±Inf) = ±1).
func Erf32(x float32) float32 {
	if x != x {
		return x
	}
	a := clampErf(float64(x))
	return float32(math.Copysign(a*erfPoly(a*a), float64(x)))
}

// erfGo is Erf32 over src, into dst[:len(src)].
func erfGo(dst, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		if x != x {
			dst[i] = x
			continue
		}
		a := clampErf(float64(x))
		dst[i] = float32(math.Copysign(a*erfPoly(a*a), float64(x)))
	}
}
