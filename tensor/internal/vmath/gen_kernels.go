//go:build ignore

// gen_kernels writes kernels_amd64.s: the AVX2 and AVX-512 versions of the
// Go kernels in exp32.go, erf32.go, kernels_go.go, trig.go, trig32.go, tanh64.go,
// erf64.go, exp64.go, log64.go and log32.go, operation for operation, and of
// math.Exp's amd64 routine (mathexp.go). Run it with go generate.
package main

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"os"
	"strings"
)

// constant is a float64 (or, with bits set, a raw 64-bit pattern) that the
// kernels broadcast to every lane.
type constant struct {
	name string
	val  float64
	bits uint64
	raw  bool
}

var constants = []constant{
	{name: "log2e", val: 1.4426950408889634},
	{name: "round", val: 0x1.8p52},
	{name: "one", val: 1},
	{name: "two", val: 2},
	{name: "bias", bits: 1023, raw: true},
	{name: "sign64", bits: 1 << 63, raw: true},
	{name: "abs64", bits: 1<<63 - 1, raw: true},
	{name: "sign32", bits: 1<<63 | 1<<31, raw: true}, // two float32 sign bits
	{name: "twoOverPi", val: 6.36619772367581382433e-01},
	{name: "pio2a", val: 1.57079632673412561417e+00},
	{name: "pio2b", val: 6.07710050630396597660e-11},
	{name: "pio2c", val: 2.02226624871116645580e-21},
	{name: "pio2d", val: 8.47842766036889956997e-32},
	{name: "pio2b32", val: 6.077100506506192e-11},
	{name: "trigMax", val: 1 << 20},
	{name: "half", val: 0.5},
	{name: "sin1", val: -1.66666666666666324348e-01},
	{name: "sin2", val: 8.33333333332248946124e-03},
	{name: "sin3", val: -1.98412698298579493134e-04},
	{name: "sin4", val: 2.75573137070700676789e-06},
	{name: "sin5", val: -2.50507602534068634195e-08},
	{name: "sin6", val: 1.58969099521155010221e-10},
	{name: "cos1", val: 4.16666666666666019037e-02},
	{name: "cos2", val: -1.38888888888741095749e-03},
	{name: "cos3", val: 2.48015872894767294178e-05},
	{name: "cos4", val: -2.75573143513906633035e-07},
	{name: "cos5", val: 2.08757232129817482790e-09},
	{name: "cos6", val: -1.13596475577881948265e-11},
	{name: "ln2hi", val: 6.93147180369123816490e-01},
	{name: "ln2lo", val: 1.90821492927058770002e-10},
	{name: "tanh64Hi", val: 20},
	{name: "exp64Lo", val: -746},
	{name: "mathExpLo", val: -800},
	{name: "expLn2U", val: 0.69314718055966295651160180568695068359375},
	{name: "expLn2L", val: 0.28235290563031577122588448175013436025525412068e-12},
	{name: "sixteenth", val: 0.0625},
	{name: "expSubK", val: -1023},
	{name: "expSubE", val: -1022},
	{name: "log64Tiny", val: 0x1p-1022},
	{name: "log64Scale", val: 0x1p54},
	{name: "c54", val: 54},
	{name: "sqrt2", val: math.Sqrt2},
	{name: "magic", bits: 0x4330000000000000, raw: true},
	{name: "magicBias", val: 0x1p52 + 1023},
	{name: "mantMask", bits: 1<<52 - 1, raw: true},
	{name: "zero", val: 0},
	{name: "negInf", bits: 0xfff0000000000000, raw: true},
	{name: "posInf", bits: 0x7ff0000000000000, raw: true},
	{name: "logNaN", bits: 0x7ff8000000000001, raw: true},
	{name: "exp64Hi", val: 710},
	{name: "erf64Hi", val: 6},
	{name: "erf64Split", val: 1},
	{name: "erf64K", val: 3},
	{name: "erf64Mid", val: 0.5416666666666666},
	{name: "int1", bits: 1, raw: true},
	{name: "int2", bits: 2, raw: true},
}

// expTaylor are math.Exp's Taylor coefficients, as in mathexp.go.
var expTaylor = [8]float64{
	2.4801587301587301587e-5, 1.9841269841269841270e-4, 1.3888888888888888889e-3, 8.3333333333333333333e-3,
	4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5, 1,
}

// logLg are fdlibm's L1 to L7, as in log64.go.
var logLg = [7]float64{
	6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, 2.222219843214978396e-01,
	1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01,
}

// erf64P and erf64G are the float64 erf's coefficients, as in erf64.go.
var erf64P = [13]float64{
	0.1283791670955126,
	-0.3761263890318375,
	0.11283791670954879,
	-0.026866170645076792,
	0.0052239776248180145,
	-0.000854832698083379,
	0.0001205533111164271,
	-1.4925595266831182e-05,
	1.6461000484121368e-06,
	-1.6350312701054695e-07,
	1.4659775274047436e-08,
	-1.1372848856791674e-09,
	5.957176147748911e-11,
}

var erf64G = [18]float64{
	0.38396915323094555,
	0.6590113539360488,
	0.897306144292001,
	0.9390762196983795,
	0.6960870664597261,
	0.27480080326827117,
	-0.06558762056020799,
	-0.14180156486543166,
	-0.02648796495343717,
	0.06020469854751997,
	0.02477934019745727,
	-0.030573347512215285,
	-0.014843248061691426,
	0.01949765939297212,
	0.006980931290046916,
	-0.014182728754183601,
	-0.0016269800589725453,
	0.009277179532659606,
}

func init() {
	f := 1.0
	for n := 1; n <= 13; n++ {
		f *= float64(n)
		if n >= 2 {
			constants = append(constants, constant{name: fmt.Sprintf("em%d", n), val: 1 / f})
		}
	}
	for j, c := range expTaylor {
		constants = append(constants, constant{name: fmt.Sprintf("expT%d", j), val: c})
	}
	for k, c := range logLg {
		constants = append(constants, constant{name: fmt.Sprintf("lg%d", k+1), val: c})
	}
	for k, c := range erf64P {
		constants = append(constants, constant{name: fmt.Sprintf("erf64P%d", k), val: c})
	}
	for k, c := range erf64G {
		constants = append(constants, constant{name: fmt.Sprintf("erf64G%d", k), val: c})
	}
}

// isa describes one instruction set: the register prefix of a whole vector
// (d: 4 or 8 float64 lanes, 8 or 16 float32 lanes) and of its lower half
// (f: the float32 values that widen into d), the bytes of float32 a
// float64-lane step reads, and whether constants sit in registers (AVX-512,
// 32 registers) or are memory operands (AVX2, 16 registers).
type isa struct {
	name  string
	d, f  string
	step  int
	inReg bool
}

var isas = []isa{
	{name: "AVX2", d: "Y", f: "X", step: 16},
	{name: "AVX512", d: "Z", f: "Y", step: 32, inReg: true},
}

type gen struct {
	buf   bytes.Buffer
	isa   isa
	op    string
	regOf map[string]string // constant name -> register, for AVX-512
}

func (g *gen) p(format string, args ...any) { fmt.Fprintf(&g.buf, format+"\n", args...) }

// i emits one instruction.
func (g *gen) i(ins string, args ...string) { g.p("\t%s %s", ins, strings.Join(args, ", ")) }

// c is the operand for constant name.
func (g *gen) c(name string) string {
	if g.isa.inReg {
		r, ok := g.regOf[name]
		if !ok {
			log.Fatalf("constant %s not loaded for %s", name, g.op)
		}
		return r
	}
	return "vmath_" + name + "<>(SB)"
}

func (g *gen) d(n int) string { return fmt.Sprintf("%s%d", g.isa.d, n) }
func (g *gen) f(n int) string { return fmt.Sprintf("%s%d", g.isa.f, n) }

// asm collects the instructions of one step.
type asm []string

// i appends one instruction.
func (a *asm) i(ins string, args ...string) {
	*a = append(*a, fmt.Sprintf("\t%s %s", ins, strings.Join(args, ", ")))
}

// loadWide loads the float32 values at off(SI) into f (under mask K1 when
// masked) and widens them to float64 in d.
func (g *gen) loadWide(a *asm, off int, masked bool, f, d string) {
	src := fmt.Sprintf("%d(SI)", off)
	if masked {
		a.i("VMOVUPS.Z", src, "K1", f)
	} else {
		a.i("VMOVUPS", src, f)
	}
	a.i("VCVTPS2PD", f, d)
}

// storeKeepingNaN puts the NaN lanes of the input f0 back into the float32
// result res (through mask register nan on AVX-512, the register scratch
// on AVX2) and stores res at off(DI), under mask K1 when masked.
func (g *gen) storeKeepingNaN(a *asm, off int, masked bool, f0, res, scratch, nan string) {
	dst := fmt.Sprintf("%d(DI)", off)
	// NaN inputs come back unchanged
	if g.isa.inReg {
		a.i("VCMPPS", "$3", f0, f0, nan)
		a.i("VMOVAPS", f0, nan, res)
	} else {
		a.i("VCMPPS", "$3", f0, f0, scratch)
		a.i("VBLENDVPS", scratch, f0, res, res)
	}
	if masked {
		a.i("VMOVUPS", res, "K1", dst)
	} else {
		a.i("VMOVUPS", res, dst)
	}
}

// emit writes instructions, alternating between the lists: independent
// steps interleaved so that their dependency chains overlap.
func (g *gen) emit(steps ...[]string) {
	for k := 0; k < len(steps[0]); k++ {
		for _, s := range steps {
			g.p("%s", s[k])
		}
	}
}

// withConst appends ins with the constant name as its memory operand
// (broadcast on AVX-512), then args.
func (g *gen) withConst(a *asm, ins, name string, args ...string) {
	if g.isa.inReg {
		ins += ".BCST"
	}
	a.i(ins, append([]string{"vmath_" + name + "<>(SB)"}, args...)...)
}

// f64asm collects the instructions of one float64 step (asm): its
// registers are numbered from base, and a constant operand is broadcast from
// memory on AVX-512 and read whole (a 4-lane copy) on AVX2.
type f64asm struct {
	asm
	g    *gen
	base int
}

// m appends an instruction whose first operand is the constant vmath_name.
func (a *f64asm) m(ins, name string, args ...string) {
	if a.g.isa.inReg {
		ins += ".BCST"
	}
	a.i(ins, append([]string{"vmath_" + name + "<>(SB)"}, args...)...)
}

