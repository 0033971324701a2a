//go:build ignore

// fit_erf prints the coefficients of Erf64 (erf64.go) and of Erf32
// (erf32.go), both copied into gen_kernels.go: polynomials that interpolate
// erf at Chebyshev nodes, with the function values, the divided differences
// and the change to the monomial basis in 320-bit arithmetic, each
// coefficient rounded once to float64 (then, for Erf32, to float32). Run it
// with go run fit_erf.go.
package main

import (
	"fmt"
	"math"
	"math/big"
)

const prec = 320

// The fits, as in erf64.go: erf x = x + x·P(x²) for |x| < erf64Split, and
// 1 - e^(-x²)·t·G(t - erf64Mid) with t = erf64K/(erf64K + x) on [erf64Split, erf64Hi].
const (
	split    = 1.0
	hi       = 6.0
	kk       = 3.0
	degSmall = 12
	degLarge = 17
)

func bf(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
func nf() *big.Float          { return new(big.Float).SetPrec(prec) }

var pi = func() *big.Float {
	p, _, err := big.ParseFloat("3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679", 10, prec, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return p
}()

// erfBig returns erf x and e^(x²)·erfc x for 0 < x ≤ 7, from their series.
func erfBig(x *big.Float) (erf, erfcx *big.Float) {
	t := nf().Mul(x, x)
	term, sum := nf().Set(x), nf()
	for n := 0; n < 500; n++ {
		sum.Add(sum, nf().Quo(term, bf(float64(2*n+1))))
		term.Mul(term, t)
		term.Quo(term, bf(float64(n+1)))
		term.Neg(term)
	}
	sum.Mul(sum, bf(2))
	sum.Quo(sum, nf().Sqrt(pi))
	e, term := bf(1), bf(1)
	for n := 1; n < 500; n++ {
		term.Mul(term, t)
		term.Quo(term, bf(float64(n)))
		e.Add(e, term)
	}
	c := nf().Sub(bf(1), sum)
	return sum, c.Mul(c, e)
}

// fit returns the coefficients, lowest first, of the polynomial in u = v -
// center that interpolates f at the n+1 Chebyshev nodes of [lo, hi].
func fit(f func(v *big.Float) *big.Float, lo, hi, center float64, n int) []float64 {
	us := make([]*big.Float, n+1)
	dd := make([]*big.Float, n+1)
	for k := 0; k <= n; k++ {
		v := (lo+hi)/2 + (hi-lo)/2*math.Cos(math.Pi*(float64(k)+0.5)/float64(n+1))
		us[k] = nf().Sub(bf(v), bf(center))
		dd[k] = f(bf(v))
	}
	for j := 1; j <= n; j++ {
		for k := n; k >= j; k-- {
			dd[k] = nf().Quo(nf().Sub(dd[k], dd[k-1]), nf().Sub(us[k], us[k-j]))
		}
	}
	// Newton form to monomials: p = dd[n]; p = p·(u - us[k]) + dd[k].
	c := []*big.Float{nf().Set(dd[n])}
	for k := n - 1; k >= 0; k-- {
		next := make([]*big.Float, len(c)+1)
		for i := range next {
			next[i] = nf()
		}
		for i, ci := range c {
			next[i+1].Add(next[i+1], ci)
			next[i].Sub(next[i], nf().Mul(ci, us[k]))
		}
		next[0].Add(next[0], dd[k])
		c = next
	}
	out := make([]float64, len(c))
	for i, ci := range c {
		out[i], _ = ci.Float64()
	}
	return out
}

func horner(c []float64, u float64) float64 {
	p := c[len(c)-1]
	for j := len(c) - 2; j >= 0; j-- {
		p = float64(p*u) + c[j]
	}
	return p
}

func main() {
	// P(t) = erf(√t)/√t - 1 on [0, split²]
	small := fit(func(t *big.Float) *big.Float {
		x := nf().Sqrt(t)
		e, _ := erfBig(x)
		return e.Sub(e.Quo(e, x), bf(1))
	}, 0, split*split, 0, degSmall)
	tlo, thi := kk/(kk+hi), kk/(kk+split)
	mid := (tlo + thi) / 2
	// G(u) = e^(x²)·erfc(x)/t, t = u + mid, x = K/t - K
	large := fit(func(t *big.Float) *big.Float {
		x := nf().Sub(nf().Quo(bf(kk), t), bf(kk))
		_, c := erfBig(x)
		return c.Quo(c, t)
	}, tlo, thi, mid, degLarge)
	fmt.Printf("mid = %v\n", mid)
	for j, c := range small {
		fmt.Printf("small %d %v\n", j, c)
	}
	for j, c := range large {
		fmt.Printf("large %d %v\n", j, c)
	}
	// errors of the float64 polynomials against the 320-bit values, in units
	// of 2^-53 (half an ulp of erf near 1) for the large branch and
	// relative for the small one.
	var worstS, worstL float64
	for i := 1; i <= 400; i++ {
		x := split * float64(i) / 400
		e, _ := erfBig(bf(x))
		want, _ := e.Float64()
		got := x + x*horner(small, x*x)
		worstS = math.Max(worstS, math.Abs(got-want)/want/0x1p-53)
	}
	for i := 0; i <= 1000; i++ {
		x := split + (hi-split)*float64(i)/1000
		_, c := erfBig(bf(x))
		t := kk / (kk + x)
		ec := math.Exp(-x*x) * t * horner(large, t-mid)
		wantB := nf().Mul(c, bf(math.Exp(-x*x)))
		want, _ := wantB.Float64()
		worstL = math.Max(worstL, math.Abs(ec-want)/0x1p-53)
	}
	fmt.Printf("small: %.3g half-ulps relative; large: erfc within %.3g·2^-53\n", worstS, worstL)
	fit32()
}

// fit32 prints Erf32's tables (erf32.go): for each interval [c, c + 1/2)
// with c = k/2, erf(c + s) = A + (D + (M·s + s·R(s))), where M = 1 for
// k = 0 and 0 above, A = erf c rounded to float32, D = erf c - A rounded
// to float32, and R of degree erf32Deg interpolates the rest divided by s:
// erf(s)/s - 1 for k = 0, (erf(c + s) - A - D)/s above.
func fit32() {
	const deg = 7
	var a, d [8]float32
	var r [deg + 1][8]float32
	for k := range 8 {
		c := float64(k) / 2
		base := bf(0)
		if k > 0 {
			e, _ := erfBig(bf(c))
			ef, _ := e.Float64()
			a[k] = float32(ef)
			df, _ := nf().Sub(e, bf(float64(a[k]))).Float64()
			d[k] = float32(df)
			base.Add(bf(float64(a[k])), bf(float64(d[k])))
		}
		p := fit(func(s *big.Float) *big.Float {
			e, _ := erfBig(nf().Add(bf(c), s))
			if k == 0 {
				e.Quo(e, s)
				return e.Sub(e, bf(1))
			}
			e.Sub(e, base)
			return e.Quo(e, s)
		}, 0, 0.5, 0, deg)
		for j, v := range p {
			r[j][k] = float32(v)
		}
	}
	fmt.Printf("erf32A = %v\nerf32D = %v\n", a, d)
	for j := range r {
		fmt.Printf("erf32R[%d] = %v\n", j, r[j])
	}
}
