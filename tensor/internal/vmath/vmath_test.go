package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// ulpDiff is the number of float32 values between a and b (0 when equal, and
// when both are NaN); a NaN against a number is reported as MaxInt64.
func ulpDiff(a, b float32) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	}
	ord := func(f float32) int64 {
		u := int64(math.Float32bits(f))
		if u&(1<<31) != 0 {
			return -(u &^ (1 << 31))
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		return -d
	}
	return d
}

func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// specials are inputs at the edges of the kernels' ranges, and NaNs with
// payloads (quiet, signalling, negative), which must come back bit for bit.
var specials = []float32{
	0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00000), math.Float32frombits(0x7fc12345),
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.Float32frombits(0x007fffff), math.Float32frombits(0x807fffff),
	math.MaxFloat32, -math.MaxFloat32,
	1e-30, -1e-30, 1e-8, -1e-8, 0.34657359, -0.34657359, 0.5, 1, -1, 9, 9.1, 10, 20, -20, 50,
	88.72283, 88.72284, 88.8, -87.33654, -103.27893, -103.97208, -104, -105, 150, -150, 200, -200,
	// trig32: its range's edge, the input closest to a multiple of π/2
	0x1p20, -0x1p20, 0x1.fffffep19, -0x1.fffffep19, 252.89821, -252.89821, 1.5707964, 3.1415927, 1e7,
}

type kernel struct {
	name   string
	scalar func(float32) float32
	slice  func(dst, src []float32)
	ref    func(float64) float64
	ulps   int64 // the most ulp from float32(ref) (exp32.go, doc.go)
}

// GELU has no ref: it is checked against Erf32 and its float32 ops
// (TestGELU32), and its slice kernels against GELU32 with the others.

var kernels = []kernel{
	{"exp", Exp32, Exp, math.Exp, 1},
	{"sigmoid", Sigmoid32, Sigmoid, sigmoid64, 2},
	{"tanh", Tanh32, Tanh, math.Tanh, 3},
	{"erf", Erf32, Erf, math.Erf, 1},
	{"log", Log32, Log32s, math.Log, 1},
	{"sin", Sin32, Sin32s, Sin64, 1},
	{"cos", Cos32, Cos32s, Cos64, 1},
	{"gelu", GELU32, GELU, nil, 0},
}

// sweepStep is the stride through the float32 bit patterns of the
// exhaustive-style tests: every 61st (70 million inputs over the whole
// range, both signs), every 997th with -short or under the race detector,
// and every float32 with AGX_VMATH_EXHAUSTIVE=1 (minutes, not part of make
// test: run it after changing a kernel).
func sweepStep() uint64 {
	if os.Getenv("AGX_VMATH_EXHAUSTIVE") == "1" {
		return 1
	}
	if testing.Short() || raceEnabled {
		return 997
	}
	return 61
}

// withLevels runs f once per instruction set this CPU has, with level set
// to it.
func withLevels(t *testing.T, f func(t *testing.T)) {
	best := level
	defer func() { level = best }()
	for l := levelGo; l <= best; l++ {
		level = l
		t.Run(levelNames[l], f)
	}
}

// TestScalarMatchesMath checks the Go reference kernels against float64
// math, rounded to float32: at most k.ulps apart, the same sign of zero.
func TestScalarMatchesMath(t *testing.T) {
	step := sweepStep()
	for _, k := range kernels {
		if k.ref == nil {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			var worst int64
			var worstX float32
			check := func(x float32) {
				got, want := k.scalar(x), float32(k.ref(float64(x)))
				d := ulpDiff(got, want)
				if d > worst {
					worst, worstX = d, x
				}
				if want == 0 && got == 0 && math.Signbit(float64(got)) != math.Signbit(float64(want)) {
					t.Errorf("%s(%g) = %g, want %g (sign of zero)", k.name, x, got, want)
				}
				if x != x && math.Float32bits(got) != math.Float32bits(x) {
					t.Errorf("%s(%#08x) = %#08x, want the NaN back", k.name, math.Float32bits(x), math.Float32bits(got))
				}
			}
			for _, x := range specials {
				check(x)
			}
			for u := uint64(0); u < 1<<32; u += step {
				check(math.Float32frombits(uint32(u)))
			}
			if worst > k.ulps {
				t.Errorf("%s: %d ulp from float32(math) at x = %g (%#08x)", k.name, worst, worstX, math.Float32bits(worstX))
			}
			t.Logf("%s: at most %d ulp", k.name, worst)
		})
	}
}

// TestSliceMatchesScalar checks that the slice kernels, on every instruction
// set, return exactly the bits of the scalar Go kernels over a sweep of the
// whole float32 range and the specials.
func TestSliceMatchesScalar(t *testing.T) {
	step := sweepStep()
	withLevels(t, func(t *testing.T) {
		for _, k := range kernels {
			t.Run(k.name, func(t *testing.T) {
				src := append([]float32{}, specials...)
				dst := make([]float32, 0, 4096)
				flush := func() {
					dst = dst[:len(src)]
					k.slice(dst, src)
					for i, x := range src {
						if want := k.scalar(x); math.Float32bits(dst[i]) != math.Float32bits(want) {
							t.Fatalf("%s(%g = %#08x) = %g (%#08x), Go kernel gives %g (%#08x)",
								k.name, x, math.Float32bits(x), dst[i], math.Float32bits(dst[i]), want, math.Float32bits(want))
						}
					}
					src = src[:0]
				}
				for u := uint64(0); u < 1<<32; u += step {
					src = append(src, math.Float32frombits(uint32(u)))
					if len(src) == cap(dst) {
						flush()
					}
				}
				flush()
			})
		}
	})
}