// d names the step's k-th register.
func (a *f64asm) d(k int) string { return a.g.d(a.base + k) }

// bitOps returns the ISA's bitwise and, or and xor on float64 lanes.
func (a *f64asm) bitOps() (and, or, xor string) {
	if a.g.isa.inReg {
		return "VPANDQ", "VPORQ", "VPXORQ"
	}
	return "VANDPD", "VORPD", "VXORPD"
}

// load reads the step's lanes at off(SI) into d(0); masked: the tail's
// lanes under K1, the others zero.
func (a *f64asm) load(off int, masked bool) {
	src := fmt.Sprintf("%d(SI)", off)
	if masked {
		a.i("VMOVUPD.Z", src, "K1", a.d(0))
	} else {
		a.i("VMOVUPD", src, a.d(0))
	}
}

// store writes register r to the step's lanes at off(DI), under K1 when
// masked.
func (a *f64asm) store(off int, masked bool, r string) {
	dst := fmt.Sprintf("%d(DI)", off)
	if masked {
		a.i("VMOVUPD", r, "K1", dst)
	} else {
		a.i("VMOVUPD", r, dst)
	}
}

// trigBody returns the instructions of one float64 sin/cos step (sinCos in
// trig.go) on the ten registers from base on: b+0 x, b+1 t (then the
// quadrant), b+2 k, b+3 r, b+4 z = r², b+5 the sine, b+6 the cosine, b+7
// to b+9 scratch. On AVX-512, Z31 holds 1.0 and Z30 q0 (0 for sin, 1 for
// cos); K register swap takes the lanes whose quadrant is odd, K register
// out the lanes out of range (which store x itself, for the caller to
// replace), and K6 gathers those over the loop. On AVX2 the same roles are
// Y15 (1.0), Y14 (q0), Y13 (the gathered lanes, all ones where out of
// range), Y12 (0.0), and swap and out are YMM registers that hold lane
// masks in their sign bits.
func (g *gen) trigBody(off int, masked bool, base int, swap, out string) []string {
	a := &f64asm{g: g, base: base}
	a.load(off, masked)
	g.trigReduce(a, out)
	g.trigPolynomials(a)
	g.trigSelect(a, swap, out)
	a.store(off, masked, a.d(5))
	return a.asm
}

// trigReduce marks in out (and the accumulator of such lanes) the lanes
// with !(|x| < trigMax), NaN included, and reduces x: k = round(x·2/π) in
// d(1) (as t = x·2/π + round, whose low bits are k) and d(2), r = x - k·π/2
// in four parts in d(3), z = r² in d(4).
func (g *gen) trigReduce(a *f64asm, out string) {
	i, m, d := a.i, a.m, a.d
	and, _, _ := a.bitOps()
	// predicate 5: not less than, unordered
	m(and, "abs64", d(0), d(7))
	if g.isa.inReg {
		i("VCMPPD.BCST", "$5", "vmath_trigMax<>(SB)", d(7), out)
		i("KORW", out, "K6", "K6")
	} else {
		i("VCMPPD", "$5", "vmath_trigMax<>(SB)", d(7), out)
		i("VORPD", out, "Y13", "Y13")
	}
	m("VMULPD", "twoOverPi", d(0), d(1))
	m("VADDPD", "round", d(1), d(1))
	m("VSUBPD", "round", d(1), d(2))
	m("VMULPD", "pio2a", d(2), d(7))
	i("VSUBPD", d(7), d(0), d(3))
	m("VMULPD", "pio2b", d(2), d(7))
	i("VSUBPD", d(7), d(3), d(3))
	m("VMULPD", "pio2c", d(2), d(7))
	i("VSUBPD", d(7), d(3), d(3))
	m("VMULPD", "pio2d", d(2), d(7))
	i("VSUBPD", d(7), d(3), d(3))
	i("VMULPD", d(3), d(3), d(4))
}

// trigPolynomials evaluates sin r into d(5) and cos r into d(6), the two
// polynomials in Horner's form side by side.
func (g *gen) trigPolynomials(a *f64asm) {
	i, m, d := a.i, a.m, a.d
	one := "Z31"
	if !g.isa.inReg {
		one = "Y15"
	}
	m("VMULPD", "sin6", d(4), d(5))
	m("VMULPD", "cos6", d(4), d(6))
	for k := 5; k >= 1; k-- {
		m("VADDPD", fmt.Sprintf("sin%d", k), d(5), d(5))
		m("VADDPD", fmt.Sprintf("cos%d", k), d(6), d(6))
		if k > 1 {
			i("VMULPD", d(4), d(5), d(5))
			i("VMULPD", d(4), d(6), d(6))
		}
	}
	// s = r + (r·z)·S
	i("VMULPD", d(4), d(3), d(7))
	i("VMULPD", d(7), d(5), d(5))
	i("VADDPD", d(5), d(3), d(5))
	// c = w + (((1 - w) - hz) + z²·C), hz = z/2, w = 1 - hz
	i("VMULPD", d(4), d(4), d(7))
	i("VMULPD", d(7), d(6), d(6))
	m("VMULPD", "half", d(4), d(7))
	i("VSUBPD", d(7), one, d(8))
	i("VSUBPD", d(8), one, d(9))
	i("VSUBPD", d(7), d(9), d(9))
	i("VADDPD", d(6), d(9), d(9))
	i("VADDPD", d(9), d(8), d(6))
}

// trigSelect leaves the result in d(5): the quadrant q = k + q0 picks the
// cosine when odd and flips the sign when q&2; a zero result (sin ±0) takes
// x's sign; out-of-range lanes keep x, for the caller to replace.
func (g *gen) trigSelect(a *f64asm, swap, out string) {
	i, m, d := a.i, a.m, a.d
	and, _, xor := a.bitOps()
	avx512 := g.isa.inReg
	q0 := "Z30"
	if !avx512 {
		q0 = "Y14"
	}
	i("VPADDQ", q0, d(1), d(1))
	if avx512 {
		m("VPTESTMQ", "int1", d(1), swap)
		i("VMOVAPD", d(6), swap, d(5))
	} else {
		i("VPSLLQ", "$63", d(1), swap)
		i("VBLENDVPD", swap, d(6), d(5), d(5))
	}
	m(and, "int2", d(1), d(1))
	i("VPSLLQ", "$62", d(1), d(1))
	i(xor, d(1), d(5), d(5))
	if avx512 {
		m("VPTESTNMQ", "abs64", d(5), swap)
		i("VMOVAPD", d(0), swap, d(5))
		i("VMOVAPD", d(0), out, d(5))
	} else {
		i("VCMPPD", "$0", "Y12", d(5), swap)
		i("VBLENDVPD", swap, d(0), d(5), d(5))
		i("VBLENDVPD", out, d(0), d(5), d(5))
	}
}

// tanh64Body returns the instructions of one float64 tanh step (Tanh64 in
// tanh64.go) on the eight registers from base on: b+0 x, b+1 v, b+2 t then
// 2^k, b+3 k, b+4 r, b+5 Q, b+6 and b+7 scratch; on AVX-512 K register nan
// takes the NaN lanes, on AVX2 register b+6 does (in its sign bits).
func (g *gen) tanh64Body(off int, masked bool, base int, nan string) []string {
	a := &f64asm{g: g, base: base}
	i, m, d := a.i, a.m, a.d
	and, _, _ := a.bitOps()
	a.load(off, masked)
	m(and, "abs64", d(0), d(1))
	m("VMINPD", "tanh64Hi", d(1), d(1))
	i("VADDPD", d(1), d(1), d(1))
	expParts(a, 1, 2, 3, 6, 4, 5)
	i("VMULPD", d(2), d(5), d(5))
	m("VSUBPD", "one", d(2), d(2))
	i("VADDPD", d(2), d(5), d(5)) // em1
	m("VADDPD", "two", d(5), d(6))
	i("VDIVPD", d(6), d(5), d(5))
	signAndNaN(a, 5, 6, nan)
	a.store(off, masked, d(5))
	return a.asm
}

// exp64Body returns the instructions of one float64 e^x step (Exp64 in
// exp64.go) on the eight registers from base on: b+0 x, b+1 v, b+2 t, b+3
// k then k2 then 2^k2, b+4 r, b+5 e^r - 1 then the result, b+6 k1 then
// 2^k1, b+7 scratch; on AVX-512 K register nan takes the NaN lanes.
func (g *gen) exp64Body(off int, masked bool, base int, nan string) []string {
	a := &f64asm{g: g, base: base}
	i, m, d := a.i, a.m, a.d
	a.load(off, masked)
	m("VMAXPD", "exp64Lo", d(0), d(1))
	m("VMINPD", "exp64Hi", d(1), d(1))
	expParts(a, 1, 2, 3, 6, 4, 5)
	m("VMULPD", "half", d(3), d(6))
	if g.isa.inReg {
		i("VRNDSCALEPD", "$1", d(6), d(6))
	} else {
		i("VROUNDPD", "$1", d(6), d(6))
	}
	i("VSUBPD", d(6), d(3), d(3))
	for _, r := range []string{d(6), d(3)} {
		m("VADDPD", "round", r, r)
		m("VPADDQ", "bias", r, r)
		i("VPSLLQ", "$52", r, r)
	}
	m("VADDPD", "one", d(5), d(5))
	i("VMULPD", d(6), d(5), d(5))
	i("VMULPD", d(3), d(5), d(5))
	nanBack(a, 5, 7, nan)
	a.store(off, masked, d(5))
	return a.asm
}

