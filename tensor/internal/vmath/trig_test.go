package vmath

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ulp64 is the number of float64 values between a and b (0 when equal, and
// when both are NaN); a NaN against a number is reported as MaxInt64.
func ulp64(a, b float64) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	}
	ord := func(f float64) int64 {
		u := int64(math.Float64bits(f))
		if u < 0 {
			return -(u & math.MaxInt64)
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		return -d
	}
	return d
}

var trigSpecials = []float64{
	0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, 1e-300, 1e-9, -1e-9,
	math.Pi / 4, math.Pi / 2, -math.Pi / 2, math.Pi, 3 * math.Pi / 2, 2 * math.Pi, 1, -1, 100, 1e5,
	trigMax, -trigMax, math.Nextafter(trigMax, 0), math.Nextafter(-trigMax, 0), 1e7, 1e22, math.MaxFloat64,
	// near multiples of π/2
	6.283185307179586, 1.5707963267948966e5, 355, 103993, 312689, 833719,
}

type trigKernel struct {
	name   string
	scalar func(float64) float64
	slice  func(dst, src []float64)
	ref    func(float64) float64
}

var trigKernels = []trigKernel{
	{"sin", Sin64, Sin, func(x float64) float64 { return refSinCos(x, 0) }},
	{"cos", Cos64, Cos, func(x float64) float64 { return refSinCos(x, 1) }},
}

// piDigits is π to 80 decimal places.
const piDigits = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899"

var halfPi = func() *big.Float {
	p, _, err := big.ParseFloat(piDigits, 10, 300, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return p.Quo(p, big.NewFloat(2))
}()

// refSinCos is sin x (q0 = 0) or cos x (q0 = 1), more accurate than math.Sin
// and math.Cos near multiples of π/2, where their reduction loses digits:
// r = x - k·π/2 in 300-bit arithmetic, as a sum rhi + rlo of float64s, then
// sin(rhi + rlo) ≈ sin rhi + rlo·cos rhi from math on |rhi| ≤ π/4 (and the
// like for cos), with the sign and function of the quadrant. Outside
// trigMax it is math.Sin and math.Cos, which the kernels call there.
func refSinCos(x float64, q0 int64) float64 {
	if !(math.Abs(x) < trigMax) {
		if q0 == 0 {
			return math.Sin(x)
		}
		return math.Cos(x)
	}
	k := math.Round(x * (2 / math.Pi))
	r := new(big.Float).SetPrec(300).SetFloat64(x)
	r.Sub(r, new(big.Float).SetPrec(300).Mul(halfPi, big.NewFloat(k)))
	rhi, _ := r.Float64()
	rlo, _ := r.Sub(r, big.NewFloat(rhi)).Float64()
	s := math.Sin(rhi) + rlo*math.Cos(rhi)
	c := math.Cos(rhi) - rlo*math.Sin(rhi)
	q := (int64(k) + q0) & 3
	v := s
	if q&1 != 0 {
		v = c
	}
	if q&2 != 0 {
		v = -v
	}
	if x == 0 && q0 == 0 {
		v = x
	}
	return v
}

// trigInputs are the specials, random values over several scales up to and
// past trigMax, and every float64 near a few multiples of π/2.
func trigInputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(5, 6))
	in := append([]float64{}, trigSpecials...)
	for i := 0; i < n; i++ {
		scale := math.Pow(10, float64(rng.IntN(10)-3))
		in = append(in, (2*rng.Float64()-1)*scale)
	}
	for k := 1; k <= 1000; k++ {
		x := float64(k) * math.Pi / 2
		for j := 0; j < 20; j++ {
			in = append(in, x, -x)
			x = math.Nextafter(x, 0)
		}
	}
	return in
}

// TestTrigMatchesMath checks Sin64 and Cos64 against refSinCos: at most 2
// ulp apart over the inputs of trigInputs (the worst is logged), the same
// signed zeros, NaN for NaN and ±Inf. (math.Sin is up to 1e5 ulp off near
// multiples of π, 29π for one.)
func TestTrigMatchesMath(t *testing.T) {
	n := 2000000
	if testing.Short() || raceEnabled {
		n = 100000
	}
	in := trigInputs(n)
	for _, k := range trigKernels {
		var worst int64
		var worstX float64
		for _, x := range in {
			got, want := k.scalar(x), k.ref(x)
			d := ulp64(got, want)
			if d > worst {
				worst, worstX = d, x
			}
			if got == 0 && want == 0 && math.Signbit(got) != math.Signbit(want) {
				t.Errorf("%s(%g) = %g, want %g", k.name, x, got, want)
			}
		}
		if worst > 2 {
			t.Errorf("%s: %d ulp from math at x = %v", k.name, worst, worstX)
		}
		t.Logf("%s: at most %d ulp from the reference", k.name, worst)
	}
}

// TestTrigSliceMatchesScalar checks Sin and Cos against Sin64 and Cos64
// (checkSliceMatchesScalar).
func TestTrigSliceMatchesScalar(t *testing.T) {
	for _, k := range trigKernels {
		t.Run(k.name, func(t *testing.T) {
			checkSliceMatchesScalar(t, kernel64{name: k.name, scalar: k.scalar, slice: k.slice, inputs: trigInputs})
		})
	}
}

func FuzzSinCos(f *testing.F) {
	for _, x := range trigSpecials {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		for _, k := range trigKernels {
			got := k.scalar(x)
			if d := ulp64(got, k.ref(x)); d > 2 {
				t.Fatalf("%s(%v) = %v is %d ulp from math", k.name, x, got, d)
			}
			src := []float64{x, x, x, x, x, x, x, x, x, x, x}
			dst := make([]float64, len(src))
			k.slice(dst, src)
			for _, y := range dst {
				if math.Float64bits(y) != math.Float64bits(got) {
					t.Fatalf("%s(%v): slice %v, scalar %v", k.name, x, y, got)
				}
			}
		}
	})
}

func BenchmarkTrig(b *testing.B) {
	benchFloat64(b, "sin", math.Sin, Sin)
	benchFloat64(b, "cos", math.Cos, Cos)
}

// benchFloat64 times a float64 kernel over 1024 and 2^14 normal values of
// standard deviation 3: the math package's function in a loop, then the
// kernel at each level this CPU has, with ns per element reported.
func benchFloat64(b *testing.B, name string, ref func(float64) float64, slice func(dst, src []float64)) {
	best := level
	defer func() { level = best }()
	for _, n := range []int{1024, 1 << 14} {
		src := make([]float64, n)
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range src {
			src[i] = rng.NormFloat64() * 3
		}
		dst := make([]float64, n)
		perElem := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
		}
		b.Run(fmt.Sprintf("%s/math/%d", name, n), func(b *testing.B) {
			for b.Loop() {
				for i, x := range src {
					dst[i] = ref(x)
				}
			}
			perElem(b)
		})
		for l := levelGo; l <= best; l++ {
			level = l
			b.Run(fmt.Sprintf("%s/%s/%d", name, levelNames[l], n), func(b *testing.B) {
				for b.Loop() {
					slice(dst, src)
				}
				perElem(b)
			})
		}
		level = best
	}
}