// TestSliceLengths checks the slice kernels on every length up to 100 and a
// few larger ones, at unaligned starts, in place and into a separate
// destination, and that nothing past len(src) is written.
func TestSliceLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]float32, 5000)
	for i := range pool {
		switch rng.IntN(8) {
		case 0:
			pool[i] = specials[rng.IntN(len(specials))]
		case 1:
			pool[i] = math.Float32frombits(rng.Uint32())
		default:
			pool[i] = float32(rng.NormFloat64() * 30)
		}
	}
	var lengths []int
	for n := 0; n <= 100; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 255, 256, 257, 1023, 4093)
	const guard = 8
	sentinel := math.Float32frombits(0x7fa5a5a5)
	withLevels(t, func(t *testing.T) {
		for _, k := range kernels {
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/inplace=%v", k.name, inPlace), func(t *testing.T) {
					for _, n := range lengths {
						for off := 0; off < 4; off++ {
							src := pool[off : off+n]
							buf := make([]float32, off+n+guard)
							for i := range buf {
								buf[i] = sentinel
							}
							dst := buf[off : off+n]
							if inPlace {
								copy(dst, src)
								src = dst
							}
							want := make([]float32, n)
							for i, x := range src {
								want[i] = k.scalar(x)
							}
							k.slice(buf[off:], src) // dst longer than src
							for i := range want {
								if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
									t.Fatalf("n=%d off=%d: %s(%g)[%d] = %g, want %g", n, off, k.name, pool[off+i], i, dst[i], want[i])
								}
							}
							for i := off + n; i < len(buf); i++ {
								if math.Float32bits(buf[i]) != math.Float32bits(sentinel) {
									t.Fatalf("n=%d off=%d: %s wrote past the end, at %d", n, off, k.name, i-off)
								}
							}
						}
					}
				})
			}
		}
	})
}

func BenchmarkKernels(b *testing.B) {
	best := level
	defer func() { level = best }()
	for l := levelGo; l <= best; l++ {
		level = l
		for _, k := range kernels {
			for _, n := range []int{1024, 1 << 20} {
				src := make([]float32, n)
				rng := rand.New(rand.NewPCG(3, 4))
				for i := range src {
					src[i] = float32(rng.NormFloat64() * 3)
				}
				dst := make([]float32, n)
				b.Run(fmt.Sprintf("%s/%s/%d", k.name, levelNames[l], n), func(b *testing.B) {
					b.SetBytes(int64(8 * n))
					for b.Loop() {
						k.slice(dst, src)
					}
				})
			}
		}
	}
}

// TestErfDense checks Erf32 against math.Erf on every float32 of the ranges
// where its error matters most: the subnormals and the smallest normals
// (relative accuracy), the first intervals (0.5 to 1.5), the edges of the
// others, and around the clamp at 4, where erf rounds to 1.
func TestErfDense(t *testing.T) {
	ranges := [][2]float32{{0, 2e-38}, {0.5, 1.5}, {1.99, 2.01}, {2.49, 2.51}, {2.99, 3.01}, {3.5, 4.5}}
	if testing.Short() || raceEnabled {
		ranges = [][2]float32{{0, 1e-44}, {0.99, 1.01}, {2.49, 2.51}, {3.9, 4.1}}
	}
	for _, r := range ranges {
		for _, sign := range []float32{1, -1} {
			for x := r[0]; x <= r[1]; x = math.Nextafter32(x, 2*r[1]+1) {
				got, want := Erf32(sign*x), float32(math.Erf(float64(sign*x)))
				if d := ulpDiff(got, want); d > 1 {
					t.Fatalf("Erf32(%g) = %g, math.Erf gives %g: %d ulp", sign*x, got, want, d)
				}
			}
		}
	}
	for _, c := range []struct{ x, want float32 }{
		{0, 0}, {float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1))},
		{float32(math.Inf(1)), 1}, {float32(math.Inf(-1)), -1}, {4, 1}, {-100, -1},
	} {
		if got := Erf32(c.x); math.Float32bits(got) != math.Float32bits(c.want) {
			t.Errorf("Erf32(%g) = %g, want %g", c.x, got, c.want)
		}
	}
}

// FuzzKernels checks, on inputs the fuzzer picks, that every float32 kernel
// is within its ulps of the float64 function and that the slice kernels of
// every instruction set the CPU has give the scalar kernel's bits (17
// copies: whole vectors and a tail at each level).
func FuzzKernels(f *testing.F) {
	for _, x := range specials {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float32) {
		best := level
		defer func() { level = best }()
		for _, k := range kernels {
			got := k.scalar(x)
			if k.ref != nil {
				if d := ulpDiff(got, float32(k.ref(float64(x)))); d > k.ulps {
					t.Fatalf("%s(%g) is %d ulp from the float64 function", k.name, x, d)
				}
			}
			src := []float32{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}
			dst := make([]float32, len(src))
			for l := levelGo; l <= best; l++ {
				level = l
				k.slice(dst, src)
				for _, y := range dst {
					if math.Float32bits(y) != math.Float32bits(got) {
						t.Fatalf("%s %s(%g) = %g, the scalar kernel gives %g", levelNames[l], k.name, x, y, got)
					}
				}
			}
		}
	})
}

// TestGELU32 checks GELU32 against its definition, x·((erf(x·c) + 1)·0.5)
// with Erf32 and every operation in float32, over a sweep of the float32
// range: the bits of tensor's composed GELU.
func TestGELU32(t *testing.T) {
	c := float32(1 / math.Sqrt2)
	for u := uint64(0); u < 1<<32; u += sweepStep() {
		x := math.Float32frombits(uint32(u))
		e := Erf32(x * c)
		sum := e + 1
		half := sum * 0.5
		want := x * half
		if got := GELU32(x); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("GELU32(%g) = %g, want %g", x, got, want)
		}
	}
}