// mathExpBody returns the instructions of one float64 e^x step of
// math.Exp's amd64 routine (see mathexp.go) on the eight registers from
// base on: b+0 x, b+1 v, b+2 t, b+3 k then k1 then 2^k1, b+4 r, b+5 the
// Taylor sum then y then the result, b+6 y + 2 then scratch, b+7 e2 then
// 2^e2; on AVX-512 K register nan takes the lanes with k ≤ expSubK, then
// the NaN lanes.
func (g *gen) mathExpBody(off int, masked bool, base int, nan string) []string {
	a := &f64asm{g: g, base: base}
	i, m, d := a.i, a.m, a.d
	avx512 := g.isa.inReg
	and, _, xor := a.bitOps()
	a.load(off, masked)
	m("VMAXPD", "mathExpLo", d(0), d(1))
	m("VMINPD", "exp64Hi", d(1), d(1))
	m("VMULPD", "log2e", d(1), d(2))
	m("VADDPD", "round", d(2), d(2))
	m("VSUBPD", "round", d(2), d(3))
	i("VMOVAPD", d(1), d(4))
	m("VFNMADD231PD", "expLn2U", d(3), d(4))
	m("VFNMADD231PD", "expLn2L", d(3), d(4))
	m("VMULPD", "sixteenth", d(4), d(4))
	if avx512 {
		i("VBROADCASTSD", "vmath_expT0<>(SB)", d(5))
	} else {
		i("VMOVUPD", "vmath_expT0<>(SB)", d(5))
	}
	for j := 1; j < 8; j++ {
		m("VFMADD213PD", fmt.Sprintf("expT%d", j), d(4), d(5))
	}
	i("VMULPD", d(4), d(5), d(5))
	for j := 0; j < 3; j++ {
		m("VADDPD", "two", d(5), d(6))
		i("VMULPD", d(6), d(5), d(5))
	}
	m("VADDPD", "two", d(5), d(6))
	m("VFMADD213PD", "one", d(6), d(5))
	// e2 = expSubE where k ≤ expSubK, else 0; k1 = k - e2.
	if avx512 {
		i("VCMPPD.BCST", "$2", "vmath_expSubK<>(SB)", d(3), nan)
		i(xor, d(7), d(7), d(7))
		i("VBROADCASTSD", "vmath_expSubE<>(SB)", d(6))
		i("VMOVAPD", d(6), nan, d(7))
	} else {
		i("VCMPPD", "$2", "vmath_expSubK<>(SB)", d(3), d(7))
		m(and, "expSubE", d(7), d(7))
	}
	i("VSUBPD", d(7), d(3), d(3))
	for _, r := range []string{d(3), d(7)} {
		m("VADDPD", "round", r, r)
		m("VPADDQ", "bias", r, r)
		i("VPSLLQ", "$52", r, r)
	}
	i("VMULPD", d(3), d(5), d(5))
	i("VMULPD", d(7), d(5), d(5))
	nanBack(a, 5, 7, nan)
	a.store(off, masked, d(5))
	return a.asm
}

// log64Body returns the instructions of one float64 log step (Log64 in
// log64.go) on the ten registers from base on: b+0 x, b+1 a constant, b+2
// x scaled, b+3 k, b+4 m then f, b+5 s, b+6 s² then scratch, b+7 s⁴, b+8
// t1 then the result, b+9 t2 then f²/2. The three K registers of ks (on
// AVX2, registers b+10 to b+12, masks in their sign bits) take the lanes
// of subnormal x, of m ≥ √2, and of each special case in turn.
func (g *gen) log64Body(off int, masked bool, base int, ks [3]string) []string {
	a := &f64asm{g: g, base: base}
	a.load(off, masked)
	g.logCore(a, ks)
	a.store(off, masked, a.d(8))
	return a.asm
}

// logCore computes log x into register b+8 from x in b+0 (see log64Body).
func (g *gen) logCore(a *f64asm, ks [3]string) {
	i, m, d := a.i, a.m, a.d
	avx512 := g.isa.inReg
	and, or, _ := a.bitOps()
	ksub, khalf, kspec := ks[0], ks[1], ks[2]
	if !avx512 {
		ksub, khalf, kspec = d(10), d(11), d(12)
	}
	// cmp sets mask k to the lanes where pred(r, constant name) holds.
	cmp := func(pred int, name, r, k string) {
		if avx512 {
			i("VCMPPD.BCST", fmt.Sprintf("$%d", pred), "vmath_"+name+"<>(SB)", r, k)
		} else {
			i("VCMPPD", fmt.Sprintf("$%d", pred), "vmath_"+name+"<>(SB)", r, k)
		}
	}
	// under sets r to op(r, constant name) in the lanes of mask k, with
	// register tmp as scratch on AVX2.
	under := func(op, name, r, k, tmp string) {
		if avx512 {
			i(op+".BCST", "vmath_"+name+"<>(SB)", r, k, r)
		} else {
			m(op, name, r, tmp)
			i("VBLENDVPD", k, tmp, r, r)
		}
	}
	// set sets r to constant name in the lanes of mask k.
	set := func(name, r, k string) {
		if avx512 {
			i("VBROADCASTSD", "vmath_"+name+"<>(SB)", d(1))
			i("VMOVAPD", d(1), k, r)
		} else {
			i("VBLENDVPD", k, "vmath_"+name+"<>(SB)", r, r)
		}
	}
	i("VMOVAPD", d(0), d(2))
	cmp(1, "log64Tiny", d(0), ksub)
	under("VMULPD", "log64Scale", d(2), ksub, d(6))
	i("VPSRLQ", "$52", d(2), d(3))
	m(or, "magic", d(3), d(3))
	m("VSUBPD", "magicBias", d(3), d(3))
	m(and, "mantMask", d(2), d(4))
	m(or, "one", d(4), d(4))
	cmp(13, "sqrt2", d(4), khalf)
	under("VMULPD", "half", d(4), khalf, d(6))
	under("VADDPD", "one", d(3), khalf, d(6))
	under("VSUBPD", "c54", d(3), ksub, d(6))
	m("VSUBPD", "one", d(4), d(4))
	m("VADDPD", "two", d(4), d(5))
	i("VDIVPD", d(5), d(4), d(5))
	i("VMULPD", d(5), d(5), d(6))
	i("VMULPD", d(6), d(6), d(7))
	m("VMULPD", "lg7", d(7), d(8))
	m("VMULPD", "lg6", d(7), d(9))
	m("VADDPD", "lg5", d(8), d(8))
	m("VADDPD", "lg4", d(9), d(9))
	i("VMULPD", d(7), d(8), d(8))
	i("VMULPD", d(7), d(9), d(9))
	m("VADDPD", "lg3", d(8), d(8))
	m("VADDPD", "lg2", d(9), d(9))
	i("VMULPD", d(7), d(8), d(8))
	i("VMULPD", d(7), d(9), d(9))
	m("VADDPD", "lg1", d(8), d(8))
	i("VMULPD", d(6), d(8), d(8)) // t1
	i("VADDPD", d(9), d(8), d(8)) // R = t1 + t2
	m("VMULPD", "half", d(4), d(9))
	i("VMULPD", d(4), d(9), d(9)) // f²/2
	i("VADDPD", d(8), d(9), d(8))
	i("VMULPD", d(5), d(8), d(8))
	m("VMULPD", "ln2lo", d(3), d(6))
	i("VADDPD", d(6), d(8), d(8))
	i("VSUBPD", d(8), d(9), d(8))
	i("VSUBPD", d(4), d(8), d(8))
	m("VMULPD", "ln2hi", d(3), d(6))
	i("VSUBPD", d(8), d(6), d(8))
	// The special lanes: x itself for NaN and +Inf, -Inf for ±0, NaN below.
	cmp(3, "zero", d(0), kspec) // unordered: x is NaN
	if avx512 {
		i("VMOVAPD", d(0), kspec, d(8))
	} else {
		i("VBLENDVPD", kspec, d(0), d(8), d(8))
	}
	cmp(0, "posInf", d(0), kspec)
	if avx512 {
		i("VMOVAPD", d(0), kspec, d(8))
	} else {
		i("VBLENDVPD", kspec, d(0), d(8), d(8))
	}
	cmp(0, "zero", d(0), kspec)
	set("negInf", d(8), kspec)
	cmp(1, "zero", d(0), kspec)
	set("logNaN", d(8), kspec)
}

// log64Function writes log64AVX512, two steps at a time (registers 0-9
// and 12-21), then one, then a masked tail; or log64AVX2, one step at a
// time (registers 0-12), for a multiple of 4 lanes.
func (g *gen) log64Function(is isa) {
	g.float64Function(is, "log64", "log", [2]int{12, 0}, func(off int, masked bool, base, k int) []string {
		return g.log64Body(off, masked, base, [][3]string{{"K2", "K3", "K4"}, {"K5", "K6", "K7"}}[k])
	})
}

// exp64Function writes exp64AVX512, two steps at a time (registers 0-7 and
// 10-17), then one, then a masked tail; or exp64AVX2, two steps at a time
// (registers 0-7 and 8-15), then one, for a multiple of 4 lanes.
func (g *gen) exp64Function(is isa) {
	g.float64Function(is, "exp64", "e^", [2]int{10, 8}, func(off int, masked bool, base, k int) []string {
		return g.exp64Body(off, masked, base, []string{"K2", "K3"}[k])
	})
}

// mathExpFunction writes mathExpAVX512, two steps at a time (registers 0-7
// and 10-17), then one, then a masked tail; or mathExpAVX2, two steps at a
// time (registers 0-7 and 8-15), then one, for a multiple of 4 lanes. Both
// use fused multiply-adds, as math.Exp's routine does.
func (g *gen) mathExpFunction(is isa) {
	g.float64Function(is, "mathExp", "e^", [2]int{10, 8}, func(off int, masked bool, base, k int) []string {
		return g.mathExpBody(off, masked, base, []string{"K2", "K3"}[k])
	})
}

// erf64Body returns the instructions of one float64 erf step (Erf64 in
// erf64.go), both branches, on the twelve registers from base on: b+0 x,
// b+1 a; the small branch in b+2 (a²) and b+3; the large branch's t·G in
// b+4 (t), b+5 (u) and b+6; e^(-a²) in b+8 (w, then r, then 1 - the
// product), b+9 (t then 2^k), b+10 (k, then the polynomial), b+7 scratch.
// The three chains are independent; they are emitted interleaved, so that
// each fills the others' latency. On AVX-512 K registers nan and small take
// the NaN lanes and those with a < 1; on AVX2 register b+7 does, in its
// sign bits.
func (g *gen) erf64Body(off int, masked bool, base int, nan, small string) []string {
	a := &f64asm{g: g, base: base}
	and, _, _ := a.bitOps()
	a.load(off, masked)
	a.m(and, "abs64", a.d(0), a.d(1))
	a.m("VMINPD", "erf64Hi", a.d(1), a.d(1))
	cs, cg, ce := &f64asm{g: g, base: base}, &f64asm{g: g, base: base}, &f64asm{g: g, base: base}
	g.erf64Small(cs)
	g.erf64Large(cg)
	g.expNegSquare(ce)
	// the chains, round robin (d(7) is the exp chain's scratch)
	for k := 0; k < max(len(cs.asm), len(cg.asm), len(ce.asm)); k++ {
		for _, c := range [][]string{ce.asm, cg.asm, cs.asm} {
			if k < len(c) {
				a.asm = append(a.asm, c[k])
			}
		}
	}
	g.erf64Select(a, nan, small)
	a.store(off, masked, a.d(8))
	return a.asm
}

