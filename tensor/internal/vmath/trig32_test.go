package vmath

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTrig32Constants checks that pio2b32 is π/2 - pio2a rounded to
// float64, as trig32.go's reduction assumes.
func TestTrig32Constants(t *testing.T) {
	rest := new(big.Float).SetPrec(300).Sub(halfPi, new(big.Float).SetPrec(300).SetFloat64(pio2a))
	if want, _ := rest.Float64(); pio2b32 != want {
		t.Errorf("pio2b32 = %v, π/2 - pio2a rounds to %v", pio2b32, want)
	}
}

// TestTrig32NearMultiplesOfHalfPi checks Sin32 and Cos32 where the
// reduction loses the most, against refSinCos (300-bit reduction) rounded
// to float32: the float32 values nearest to k·π/2 and their neighbours,
// for every k up to 4096 and for random k up to 2^20·2/π, and in each
// binade from 1 to 2^20 the float32 closest to a multiple of π/2 (found by
// a search over every float32). At most 1 ulp, and the worst is logged.
func TestTrig32NearMultiplesOfHalfPi(t *testing.T) {
	var ks []float64
	for k := 1; k <= 4096; k++ {
		ks = append(ks, float64(k))
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		ks = append(ks, float64(rng.IntN(667544)+1))
	}
	var in []float32
	for _, x := range []float32{1.5707964, 3.1415927, 4.712389, 9.424778, 18.849556, 37.699112, 75.398224,
		252.89821, 505.79642, 1011.59283, 2023.1857, 2238.3848, 4476.7695, 8953.539, 17907.078,
		52516.434, 105032.87, 210065.73, 267058.94, 534117.9} {
		in = append(in, x, -x)
	}
	for _, k := range ks {
		x := float32(k * math.Pi / 2)
		for j := 0; j < 3; j++ {
			in = append(in, x, -x)
			x = math.Nextafter32(x, 0)
		}
	}
	for _, c := range []struct {
		name string
		f    func(float32) float32
		q0   int64
	}{{"sin", Sin32, 0}, {"cos", Cos32, 1}} {
		var worst int64
		var worstX float32
		for _, x := range in {
			want := float32(refSinCos(float64(x), c.q0))
			if d := ulpDiff(c.f(x), want); d > worst {
				worst, worstX = d, x
			}
		}
		if worst > 1 {
			t.Errorf("%s(%v) is %d ulp from the reference", c.name, worstX, worst)
		}
		t.Logf("%s: at most %d ulp over %d inputs near multiples of π/2", c.name, worst, len(in))
	}
}

// TestGeneratorCopiesTrig32AndLog32 checks that gen_kernels.go's copies of
// the constants of trig32.go and log32.go are theirs: a coefficient off by
// an ulp would otherwise show only in the full sweep of
// TestSliceMatchesScalar, not in its -short run.
func TestGeneratorCopiesTrig32AndLog32(t *testing.T) {
	src, err := os.ReadFile("gen_kernels.go")
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]float64{}
	for _, m := range regexp.MustCompile(`\{name: "(\w+)", val: ([-+0-9.eExp]+)\}`).FindAllStringSubmatch(string(src), -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatalf("%s: %v", m[1], err)
		}
		vals[m[1]] = v
	}
	lit := regexp.MustCompile(`(?s)var log32P = \[9\]float32\{(.*?)\}`).FindStringSubmatch(string(src))
	if lit == nil {
		t.Fatal("gen_kernels.go has no log32P")
	}
	for j, f := range strings.FieldsFunc(lit[1], func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("log32P[%d]: %v", j, err)
		}
		vals[fmt.Sprintf("f32logP%d", j)] = v
	}
	want32 := map[string]float32{"f32logTiny": log32Tiny, "f32logScale": log32Scale}
	for j, c := range sin32S {
		want32[fmt.Sprintf("f32s%d", j)] = c
	}
	for j, c := range cos32C {
		want32[fmt.Sprintf("f32c%d", j)] = c
	}
	for j, c := range log32P {
		want32[fmt.Sprintf("f32logP%d", j)] = c
	}
	for name, want := range want32 {
		got, ok := vals[name]
		if !ok {
			t.Errorf("gen_kernels.go has no constant %s", name)
		} else if float32(got) != want {
			t.Errorf("gen_kernels.go: %s = %v, the Go kernel's is %v", name, float32(got), want)
		}
	}
	if vals["pio2b32"] != pio2b32 {
		t.Errorf("gen_kernels.go: pio2b32 = %v, trig32.go's is %v", vals["pio2b32"], pio2b32)
	}
}

// TestTrig32AndLog32Specials pins the special values bit for bit (ulpDiff
// takes any two NaNs as equal), in the Go kernels and in the slice kernels
// of every level.
func TestTrig32AndLog32Specials(t *testing.T) { withLevels(t, checkTrig32AndLog32Specials) }

func checkTrig32AndLog32Specials(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	snan := math.Float32frombits(0x7f800001)
	qnan := math.Float32frombits(0xffc12345)
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		name string
		f    func(float32) float32
		x    float32
		want uint32
	}{
		{"sin", Sin32, 0, 0},
		{"sin", Sin32, negZero, 0x80000000},
		{"sin", Sin32, snan, 0x7f800001},
		{"sin", Sin32, qnan, 0xffc12345},
		{"sin", Sin32, inf, 0x7fc00000},
		{"cos", Cos32, 0, 0x3f800000},
		{"cos", Cos32, negZero, 0x3f800000},
		{"cos", Cos32, snan, 0x7f800001},
		{"cos", Cos32, -inf, 0x7fc00000},
		{"log", Log32, 1, 0},
		{"log", Log32, 0, 0xff800000},
		{"log", Log32, negZero, 0xff800000},
		{"log", Log32, inf, 0x7f800000},
		{"log", Log32, -inf, 0x7fc00000},
		{"log", Log32, -1, 0x7fc00000},
		{"log", Log32, -math.SmallestNonzeroFloat32, 0x7fc00000},
		{"log", Log32, snan, 0x7f800001},
		{"log", Log32, qnan, 0xffc12345},
	} {
		for _, lvl := range []string{"scalar", "slice"} {
			got := c.f(c.x)
			if lvl == "slice" {
				src := []float32{c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x, c.x}
				dst := make([]float32, len(src))
				map[string]func(dst, src []float32){"sin": Sin32s, "cos": Cos32s, "log": Log32s}[c.name](dst, src)
				got = dst[0]
				for _, y := range dst {
					if math.Float32bits(y) != math.Float32bits(got) {
						t.Errorf("%s(%#08x): slice lanes differ", c.name, math.Float32bits(c.x))
					}
				}
			}
			if math.Float32bits(got) != c.want {
				t.Errorf("%s %s(%#08x) = %#08x, want %#08x", lvl, c.name, math.Float32bits(c.x), math.Float32bits(got), c.want)
			}
		}
	}
}