// erf64Small computes the small branch a + a·P(a²) into d(3), a = d(1).
func (g *gen) erf64Small(a *f64asm) {
	i, m, d := a.i, a.m, a.d
	i("VMULPD", d(1), d(1), d(2))
	m("VMULPD", "erf64P12", d(2), d(3))
	m("VADDPD", "erf64P11", d(3), d(3))
	for j := 10; j >= 0; j-- {
		i("VMULPD", d(2), d(3), d(3))
		m("VADDPD", fmt.Sprintf("erf64P%d", j), d(3), d(3))
	}
	i("VMULPD", d(1), d(3), d(3))
	i("VADDPD", d(3), d(1), d(3))
}

// erf64Large computes the large branch's t·G(t - mid), t = 3/(3 + a), into
// d(6), a = d(1).
func (g *gen) erf64Large(a *f64asm) {
	i, m, d := a.i, a.m, a.d
	m("VADDPD", "erf64K", d(1), d(6))
	if g.isa.inReg {
		i("VBROADCASTSD", "vmath_erf64K<>(SB)", d(4))
	} else {
		i("VMOVUPD", "vmath_erf64K<>(SB)", d(4))
	}
	i("VDIVPD", d(6), d(4), d(4))
	m("VSUBPD", "erf64Mid", d(4), d(5))
	m("VMULPD", "erf64G17", d(5), d(6))
	m("VADDPD", "erf64G16", d(6), d(6))
	for j := 15; j >= 0; j-- {
		i("VMULPD", d(5), d(6), d(6))
		m("VADDPD", fmt.Sprintf("erf64G%d", j), d(6), d(6))
	}
	i("VMULPD", d(6), d(4), d(6))
}

// expNegSquare computes e^w, w = -a², into d(10), a = d(1), as
// tanh64Body computes its exponential; d(7) is its scratch.
func (g *gen) expNegSquare(a *f64asm) {
	i, m, d := a.i, a.m, a.d
	_, _, xor := a.bitOps()
	i("VMULPD", d(1), d(1), d(8))
	m(xor, "sign64", d(8), d(8))
	expParts(a, 8, 9, 10, 7, 8, 10)
	i("VMULPD", d(9), d(10), d(10))
	i("VADDPD", d(9), d(10), d(10)) // e^w
}

// expParts splits e^w, w in register d(w), into s = 2^k, left in d(t),
// and e^r - 1, left in d(p), so that e^w = s·(e^r - 1) + s: k =
// round(w·log2 e) (t = w·log2 e + round, whose low bits are k, and k in
// d(k)), r = w - k·ln2 in two parts, in d(r), and e^r - 1 = r + r²·Q(r) to
// degree 13. d(tmp) is scratch; r may be w, p may be k.
func expParts(a *f64asm, w, t, k, tmp, r, p int) {
	i, m, d := a.i, a.m, a.d
	m("VMULPD", "log2e", d(w), d(t))
	m("VADDPD", "round", d(t), d(t))
	m("VSUBPD", "round", d(t), d(k))
	m("VMULPD", "ln2hi", d(k), d(tmp))
	i("VSUBPD", d(tmp), d(w), d(r))
	m("VMULPD", "ln2lo", d(k), d(tmp))
	i("VSUBPD", d(tmp), d(r), d(r))
	m("VMULPD", "em13", d(r), d(p))
	m("VADDPD", "em12", d(p), d(p))
	for n := 11; n >= 2; n-- {
		i("VMULPD", d(r), d(p), d(p))
		m("VADDPD", fmt.Sprintf("em%d", n), d(p), d(p))
	}
	i("VMULPD", d(r), d(r), d(tmp))
	i("VMULPD", d(tmp), d(p), d(p))
	i("VADDPD", d(p), d(r), d(p))
	m("VPADDQ", "bias", d(t), d(t))
	i("VPSLLQ", "$52", d(t), d(t))
}

// signAndNaN gives the result in d(res) the sign of x (d(0)) and puts a
// NaN x back unchanged; d(7) and, on AVX2, d(tmp) are scratch, nan is
// AVX-512's mask register for it.
func signAndNaN(a *f64asm, res, tmp int, nan string) {
	i, m, d := a.i, a.m, a.d
	and, or, _ := a.bitOps()
	m(and, "sign64", d(0), d(7))
	i(or, d(7), d(res), d(res))
	nanBack(a, res, tmp, nan)
}

// nanBack puts x (d(0)) back in the lanes of d(res) where it is NaN: with
// AVX-512's mask register nan, or on AVX2 with d(tmp) as the lane mask.
func nanBack(a *f64asm, res, tmp int, nan string) {
	i, d := a.i, a.d
	if a.g.isa.inReg {
		i("VCMPPD", "$3", d(0), d(0), nan)
		i("VMOVAPD", d(0), nan, d(res))
	} else {
		i("VCMPPD", "$3", d(0), d(0), d(tmp))
		i("VBLENDVPD", d(tmp), d(0), d(res), d(res))
	}
}

// erf64Select leaves erf x in d(8): 1 - e^w·t·G for the large branch, the
// small branch where a < 1, x's sign, and NaN back unchanged.
func (g *gen) erf64Select(a *f64asm, nan, small string) {
	i, d := a.i, a.d
	avx512 := g.isa.inReg
	i("VMULPD", d(6), d(10), d(10))
	if avx512 {
		i("VBROADCASTSD", "vmath_one<>(SB)", d(8))
	} else {
		i("VMOVUPD", "vmath_one<>(SB)", d(8))
	}
	i("VSUBPD", d(10), d(8), d(8))
	if avx512 {
		i("VCMPPD.BCST", "$1", "vmath_erf64Split<>(SB)", d(1), small)
		i("VMOVAPD", d(3), small, d(8))
	} else {
		i("VCMPPD", "$1", "vmath_erf64Split<>(SB)", d(1), d(7))
		i("VBLENDVPD", d(7), d(3), d(8), d(8))
	}
	signAndNaN(a, 8, 7, nan)
}

// erf64Function writes erf64AVX512, two steps at a time (registers 0-11
// and 12-23), then one, then a masked tail; or erf64AVX2, one step at a time
// (registers 0-11), for a multiple of 4 lanes.
func (g *gen) erf64Function(is isa) {
	g.float64Function(is, "erf64", "erf", [2]int{12, 0}, func(off int, masked bool, base, k int) []string {
		return g.erf64Body(off, masked, base, []string{"K2", "K3"}[k], []string{"K4", "K5"}[k])
	})
}

// float64Loop writes the loop of a float64 kernel over n lanes of is: two
// steps at a time (the second on the registers from base2 on, when base2 >
// 0), then one, then on AVX-512 a masked tail; an AVX2 kernel takes a
// multiple of 4 and leaves the rest to Go. step(off, masked, base, k) is one
// step's code; k picks its mask registers (0 for the first step, 1 for the
// second).
func (g *gen) float64Loop(name string, base2 int, step func(off int, masked bool, base, k int) []string) {
	lanes := g.isa.step / 4
	g.loop(name, lanes, 8*lanes, base2, step)
}

// loop is float64Loop for any lane width: a step covers lanes elements,
// bytes bytes.
func (g *gen) loop(name string, lanes, bytes, base2 int, step func(off int, masked bool, base, k int) []string) {
	l := func(s string) string { return name + "_" + s }
	if base2 > 0 {
		g.p("%s:", l("loop2"))
		g.i("CMPQ", "CX", fmt.Sprintf("$%d", 2*lanes))
		g.i("JLT", l("one"))
		g.emit(step(0, false, 0, 0), step(bytes, false, base2, 1))
		g.i("ADDQ", fmt.Sprintf("$%d", 2*bytes), "SI")
		g.i("ADDQ", fmt.Sprintf("$%d", 2*bytes), "DI")
		g.i("SUBQ", fmt.Sprintf("$%d", 2*lanes), "CX")
		g.i("JMP", l("loop2"))
	}
	g.p("%s:", l("one"))
	g.i("CMPQ", "CX", fmt.Sprintf("$%d", lanes))
	g.i("JLT", l("tail"))
	g.emit(step(0, false, 0, 0))
	g.i("ADDQ", fmt.Sprintf("$%d", bytes), "SI")
	g.i("ADDQ", fmt.Sprintf("$%d", bytes), "DI")
	g.i("SUBQ", fmt.Sprintf("$%d", lanes), "CX")
	if base2 == 0 {
		g.i("JMP", l("one"))
	}
	g.p("%s:", l("tail"))
	if g.isa.inReg {
		g.i("TESTQ", "CX", "CX")
		g.i("JZ", l("done"))
		g.i("MOVQ", "$1", "AX")
		g.i("SHLQ", "CX", "AX")
		g.i("DECQ", "AX")
		g.i("KMOVW", "AX", "K1")
		g.emit(step(0, true, 0, 0))
	}
	g.p("%s:", l("done"))
}

// tanh64Function writes tanh64AVX512, two steps at a time (registers 0-7
// and 10-17), then one, then a masked tail; or tanh64AVX2, two steps at a
// time (registers 0-7 and 8-15), then one, for a multiple of 4 lanes.
func (g *gen) tanh64Function(is isa) {
	g.float64Function(is, "tanh64", "tanh", [2]int{10, 8}, func(off int, masked bool, base, k int) []string {
		return g.tanh64Body(off, masked, base, []string{"K2", "K3"}[k])
	})
}

// float64Function writes the kernel op+is.name, dst[i] = what x, for the
// float64 functions of one argument: float64Loop over step, whose second
// step starts at register base2[0] on AVX-512 and base2[1] on AVX2.
func (g *gen) float64Function(is isa, op, what string, base2 [2]int, step func(off int, masked bool, base, k int) []string) {
	g.isa, g.op = is, op
	name := op + is.name
	g.p("")
	if is.inReg {
		g.p("// func %s(dst, src *float64, n int) sets dst[i] = %s x for i < n.", name, what)
	} else {
		g.p("// func %s(dst, src *float64, n int) sets dst[i] = %s x for i < n; n is a multiple of 4.", name, what)
	}
	g.p("TEXT ·%s(SB), NOSPLIT, $0-24", name)
	g.i("MOVQ", "dst+0(FP)", "DI")
	g.i("MOVQ", "src+8(FP)", "SI")
	g.i("MOVQ", "n+16(FP)", "CX")
	b := base2[1]
	if is.inReg {
		b = base2[0]
	}
	g.float64Loop(name, b, step)
	g.i("VZEROUPPER")
	g.i("RET")
}

// trigPrologue writes the header of the sin/cos kernel name over elements
// of type elem, with q0 of type q0Type and inputs out of range from limit
// on (an AVX2 kernel takes a multiple of multiple), and loads its
// arguments into DI, SI and CX.
func (g *gen) trigPrologue(name, elem, q0Type, limit string, multiple int) {
	g.p("")
	g.p("// func %s(dst, src *%s, n int, q0 %s) bool sets dst[i] = sin x", name, elem, q0Type)
	g.p("// (q0 = 0) or cos x (q0 = 1) for i < n; it reports whether some |x| was")
	if g.isa.inReg {
		g.p("// not below %s (or NaN), and stores those x unchanged.", limit)
	} else {
		g.p("// not below %s (or NaN), and stores those x unchanged. n is a", limit)
		g.p("// multiple of %d.", multiple)
	}
	g.p("TEXT ·%s(SB), NOSPLIT, $0-33", name)
	g.i("MOVQ", "dst+0(FP)", "DI")
	g.i("MOVQ", "src+8(FP)", "SI")
	g.i("MOVQ", "n+16(FP)", "CX")
}

// trigFunction writes sinCosAVX512, two steps at a time (registers 0-9 and
// 10-19), then one, then a masked tail, as function does; or sinCosAVX2,
// one step at a time (registers 0-11, the constants in 12-15), for a
// multiple of 4 lanes.
func (g *gen) trigFunction(is isa) {
	g.isa, g.op = is, "sincos"
	name := "sinCos" + is.name
	g.trigPrologue(name, "float64", "uint64", "trigMax", 4)
	if is.inReg {
		g.i("VPBROADCASTQ", "q0+24(FP)", "Z30")
		g.i("VBROADCASTSD", "vmath_one<>(SB)", "Z31")
		g.i("KXORW", "K6", "K6", "K6")
		g.float64Loop(name, 10, func(off int, masked bool, base, k int) []string {
			return g.trigBody(off, masked, base, []string{"K2", "K3"}[k], []string{"K4", "K5"}[k])
		})
		g.i("KMOVW", "K6", "AX")
		g.i("TESTW", "AX", "AX")
	} else {
		g.i("VPBROADCASTQ", "q0+24(FP)", "Y14")
		g.i("VMOVUPD", "vmath_one<>(SB)", "Y15")
		g.i("VXORPD", "Y13", "Y13", "Y13")
		g.i("VXORPD", "Y12", "Y12", "Y12")
		g.float64Loop(name, 0, func(off int, masked bool, base, k int) []string {
			return g.trigBody(off, masked, base, "Y10", "Y11")
		})
		g.i("VMOVMSKPD", "Y13", "AX")
		g.i("TESTQ", "AX", "AX")
	}
	g.i("SETNE", "ret+32(FP)")
	g.i("VZEROUPPER")
	g.i("RET")
}

// table writes the 64 bytes of table vmath_name: vals twice.
func (g *gen) table(name string, vals [8]float32) {
	for off := 0; off < 64; off += 4 {
		g.p("DATA vmath_%s<>+%d(SB)/4, $%#08x", name, off, math.Float32bits(vals[off/4%8]))
	}
	g.p("GLOBL vmath_%s<>(SB), RODATA|NOPTR, $64", name)
}

// data writes the 32 bytes of constant vmath_name: copies of its size-byte
// bit pattern.
func (g *gen) data(name string, bits uint64, size int) {
	for off := 0; off < 32; off += size {
		g.p("DATA vmath_%s<>+%d(SB)/%d, $%#0*x", name, off, size, 2*size, bits)
	}
	g.p("GLOBL vmath_%s<>(SB), RODATA|NOPTR, $32", name)
}

func main() {
	g := &gen{}
	g.p("// Code generated by gen_kernels.go; DO NOT EDIT.")
	g.p("")
	g.p("#include \"textflag.h\"")
	g.p("")
	g.p("// Each constant is stored four times (32 bytes): AVX2 uses it as a YMM")
	g.p("// memory operand, AVX-512 broadcasts the first copy.")
	for _, c := range constants {
		bits := c.bits
		if !c.raw {
			bits = math.Float64bits(c.val)
		}
		g.data(c.name, bits, 8)
	}
	g.p("")
	g.p("// The float32 constants, eight copies each (32 bytes).")
	for _, c := range constants32 {
		bits := c.bits
		if !c.raw {
			bits = math.Float32bits(c.val)
		}
		g.data(c.name, uint64(bits), 4)
	}
	g.p("")
	g.p("// Erf32's tables, eight float32 each, then the eight again (64 bytes):")
	g.p("// AVX2 permutes the first 32 bytes, AVX-512 all 64 with indices below 8.")
	for _, t := range erf32Tables() {
		g.table(t.name, t.vals)
	}
	for _, is := range isas {
		for _, o := range ops32 {
			g.function32(is, o.name, o.doc)
		}
		g.erf32Function(is, "erf", "erf x")
		g.erf32Function(is, "gelu", "x·((erf(x·c) + 1)·0.5), c = 1/√2")
	}
	for _, is := range isas {
		g.trigFunction(is)
		g.tanh64Function(is)
		g.erf64Function(is)
		g.exp64Function(is)
		g.mathExpFunction(is)
		g.log64Function(is)
		g.log32Function(is)
		g.trig32Function(is)
	}
	if err := os.WriteFile("kernels_amd64.s", g.buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// Float32 lanes: e^x, sigmoid and tanh as exp32.go computes them, 8 float32
// per YMM register (AVX2) or 16 per ZMM (AVX-512).

// constant32 is a float32 (or, with raw set, a 32-bit pattern) that the
// float32-lane kernels broadcast to every lane.
type constant32 struct {
	name string
	val  float32
	bits uint32
	raw  bool
}

var constants32 = []constant32{
	{name: "f32lo", val: -104},
	{name: "f32hi", val: 89},
	{name: "f32tanhHi", val: 10},
	{name: "f32log2e", val: 1.44269504088896341},
	{name: "f32round", val: 0x1.8p23},
	{name: "f32ln2hi", val: 0.693359375},
	{name: "f32ln2lo", val: -2.12194440e-4},
	{name: "f32one", val: 1},
	{name: "f32two", val: 2},
	{name: "f32p0", val: 5.0000001201e-1},
	{name: "f32p1", val: 1.6666665459e-1},
	{name: "f32p2", val: 4.1665795894e-2},
	{name: "f32p3", val: 8.3334519073e-3},
	{name: "f32p4", val: 1.3981999507e-3},
	{name: "f32p5", val: 1.9875691500e-4},
	{name: "f32roundBits", bits: 0x4b400000, raw: true},
	{name: "f32bias", bits: 127, raw: true},
	{name: "f32sign", bits: 1 << 31, raw: true},
	{name: "f32abs", bits: 1<<31 - 1, raw: true},
	{name: "f32half", val: 0.5},
	{name: "f32erfTop", val: 0x1.fffffep1},
	{name: "f32geluC", val: 1 / math.Sqrt2},
	{name: "f32trigMax", val: 1 << 20},
	{name: "f32logTiny", val: 0x1p-126},
	{name: "f32logScale", val: 0x1p23},
	{name: "f32k23", val: 23},
	{name: "f32sqrt2", val: math.Sqrt2},
	{name: "f32mant", bits: 1<<23 - 1, raw: true},
	{name: "f32negHalf", val: -0.5},
	{name: "f32zero", val: 0},
	{name: "f32posInf", bits: 0x7f800000, raw: true},
	{name: "f32negInf", bits: 0xff800000, raw: true},
	{name: "f32nan", bits: 0x7fc00000, raw: true},
	{name: "f32int1", bits: 1, raw: true},
	{name: "f32int2", bits: 2, raw: true},
	{name: "f32s0", val: -1.6666654611e-1},
	{name: "f32s1", val: 8.3321608736e-3},
	{name: "f32s2", val: -1.9515295891e-4},
	{name: "f32c0", val: 4.166664568298827e-2},
	{name: "f32c1", val: -1.388731625493765e-3},
	{name: "f32c2", val: 2.443315711809948e-5},
}

// ops32 are the float32-lane kernels: Go name prefix and what they compute.
var ops32 = []struct{ name, doc string }{
	{"exp", "e^x"},
	{"sigmoid", "1/(1+e^-x)"},
	{"tanh", "tanh x"},
}

// used32 lists the constants op's AVX-512 kernel needs, those it uses most
// first: the first 16 sit in registers Z16-Z31, the rest are broadcast
// memory operands.
func used32(op string) []string {
	common := []string{"f32log2e", "f32round", "f32ln2hi", "f32ln2lo", "f32p0", "f32p1", "f32p2", "f32p3", "f32p4", "f32p5", "f32one"}
	switch op {
	case "exp":
		return append(common, "f32lo", "f32hi")
	case "sigmoid":
		return append(common, "f32lo", "f32sign")
	}
	return append(common, "f32abs", "f32tanhHi", "f32two", "f32sign")
}

// f32asm collects the instructions of one float32-lane step on the eight
// registers from base on.
type f32asm struct {
	asm
	g    *gen
	base int
}

// r names the step's k-th register.
func (a *f32asm) r(k int) string { return a.g.d(a.base + k) }

// m appends ins with the constant name as its first operand: a register on
// AVX-512 when it has one, else memory (broadcast on AVX-512).
func (a *f32asm) m(ins, name string, args ...string) {
	if r, ok := a.g.regOf[name]; ok {
		a.i(ins, append([]string{r}, args...)...)
		return
	}
	if a.g.isa.inReg {
		ins += ".BCST"
	}
	a.i(ins, append([]string{"vmath_" + name + "<>(SB)"}, args...)...)
}

// load copies the constant name into register dst: from its register on
// AVX-512 when it has one, else from memory (broadcast on AVX-512).
func (a *f32asm) load(name, dst string) {
	switch r, ok := a.g.regOf[name]; {
	case ok:
		a.i("VMOVAPS", r, dst)
	case a.g.isa.inReg:
		a.i("VBROADCASTSS", "vmath_"+name+"<>(SB)", dst)
	default:
		a.i("VMOVUPS", "vmath_"+name+"<>(SB)", dst)
	}
}

// bitOps returns the ISA's bitwise and and or on float32 lanes.
func (a *f32asm) bitOps() (and, or string) {
	if a.g.isa.inReg {
		return "VPANDD", "VPORD"
	}
	return "VANDPS", "VORPS"
}

// body32 returns the instructions of one float32-lane step of g.op: load x
// at off(SI) (under mask K1 when masked) into r0, compute, store at off(DI).
// Registers: r1 v, r2 t (then on AVX-512 k as a float, for tanh then 2^k
// and 2^k - 1; on AVX2 k, k2, 2^k2 or 2^k), r3 k as a float on AVX2 (then
// r), r4 r² (then scratch), r5 the result, r6 and r7 scratch; mask
// registers nan for the NaN lanes and sel for sigmoid's negative x
// (AVX-512).
func (g *gen) body32(off int, masked bool, base int, nan, sel string) []string {
	a := &f32asm{g: g, base: base}
	i, m, r := a.i, a.m, a.r
	and, or := a.bitOps()
	if masked {
		i("VMOVUPS.Z", fmt.Sprintf("%d(SI)", off), "K1", r(0))
	} else {
		i("VMOVUPS", fmt.Sprintf("%d(SI)", off), r(0))
	}
	// v
	switch g.op {
	case "exp":
		m("VMAXPS", "f32lo", r(0), r(1))
		m("VMINPS", "f32hi", r(1), r(1))
	case "sigmoid":
		m(or, "f32sign", r(0), r(1))
		m("VMAXPS", "f32lo", r(1), r(1))
	case "tanh":
		m(and, "f32abs", r(0), r(1))
		m("VMINPS", "f32tanhHi", r(1), r(1))
		i("VADDPS", r(1), r(1), r(1))
	}
	// t = v·log2e + round; k = t - round; r = (v - k·ln2hi) - k·ln2lo.
	// AVX-512 keeps k (a float) for VSCALEFPS, AVX2 t for k's bits.
	kf := r(3)
	if g.isa.inReg {
		kf = r(2)
	}
	m("VMULPS", "f32log2e", r(1), r(2))
	m("VADDPS", "f32round", r(2), r(2))
	m("VSUBPS", "f32round", r(2), kf)
	m("VMULPS", "f32ln2hi", kf, r(4))
	i("VSUBPS", r(4), r(1), r(4))
	m("VMULPS", "f32ln2lo", kf, r(3))
	i("VSUBPS", r(3), r(4), r(3))
	// e^r - 1 = r + r²·((p0 + p1·r) + (p2 + p3·r)·r² + (p4 + p5·r)·r⁴)
	i("VMULPS", r(3), r(3), r(4))
	m("VMULPS", "f32p1", r(3), r(5))
	m("VADDPS", "f32p0", r(5), r(5))
	m("VMULPS", "f32p3", r(3), r(6))
	m("VADDPS", "f32p2", r(6), r(6))
	m("VMULPS", "f32p5", r(3), r(7))
	m("VADDPS", "f32p4", r(7), r(7))
	i("VMULPS", r(4), r(6), r(6))
	i("VADDPS", r(6), r(5), r(5))
	i("VMULPS", r(4), r(4), r(6))
	i("VMULPS", r(6), r(7), r(7))
	i("VADDPS", r(7), r(5), r(5))
	i("VMULPS", r(4), r(5), r(5))
	i("VADDPS", r(3), r(5), r(5))
	// The powers of two: AVX-512's VSCALEFPS multiplies by 2^k (k in r2,
	// a float) with one rounding, which gives the bits of Exp32's two
	// halves (both round once, into the subnormals and to +Inf alike) and
	// of Tanh32's exact 2^k; AVX2 builds them in the exponent field.
	switch {
	case (g.op == "exp" || g.op == "sigmoid") && g.isa.inReg:
		// e^v = (1 + (e^r - 1))·2^k
		m("VADDPS", "f32one", r(5), r(5))
		i("VSCALEFPS", r(2), r(5), r(5))
	case g.op == "exp" || g.op == "sigmoid":
		// e^v = (1 + (e^r - 1))·2^k1·2^k2, k1 = k>>1, k2 = k - k1
		m("VPSUBD", "f32roundBits", r(2), r(2)) // k from t's bits
		i("VPSRAD", "$1", r(2), r(6))
		i("VPSUBD", r(6), r(2), r(2))
		m("VPADDD", "f32bias", r(6), r(6))
		i("VPSLLD", "$23", r(6), r(6))
		m("VPADDD", "f32bias", r(2), r(2))
		i("VPSLLD", "$23", r(2), r(2))
		m("VADDPS", "f32one", r(5), r(5))
		i("VMULPS", r(6), r(5), r(5))
		i("VMULPS", r(2), r(5), r(5))
	default: // tanh: e^v - 1 = (e^r - 1)·2^k + (2^k - 1)
		if g.isa.inReg {
			a.load("f32one", r(6))
			i("VSCALEFPS", r(2), r(6), r(2))
		} else {
			m("VPSUBD", "f32roundBits", r(2), r(2))
			m("VPADDD", "f32bias", r(2), r(2))
			i("VPSLLD", "$23", r(2), r(2))
		}
		i("VMULPS", r(2), r(5), r(5))
		m("VSUBPS", "f32one", r(2), r(2))
		i("VADDPS", r(2), r(5), r(5))
	}
	switch g.op {
	case "sigmoid":
		// s = e^-|x|: 1/(1 + s) for x ≥ 0, s/(1 + s) for x < 0
		m("VADDPS", "f32one", r(5), r(4))
		a.load("f32one", r(6))
		if g.isa.inReg {
			i("VPMOVD2M", r(0), sel)
			i("VMOVAPS", r(5), sel, r(6))
		} else {
			i("VBLENDVPS", r(0), r(5), r(6), r(6))
		}
		i("VDIVPS", r(4), r(6), r(5))
	case "tanh":
		// (e^v - 1)/(e^v - 1 + 2) with the sign of x
		m("VADDPS", "f32two", r(5), r(6))
		i("VDIVPS", r(6), r(5), r(5))
		m(and, "f32sign", r(0), r(6))
		i(or, r(6), r(5), r(5))
	}
	// NaN inputs come back unchanged
	a.keepNaN(r(0), r(5), r(6), nan)
	a.store(off, masked, r(5))
	return a.asm
}

// keepNaN puts the NaN lanes of in back into res, through mask register
// nan on AVX-512 and register scratch on AVX2.
func (a *f32asm) keepNaN(in, res, scratch, nan string) {
	if a.g.isa.inReg {
		a.i("VCMPPS", "$3", in, in, nan)
		a.i("VMOVAPS", in, nan, res)
	} else {
		a.i("VCMPPS", "$3", in, in, scratch)
		a.i("VBLENDVPS", scratch, in, res, res)
	}
}

// store writes register res at off(DI), under mask K1 when masked.
func (a *f32asm) store(off int, masked bool, res string) {
	dst := fmt.Sprintf("%d(DI)", off)
	if masked {
		a.i("VMOVUPS", res, "K1", dst)
	} else {
		a.i("VMOVUPS", res, dst)
	}
}

// prologue32 writes the header of a float32-lane kernel op+g.isa.name,
// dst[i] = doc, and loads its arguments into DI, SI and CX.
func (g *gen) prologue32(op, doc string) {
	name := op + g.isa.name
	g.p("")
	if g.isa.inReg {
		g.p("// func %s(dst, src *float32, n int) sets dst[i] = %s for i < n.", name, doc)
	} else {
		g.p("// func %s(dst, src *float32, n int) sets dst[i] = %s for i < n; n is a multiple of %d.", name, doc, g.isa.step/2)
	}
	g.p("TEXT ·%s(SB), NOSPLIT, $0-24", name)
	g.i("MOVQ", "dst+0(FP)", "DI")
	g.i("MOVQ", "src+8(FP)", "SI")
	g.i("MOVQ", "n+16(FP)", "CX")
}

// function32 writes op+is.name over float32 lanes: two steps at a time
// (registers 0-7 and 8-15), then one, then on AVX-512 a masked tail; the
// AVX2 kernels take a multiple of 8. On AVX-512 the constants sit in
// Z16-Z31.
func (g *gen) function32(is isa, op, doc string) {
	g.isa, g.op = is, op
	name := op + is.name
	lanes := is.step / 2
	g.prologue32(op, doc)
	g.regOf = nil
	if is.inReg {
		g.regOf = map[string]string{}
		for k, c := range used32(op) {
			if k == 16 {
				break
			}
			r := fmt.Sprintf("Z%d", 16+k)
			g.regOf[c] = r
			g.i("VBROADCASTSS", "vmath_"+c+"<>(SB)", r)
		}
	}
	g.loop(name, lanes, 4*lanes, 8, func(off int, masked bool, base, k int) []string {
		return g.body32(off, masked, base, []string{"K2", "K3"}[k], []string{"K4", "K5"}[k])
	})
	g.regOf = nil
	g.i("VZEROUPPER")
	g.i("RET")
}

// Float32 erf as erf32.go computes it: the lane's interval k = ⌊2a⌋ picks
// each coefficient from an eight-entry table with VPERMPS.

// The tables of erf32.go, copied.
var (
	erf32A = [8]float32{0, 0.5204999, 0.8427008, 0.96610516, 0.9953223, 0.999593, 0.9999779, 0.9999993}
	erf32D = [8]float32{0, -7.269198e-09, 1.3511696e-08, -1.662207e-08, -2.206372e-08, 2.8497082e-08, 2.2826214e-08, -2.7842635e-08}
	erf32M = [8]float32{1, 0, 0, 0, 0, 0, 0, 0}
	erf32R = [8][8]float32{
		{0.12837917, 0.8787826, 0.4151075, 0.11893029, 0.020666985, 0.0021782843, 0.00013925305, 5.399426e-06},
		{1.0364395e-07, -0.4393914, -0.4151075, -0.1783954, -0.04133398, -0.0054457136, -0.00041775836, -1.8897757e-05},
		{-0.3761308, -0.14645883, 0.1383687, 0.13875058, 0.0482234, 0.008350224, 0.0007890673, 4.2285563e-05},
		{7.138928e-05, 0.18300103, 0.069191284, -0.0445757, -0.03445187, -0.008624579, -0.0010438667, -6.755635e-05},
		{0.11226235, 0.0079374565, -0.069226585, -0.01505235, 0.013142411, 0.0061353627, 0.0010123925, 8.081414e-05},
		{0.002554361, -0.05262955, 0.0047148457, 0.020148175, 0.00023829108, -0.0028803656, -0.000720469, -7.1941984e-05},
		{-0.03328216, 0.011350703, 0.015241494, -0.006797802, -0.0028882069, 0.00075734424, 0.00034995266, 4.340733e-05},
		{0.0087195, 0.0032975713, -0.0057546217, 0.0004253756, 0.0010861385, -6.018712e-05, -8.8376604e-05, -1.3180068e-05},
	}
)

type erf32Table struct {
	name string
	vals [8]float32
}

// erf32Tables lists the tables by name: erfR0 to erfR7, erfM, erfD, erfA.
func erf32Tables() []erf32Table {
	var ts []erf32Table
	for j, r := range erf32R {
		ts = append(ts, erf32Table{fmt.Sprintf("erfR%d", j), r})
	}
	return append(ts, erf32Table{"erfM", erf32M}, erf32Table{"erfD", erf32D}, erf32Table{"erfA", erf32A})
}

// erf32Body returns the instructions of one float32 erf step (g.op "erf")
// or GELU step ("gelu") on the registers from base on: r0 x, r1 a (then
// s), r2 k, r3 the sum, r4 a coefficient (then scratch), and for GELU r5
// u = x·c, erf's argument; mask register nan for the NaN lanes (AVX-512).
// On AVX-512 the tables and constants sit in Z16-Z31, but for GELU's one,
// a broadcast memory operand; on AVX2 all are memory operands.
func (g *gen) erf32Body(off int, masked bool, base int, nan string) []string {
	a := &f32asm{g: g, base: base}
	i, m, r := a.i, a.m, a.r
	and, or := a.bitOps()
	if masked {
		i("VMOVUPS.Z", fmt.Sprintf("%d(SI)", off), "K1", r(0))
	} else {
		i("VMOVUPS", fmt.Sprintf("%d(SI)", off), r(0))
	}
	in := r(0)
	if g.op == "gelu" {
		m("VMULPS", "f32geluC", r(0), r(5))
		in = r(5)
	}
	// a = min(|x|, top); k = int(a + a); s = a - k·0.5
	m(and, "f32abs", in, r(1))
	m("VMINPS", "f32erfTop", r(1), r(1))
	i("VADDPS", r(1), r(1), r(2))
	i("VCVTTPS2DQ", r(2), r(2))
	i("VCVTDQ2PS", r(2), r(3))
	m("VMULPS", "f32half", r(3), r(3))
	i("VSUBPS", r(3), r(1), r(1))
	// p = R(s) in Horner's scheme
	perm := func(table, dst string) {
		if t, ok := g.regOf[table]; ok {
			i("VPERMPS", t, r(2), dst)
		} else {
			i("VPERMPS", "vmath_"+table+"<>(SB)", r(2), dst)
		}
	}
	perm("erfR7", r(3))
	for j := 6; j >= 0; j-- {
		perm(fmt.Sprintf("erfR%d", j), r(4))
		i("VMULPS", r(1), r(3), r(3))
		i("VADDPS", r(4), r(3), r(3))
	}
	// A + (D + (M·s + s·p))
	i("VMULPS", r(1), r(3), r(3))
	perm("erfM", r(4))
	i("VMULPS", r(1), r(4), r(4))
	i("VADDPS", r(3), r(4), r(3))
	perm("erfD", r(4))
	i("VADDPS", r(3), r(4), r(3))
	perm("erfA", r(4))
	i("VADDPS", r(3), r(4), r(3))
	// the sign of the argument; NaN arguments come back unchanged
	m(and, "f32sign", in, r(4))
	i(or, r(4), r(3), r(3))
	a.keepNaN(in, r(3), r(4), nan)
	if g.op == "gelu" {
		// x·((erf u + 1)·0.5)
		m("VADDPS", "f32one", r(3), r(3))
		m("VMULPS", "f32half", r(3), r(3))
		i("VMULPS", r(3), r(0), r(3))
	}
	a.store(off, masked, r(3))
	return a.asm
}

// erf32Function writes erfAVX2 or erfAVX512 (op "erf"), or geluAVX2 or
// geluAVX512 ("gelu"): two steps at a time (registers 0-5 and 8-13), then
// one, then on AVX-512 a masked tail; the AVX2 kernels take a multiple of
// 8. On AVX-512 the tables and constants sit in Z16-Z31.
func (g *gen) erf32Function(is isa, op, doc string) {
	g.isa, g.op = is, op
	name := op + is.name
	lanes := is.step / 2
	g.prologue32(op, doc)
	g.regOf = nil
	if is.inReg {
		g.regOf = map[string]string{}
		reg := 16
		for _, t := range erf32Tables() {
			g.regOf[t.name] = fmt.Sprintf("Z%d", reg)
			g.i("VMOVUPS", "vmath_"+t.name+"<>(SB)", g.regOf[t.name])
			reg++
		}
		consts := []string{"f32abs", "f32erfTop", "f32half", "f32sign"}
		if op == "gelu" {
			consts = append(consts, "f32geluC")
		}
		for _, c := range consts {
			g.regOf[c] = fmt.Sprintf("Z%d", reg)
			g.i("VBROADCASTSS", "vmath_"+c+"<>(SB)", g.regOf[c])
			reg++
		}
	}
	g.loop(name, lanes, 4*lanes, 8, func(off int, masked bool, base, k int) []string {
		return g.erf32Body(off, masked, base, []string{"K2", "K3"}[k])
	})
	g.regOf = nil
	g.i("VZEROUPPER")
	g.i("RET")
}

// Float32 sin and cos as trig32.go computes them: each half of the float32
// lanes widened and reduced in float64 lanes, r split into float32 rh and
// rl, the polynomials in float32 lanes.

// trig32Half reduces half h of the step's float32 x (register r0) in
// float64 lanes: k = round(x·2/π) and r = (x - k·pio2a) - k·pio2b32 in r1
// to r4, then writes float32 rh, rl and the int32 k into the lower halves
// of registers rh, rl and q.
func (g *gen) trig32Half(a *f32asm, h int, rh, rl, q string) {
	i, m, r := a.i, a.m, a.r
	lo := func(k int) string { return a.g.f(a.base + k) }
	if h == 0 {
		i("VCVTPS2PD", lo(0), r(1))
	} else {
		if g.isa.inReg {
			i("VEXTRACTF32X8", "$1", r(0), lo(1))
		} else {
			i("VEXTRACTF128", "$1", r(0), lo(1))
		}
		i("VCVTPS2PD", lo(1), r(1))
	}
	narrow, toInt := "VCVTPD2PS", "VCVTPD2DQ"
	if !g.isa.inReg {
		narrow, toInt = "VCVTPD2PSY", "VCVTPD2DQY"
	}
	m("VMULPD", "twoOverPi", r(1), r(2))
	m("VADDPD", "round", r(2), r(2))
	m("VSUBPD", "round", r(2), r(3))
	i(toInt, r(3), q)
	m("VMULPD", "pio2a", r(3), r(4))
	i("VSUBPD", r(4), r(1), r(4))
	m("VMULPD", "pio2b32", r(3), r(3))
	i("VSUBPD", r(3), r(4), r(3))
	i(narrow, r(3), rh)
	i("VCVTPS2PD", rh, r(4))
	i("VSUBPD", r(4), r(3), r(4))
	i(narrow, r(4), rl)
}

// trig32Body returns the instructions of one float32 sin/cos step
// (sinCos32 in trig32.go) on the eleven registers from base on: r0 x, r1
// to r4 the float64 reduction of a half (then z, the sine, the cosine and
// scratch), r5 rh, r6 rl, r7 k (then the quadrant), r8 to r10 the second
// half's rh, rl and k (then scratch). On AVX-512, Z30 holds q0 in every
// lane; K register swap takes the lanes whose quadrant is odd (then those
// whose result is ±0), K register out the lanes with !(|x| < 2^20), which
// store x itself for the caller to replace, and K6 gathers those over the
// loop. On AVX2, Y14 holds q0, Y11 the out lanes and Y13 gathers them (in
// the sign bits), and Y12 is scratch.
func (g *gen) trig32Body(off int, masked bool, base int, swap, out string) []string {
	a := &f32asm{g: g, base: base}
	i, m, r := a.i, a.m, a.r
	lo := func(k int) string { return a.g.f(a.base + k) }
	and, _ := a.bitOps()
	avx512 := g.isa.inReg
	xor := "VXORPS"
	if avx512 {
		xor = "VPXORD"
	} else {
		out = "Y11"
	}
	if masked {
		i("VMOVUPS.Z", fmt.Sprintf("%d(SI)", off), "K1", r(0))
	} else {
		i("VMOVUPS", fmt.Sprintf("%d(SI)", off), r(0))
	}
	// the lanes out of range: predicate 5, not less than, unordered
	m(and, "f32abs", r(0), r(4))
	if avx512 {
		i("VCMPPS.BCST", "$5", "vmath_f32trigMax<>(SB)", r(4), out)
		i("KORW", out, "K6", "K6")
	} else {
		i("VCMPPS", "$5", "vmath_f32trigMax<>(SB)", r(4), out)
		i("VORPS", out, "Y13", "Y13")
	}
	g.trig32Half(a, 0, lo(5), lo(6), lo(7))
	g.trig32Half(a, 1, lo(8), lo(9), lo(10))
	if avx512 {
		i("VINSERTF32X8", "$1", lo(8), r(5), r(5))
		i("VINSERTF32X8", "$1", lo(9), r(6), r(6))
		i("VINSERTI32X8", "$1", lo(10), r(7), r(7))
	} else {
		i("VINSERTF128", "$1", lo(8), r(5), r(5))
		i("VINSERTF128", "$1", lo(9), r(6), r(6))
		i("VINSERTI128", "$1", lo(10), r(7), r(7))
	}
	// z = rh²; s = rh + (rl + (rh·z)·S(z))
	i("VMULPS", r(5), r(5), r(1))
	m("VMULPS", "f32s2", r(1), r(2))
	m("VADDPS", "f32s1", r(2), r(2))
	i("VMULPS", r(1), r(2), r(2))
	m("VADDPS", "f32s0", r(2), r(2))
	i("VMULPS", r(1), r(5), r(4))
	i("VMULPS", r(2), r(4), r(4))
	i("VADDPS", r(6), r(4), r(4))
	i("VADDPS", r(5), r(4), r(2))
	// c = w + (((1 - w) - hz) + (z²·C(z) - rh·rl)), hz = z/2, w = 1 - hz
	m("VMULPS", "f32c2", r(1), r(3))
	m("VADDPS", "f32c1", r(3), r(3))
	i("VMULPS", r(1), r(3), r(3))
	m("VADDPS", "f32c0", r(3), r(3))
	i("VMULPS", r(1), r(1), r(4))
	i("VMULPS", r(4), r(3), r(3))
	i("VMULPS", r(6), r(5), r(4))
	i("VSUBPS", r(4), r(3), r(3))
	m("VMULPS", "f32half", r(1), r(4))
	a.load("f32one", r(8))
	i("VSUBPS", r(4), r(8), r(8))
	a.load("f32one", r(9))
	i("VSUBPS", r(8), r(9), r(9))
	i("VSUBPS", r(4), r(9), r(9))
	i("VADDPS", r(3), r(9), r(9))
	i("VADDPS", r(9), r(8), r(3))
	// the quadrant q = k + q0: the cosine when odd, the sign flipped when q&2
	q0 := "Z30"
	if !avx512 {
		q0 = "Y14"
	}
	i("VPADDD", q0, r(7), r(7))
	if avx512 {
		m("VPTESTMD", "f32int1", r(7), swap)
		i("VMOVAPS", r(3), swap, r(2))
	} else {
		i("VPSLLD", "$31", r(7), r(4))
		i("VBLENDVPS", r(4), r(3), r(2), r(2))
	}
	m(and, "f32int2", r(7), r(7))
	i("VPSLLD", "$30", r(7), r(7))
	i(xor, r(7), r(2), r(2))
	// a zero result (sin ±0) takes x's sign; out-of-range lanes keep x
	if avx512 {
		m("VPTESTNMD", "f32abs", r(2), swap)
		i("VMOVAPS", r(0), swap, r(2))
		i("VMOVAPS", r(0), out, r(2))
	} else {
		i("VXORPS", "Y12", "Y12", "Y12")
		i("VCMPPS", "$0", "Y12", r(2), "Y12")
		i("VBLENDVPS", "Y12", r(0), r(2), r(2))
		i("VBLENDVPS", out, r(0), r(2), r(2))
	}
	a.store(off, masked, r(2))
	return a.asm
}

// trig32Function writes sinCos32AVX512, two steps of 16 at a time
// (registers 0-10 and 11-21), then one, then a masked tail; or
// sinCos32AVX2, one step of 8 at a time, for a multiple of 8.
func (g *gen) trig32Function(is isa) {
	g.isa, g.op = is, "sincos32"
	name := "sinCos32" + is.name
	lanes := is.step / 2
	g.trigPrologue(name, "float32", "uint32", "2^20", lanes)
	g.regOf = nil
	if is.inReg {
		g.i("MOVL", "q0+24(FP)", "AX")
		g.i("VMOVD", "AX", "X30")
		g.i("VPBROADCASTD", "X30", "Z30")
		g.i("KXORW", "K6", "K6", "K6")
		g.regOf = map[string]string{}
		for k, c := range []string{"f32s0", "f32s1", "f32s2", "f32c0", "f32c1", "f32c2", "f32one", "f32half"} {
			r := fmt.Sprintf("Z%d", 22+k)
			g.regOf[c] = r
			g.i("VBROADCASTSS", "vmath_"+c+"<>(SB)", r)
		}
		g.loop(name, lanes, 4*lanes, 11, func(off int, masked bool, base, k int) []string {
			return g.trig32Body(off, masked, base, []string{"K2", "K3"}[k], []string{"K4", "K5"}[k])
		})
		g.i("KMOVW", "K6", "AX")
		g.i("TESTW", "AX", "AX")
	} else {
		g.i("MOVL", "q0+24(FP)", "AX")
		g.i("VMOVD", "AX", "X14")
		g.i("VPBROADCASTD", "X14", "Y14")
		g.i("VXORPS", "Y13", "Y13", "Y13")
		g.loop(name, lanes, 4*lanes, 0, func(off int, masked bool, base, k int) []string {
			return g.trig32Body(off, masked, base, "", "")
		})
		g.i("VMOVMSKPS", "Y13", "AX")
		g.i("TESTQ", "AX", "AX")
	}
	g.regOf = nil
	g.i("SETNE", "ret+32(FP)")
	g.i("VZEROUPPER")
	g.i("RET")
}

// Float32 log as log32.go computes it, in float32 lanes.

// log32P are log32.go's coefficients, copied.
var log32P = [9]float32{
	7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
	-1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
}

func init() {
	for j, c := range log32P {
		constants32 = append(constants32, constant32{name: fmt.Sprintf("f32logP%d", j), val: c})
	}
}

// log32Body returns the instructions of one float32 log step (Log32 in
// log32.go) on the ten registers from base on: r0 x, r1 xs then m, r2 k,
// r3 f, r4 z, r5 p then the result, r6 and r7 scratch; the three K
// registers of ks (on AVX2, registers r8, r9 and r6, masks in their sign
// bits) take the lanes of subnormal x, of m > √2, and of each special case
// in turn.
func (g *gen) log32Body(off int, masked bool, base int, ks [3]string) []string {
	a := &f32asm{g: g, base: base}
	i, m, r := a.i, a.m, a.r
	and, or := a.bitOps()
	avx512 := g.isa.inReg
	ksub, khalf, kspec := ks[0], ks[1], ks[2]
	if !avx512 {
		ksub, khalf, kspec = r(8), r(9), r(6)
	}
	konst := func(name string) string {
		if reg, ok := g.regOf[name]; ok {
			return reg
		}
		return "vmath_" + name + "<>(SB)"
	}
	bcst := func(ins, name string) string {
		if _, ok := g.regOf[name]; !ok && avx512 {
			return ins + ".BCST"
		}
		return ins
	}
	// cmp sets mask k to the lanes where pred(v, constant name) holds.
	cmp := func(pred int, name, v, k string) {
		i(bcst("VCMPPS", name), fmt.Sprintf("$%d", pred), konst(name), v, k)
	}
	// under sets v to op(v, constant name) in the lanes of mask k.
	under := func(op, name, v, k string) {
		if avx512 {
			i(bcst(op, name), konst(name), v, k, v)
		} else {
			m(op, name, v, r(7))
			i("VBLENDVPS", k, r(7), v, v)
		}
	}
	// set sets v to constant name in the lanes of mask k.
	set := func(name, v, k string) {
		if avx512 {
			a.load(name, r(7))
			i("VMOVAPS", r(7), k, v)
		} else {
			i("VBLENDVPS", k, konst(name), v, v)
		}
	}
	if masked {
		i("VMOVUPS.Z", fmt.Sprintf("%d(SI)", off), "K1", r(0))
	} else {
		i("VMOVUPS", fmt.Sprintf("%d(SI)", off), r(0))
	}
	// xs: subnormal x scaled by 2^23; k = exponent - 127 (- 23); m in [1, 2)
	i("VMOVAPS", r(0), r(1))
	cmp(1, "f32logTiny", r(0), ksub)
	under("VMULPS", "f32logScale", r(1), ksub)
	i("VPSRLD", "$23", r(1), r(2))
	m("VPSUBD", "f32bias", r(2), r(2))
	i("VCVTDQ2PS", r(2), r(2))
	under("VSUBPS", "f32k23", r(2), ksub)
	m(and, "f32mant", r(1), r(1))
	m(or, "f32one", r(1), r(1))
	// m > √2: m/2, k + 1 (predicate 14, greater than)
	cmp(14, "f32sqrt2", r(1), khalf)
	under("VMULPS", "f32half", r(1), khalf)
	under("VADDPS", "f32one", r(2), khalf)
	// f = m - 1, z = f², p = P(f) in Horner's scheme
	m("VSUBPS", "f32one", r(1), r(3))
	i("VMULPS", r(3), r(3), r(4))
	m("VMULPS", "f32logP0", r(3), r(5))
	for j := 1; j < len(log32P); j++ {
		if j > 1 {
			i("VMULPS", r(3), r(5), r(5))
		}
		m("VADDPS", fmt.Sprintf("f32logP%d", j), r(5), r(5))
	}
	// y = (f·z)·p + k·ln2lo - z/2; (f + y) + k·ln2hi
	i("VMULPS", r(4), r(3), r(6))
	i("VMULPS", r(5), r(6), r(5))
	m("VMULPS", "f32ln2lo", r(2), r(6))
	i("VADDPS", r(6), r(5), r(5))
	m("VMULPS", "f32negHalf", r(4), r(6))
	i("VADDPS", r(6), r(5), r(5))
	i("VADDPS", r(5), r(3), r(5))
	m("VMULPS", "f32ln2hi", r(2), r(6))
	i("VADDPS", r(6), r(5), r(5))
	// the special lanes: NaN below, -Inf for ±0, x itself for +Inf and NaN
	cmp(1, "f32zero", r(0), kspec)
	set("f32nan", r(5), kspec)
	cmp(0, "f32zero", r(0), kspec)
	set("f32negInf", r(5), kspec)
	cmp(0, "f32posInf", r(0), kspec)
	if avx512 {
		i("VMOVAPS", r(0), kspec, r(5))
	} else {
		i("VBLENDVPS", kspec, r(0), r(5), r(5))
	}
	a.keepNaN(r(0), r(5), r(6), kspec)
	a.store(off, masked, r(5))
	return a.asm
}

// log32Function writes log32AVX512, two steps of 16 at a time (registers
// 0-7 and 10-17, the coefficients and three constants in Z20-Z31), then
// one, then a masked tail; or log32AVX2, one step of 8 at a time
// (registers 0-9), for a multiple of 8.
func (g *gen) log32Function(is isa) {
	g.isa, g.op = is, "log32"
	name := "log32" + is.name
	lanes := is.step / 2
	g.prologue32("log32", "log x")
	g.regOf = nil
	base2 := 0
	if is.inReg {
		base2 = 10
		g.regOf = map[string]string{}
		consts := []string{"f32one", "f32ln2hi", "f32ln2lo"}
		for j := range log32P {
			consts = append(consts, fmt.Sprintf("f32logP%d", j))
		}
		for k, c := range consts {
			r := fmt.Sprintf("Z%d", 20+k)
			g.regOf[c] = r
			g.i("VBROADCASTSS", "vmath_"+c+"<>(SB)", r)
		}
	}
	g.loop(name, lanes, 4*lanes, base2, func(off int, masked bool, base, k int) []string {
		return g.log32Body(off, masked, base, [][3]string{{"K2", "K3", "K4"}, {"K5", "K6", "K7"}}[k])
	})
	g.regOf = nil
	g.i("VZEROUPPER")
	g.i("RET")
}
