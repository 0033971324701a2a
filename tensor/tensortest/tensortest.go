// Package tensortest is the conformance suite every tensor.Backend must pass.
//
// RunAll drives each Backend primitive directly, through the interface, on views
// built over buffers from the backend's own Alloc and FromSlice, and reads the
// results back with ToSlice. Expected values come from naive reference loops in
// float64, never from another backend. Subtests are named
// Primitive/dtype/case, so a new backend sees exactly which primitive, dtype and
// layout fails; a panic inside one case is recovered and reported as that case's
// failure, so the rest of the suite still runs.
//
// A backend under construction can leave whole groups out:
//
//	tensortest.RunAll(t, be, tensortest.Skip("MatMul", "Scatter"))
package tensortest

import (
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/goagx/agx/tensor"
)

// Option configures RunAll.
type Option func(*config)

type config struct {
	skip map[string]bool
}

// Skip leaves out the named groups (the top-level subtest names: "Alloc",
// "FromSlice", "Fill", "Copy", "Unary", "Binary", "Where", "Reduce", "MatMul",
// "Gather", "Scatter"). Skipped groups are reported with t.Skip.
func Skip(groups ...string) Option {
	return func(c *config) {
		for _, g := range groups {
			c.skip[g] = true
		}
	}
}

// Groups lists the group names RunAll runs, in order.
func Groups() []string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.name
	}
	return names
}

var groups = []struct {
	name string
	fn   func(t *testing.T, be tensor.Backend)
}{
	{"Alloc", withEmpty(testAlloc, emptyAlloc)},
	{"FromSlice", withEmpty(testFromSlice, emptyFromSlice)},
	{"Fill", withEmpty(testFill, emptyFill)},
	{"Copy", withEmpty(testCopy, emptyCopy)},
	{"Unary", withEmpty(testUnary, emptyUnary)},
	{"Binary", withEmpty(testBinary, emptyBinary)},
	{"Where", withEmpty(testWhere, emptyWhere)},
	{"Reduce", withEmpty(testReduce, emptyReduce)},
	{"MatMul", withEmpty(testMatMul, emptyMatMul)},
	{"Gather", withEmpty(testGather, emptyGather)},
	{"Scatter", withEmpty(testScatter, emptyScatter)},
}

// RunAll runs the conformance suite against be.
func RunAll(t *testing.T, be tensor.Backend, opts ...Option) {
	cfg := config{skip: map[string]bool{}}
	for _, o := range opts {
		o(&cfg)
	}
	for g := range cfg.skip {
		if !slices.Contains(Groups(), g) {
			t.Errorf("tensortest.Skip: unknown group %q (groups: %v)", g, Groups())
		}
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			if cfg.skip[g.name] {
				t.Skipf("group %s skipped by option", g.name)
			}
			g.fn(t, be)
		})
	}
}

// run runs one case as a subtest, turning a panic into a test failure.
func run(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		defer func() {
			if r := recover(); r != nil {
				if testing.Verbose() {
					t.Errorf("panic: %v\n%s", r, debug.Stack())
					return
				}
				t.Errorf("panic: %v", r)
			}
		}()
		f(t)
	})
}

var allDTypes = []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Bool}
var numDTypes = []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64}
var floatDTypes = []tensor.DType{tensor.Float32, tensor.Float64}

// --- helpers ---

// typed converts float64 values to a Go slice of dt, with the conversions
// the backends implement (truncation toward zero for Int64, != 0 for Bool).
func typed(dt tensor.DType, vals []float64) any {
	switch dt {
	case tensor.Float32:
		s := make([]float32, len(vals))
		for i, v := range vals {
			s[i] = float32(v)
		}
		return s
	case tensor.Float64:
		return slices.Clone(vals)
	case tensor.Int64:
		s := make([]int64, len(vals))
		for i, v := range vals {
			s[i] = int64(v)
		}
		return s
	case tensor.Bool:
		s := make([]bool, len(vals))
		for i, v := range vals {
			s[i] = v != 0
		}
		return s
	}
	panic(fmt.Sprintf("tensortest: dtype %v", dt))
}

// floats converts a slice returned by ToSlice to float64s.
func floats(s any) []float64 {
	switch x := s.(type) {
	case []float32:
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = float64(v)
		}
		return out
	case []float64:
		return slices.Clone(x)
	case []int64:
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = float64(v)
		}
		return out
	case []bool:
		out := make([]float64, len(x))
		for i, v := range x {
			if v {
				out[i] = 1
			}
		}
		return out
	}
	panic(fmt.Sprintf("tensortest: ToSlice returned %T", s))
}

// asDType rounds reference values to what dt can hold.
func asDType(dt tensor.DType, vals []float64) []float64 { return floats(typed(dt, vals)) }

// buf makes a buffer of dt holding vals.
func buf(be tensor.Backend, dt tensor.DType, vals []float64) tensor.Buffer {
	return be.FromSlice(typed(dt, vals))
}

// contig makes a contiguous view of a new buffer holding vals with shape.
func contig(be tensor.Backend, dt tensor.DType, vals []float64, shape ...int) tensor.View {
	if len(vals) != tensor.NumelOf(shape) {
		panic(fmt.Sprintf("tensortest: %d values for shape %v", len(vals), shape))
	}
	return tensor.View{Buf: buf(be, dt, vals), Shape: shape, Strides: tensor.ContiguousStrides(shape)}
}

// zeros makes a contiguous zeroed view from Alloc.
func zeros(be tensor.Backend, dt tensor.DType, shape ...int) tensor.View {
	return tensor.View{Buf: be.Alloc(dt, tensor.NumelOf(shape)), Shape: shape, Strides: tensor.ContiguousStrides(shape)}
}

// read returns the view's elements in row-major order as float64s, checking the
// slice type ToSlice returns.
func read(t *testing.T, be tensor.Backend, v tensor.View) []float64 {
	t.Helper()
	s := be.ToSlice(v)
	if want := fmt.Sprintf("%T", typed(v.DType(), nil)); fmt.Sprintf("%T", s) != want {
		t.Fatalf("ToSlice of a %v view returned %T, want %s", v.DType(), s, want)
	}
	return floats(s)
}

// whole reads the entire buffer behind v, as a flat contiguous view.
func whole(t *testing.T, be tensor.Backend, b tensor.Buffer) []float64 {
	t.Helper()
	return read(t, be, tensor.View{Buf: b, Shape: []int{b.Len()}, Strides: []int{1}})
}

func tol(dt tensor.DType) (rtol, atol float64) {
	switch dt {
	case tensor.Float32:
		return 2e-6, 1e-6
	case tensor.Float64:
		return 1e-12, 1e-14
	}
	return 0, 0
}

func close(got, want float64, dt tensor.DType) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return got == want
	}
	rtol, atol := tol(dt)
	return math.Abs(got-want) <= atol+rtol*math.Abs(want)
}

// check compares got with want element by element under dt's tolerance.
func check(t *testing.T, dt tensor.DType, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d elements %v, want %d elements %v", len(got), got, len(want), want)
	}
	for i := range got {
		if !close(got[i], want[i], dt) {
			t.Errorf("element %d: got %v, want %v\n got  %v\n want %v", i, got[i], want[i], got, want)
			return
		}
	}
}

func seq(n int, f func(i int) float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = f(i)
	}
	return s
}

// --- Alloc, FromSlice/ToSlice ---

func testAlloc(t *testing.T, be tensor.Backend) {
	for _, dt := range allDTypes {
		for _, n := range []int{0, 1, 7, 1000} {
			run(t, fmt.Sprintf("%v/n=%d", dt, n), func(t *testing.T) {
				b := be.Alloc(dt, n)
				if b.Len() != n || b.DType() != dt {
					t.Fatalf("Alloc(%v, %d): Len %d DType %v", dt, n, b.Len(), b.DType())
				}
				check(t, dt, whole(t, be, b), make([]float64, n))
			})
		}
	}
}

func testFromSlice(t *testing.T, be tensor.Backend) {
	vals := []float64{1, -2, 0, 3.5, 4, -0.25}
	for _, dt := range allDTypes {
		want := asDType(dt, vals)
		run(t, dt.String()+"/roundtrip", func(t *testing.T) {
			b := buf(be, dt, vals)
			if b.Len() != 6 || b.DType() != dt {
				t.Fatalf("FromSlice: Len %d DType %v", b.Len(), b.DType())
			}
			check(t, dt, read(t, be, tensor.View{Buf: b, Shape: []int{2, 3}, Strides: []int{3, 1}}), want)
		})
		run(t, dt.String()+"/transposed", func(t *testing.T) {
			b := buf(be, dt, vals)
			got := read(t, be, tensor.View{Buf: b, Shape: []int{3, 2}, Strides: []int{1, 3}})
			check(t, dt, got, []float64{want[0], want[3], want[1], want[4], want[2], want[5]})
		})
		run(t, dt.String()+"/offset-step", func(t *testing.T) {
			b := buf(be, dt, vals)
			got := read(t, be, tensor.View{Buf: b, Shape: []int{2}, Strides: []int{2}, Offset: 1})
			check(t, dt, got, []float64{want[1], want[3]})
		})
		run(t, dt.String()+"/scalar", func(t *testing.T) {
			b := buf(be, dt, vals)
			check(t, dt, read(t, be, tensor.View{Buf: b, Offset: 3}), []float64{want[3]})
		})
		run(t, dt.String()+"/broadcast", func(t *testing.T) {
			b := buf(be, dt, vals)
			got := read(t, be, tensor.View{Buf: b, Shape: []int{2, 3}, Strides: []int{0, 1}, Offset: 3})
			check(t, dt, got, []float64{want[3], want[4], want[5], want[3], want[4], want[5]})
		})
		run(t, dt.String()+"/empty", func(t *testing.T) {
			b := buf(be, dt, nil)
			check(t, dt, read(t, be, tensor.View{Buf: b, Shape: []int{0, 3}, Strides: []int{3, 1}}), []float64{})
		})
	}
}

// --- Fill ---

func testFill(t *testing.T, be tensor.Backend) {
	cases := []struct {
		dt   tensor.DType
		v    float64
		want float64
	}{
		{tensor.Float32, 2.75, 2.75},
		{tensor.Float32, -1e-3, float64(float32(-1e-3))},
		{tensor.Float64, math.Pi, math.Pi},
		{tensor.Float64, math.Inf(-1), math.Inf(-1)},
		{tensor.Int64, 2.75, 2},
		{tensor.Int64, -2.75, -2},
		{tensor.Int64, 1 << 40, 1 << 40},
		{tensor.Bool, 0, 0},
		{tensor.Bool, 0.5, 1},
		{tensor.Bool, -3, 1},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%v/%v", c.dt, c.v)
		run(t, name+"/contiguous", func(t *testing.T) {
			v := zeros(be, c.dt, 2, 3)
			be.Fill(v, c.v)
			check(t, c.dt, read(t, be, v), seq(6, func(int) float64 { return c.want }))
		})
		run(t, name+"/strided", func(t *testing.T) {
			// Every other column of a 3x4 buffer, starting at column 1.
			b := be.Alloc(c.dt, 12)
			be.Fill(tensor.View{Buf: b, Shape: []int{3, 2}, Strides: []int{4, 2}, Offset: 1}, c.v)
			want := seq(12, func(i int) float64 {
				if i%2 == 1 {
					return c.want
				}
				return 0
			})
			check(t, c.dt, whole(t, be, b), want)
		})
		run(t, name+"/scalar", func(t *testing.T) {
			b := be.Alloc(c.dt, 3)
			be.Fill(tensor.View{Buf: b, Offset: 2}, c.v)
			check(t, c.dt, whole(t, be, b), []float64{0, 0, c.want})
		})
	}
}

// --- Copy ---

// convertRef is the reference conversion of a value held by a src dtype into dst.
func convertRef(dst tensor.DType, v float64) float64 {
	switch dst {
	case tensor.Float32:
		return float64(float32(v))
	case tensor.Int64:
		return math.Trunc(v)
	case tensor.Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}

func testCopy(t *testing.T, be tensor.Backend) {
	vals := []float64{-2.75, -1, 0, 0.5, 1, 3.25, 7.9, -0.4, 100, 2, -6.5, 0.125}
	for _, sdt := range allDTypes {
		for _, ddt := range allDTypes {
			src := asDType(sdt, vals) // what the source buffer really holds
			want := make([]float64, len(src))
			for i, v := range src {
				want[i] = convertRef(ddt, v)
			}
			name := fmt.Sprintf("%v->%v", sdt, ddt)
			run(t, name+"/contiguous", func(t *testing.T) {
				s := contig(be, sdt, vals, 3, 4)
				d := zeros(be, ddt, 3, 4)
				be.Copy(d, s)
				check(t, ddt, read(t, be, d), want)
			})
			run(t, name+"/transposed", func(t *testing.T) {
				s := contig(be, sdt, vals, 3, 4)
				s.Shape, s.Strides = []int{4, 3}, []int{1, 4}
				d := zeros(be, ddt, 4, 3)
				be.Copy(d, s)
				exp := make([]float64, 12)
				for i := 0; i < 4; i++ {
					for j := 0; j < 3; j++ {
						exp[i*3+j] = want[j*4+i]
					}
				}
				check(t, ddt, read(t, be, d), exp)
			})
			run(t, name+"/broadcast", func(t *testing.T) {
				// Row 1 of the 3x4 source repeated 3 times (stride 0).
				s := tensor.View{Buf: buf(be, sdt, vals), Shape: []int{3, 4}, Strides: []int{0, 1}, Offset: 4}
				d := zeros(be, ddt, 3, 4)
				be.Copy(d, s)
				exp := slices.Concat(want[4:8], want[4:8], want[4:8])
				check(t, ddt, read(t, be, d), exp)
			})
			run(t, name+"/scalar-broadcast", func(t *testing.T) {
				s := tensor.View{Buf: buf(be, sdt, vals), Shape: []int{2, 3}, Strides: []int{0, 0}, Offset: 5}
				d := zeros(be, ddt, 2, 3)
				be.Copy(d, s)
				check(t, ddt, read(t, be, d), seq(6, func(int) float64 { return want[5] }))
			})
			run(t, name+"/strided-dst", func(t *testing.T) {
				// Source column 2 (stride 4) into every third element of the destination.
				s := tensor.View{Buf: buf(be, sdt, vals), Shape: []int{3}, Strides: []int{4}, Offset: 2}
				b := be.Alloc(ddt, 9)
				be.Copy(tensor.View{Buf: b, Shape: []int{3}, Strides: []int{3}, Offset: 1}, s)
				exp := []float64{0, want[2], 0, 0, want[6], 0, 0, want[10], 0}
				check(t, ddt, whole(t, be, b), exp)
			})
		}
	}
}

// --- Unary ---

type unaryCase struct {
	op   tensor.UnaryOp
	args []float64
	in   []float64
	ref  func(x float64) float64
}

func sigmoidRef(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func signRef(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

func reluRef(x float64) float64 {
	if x > 0 || math.IsNaN(x) {
		return x
	}
	return 0
}

func clampRef(lo, hi float64) func(float64) float64 {
	return func(x float64) float64 {
		if x < lo {
			x = lo
		}
		if x > hi {
			x = hi
		}
		return x
	}
}

var (
	anyIn   = []float64{-3.5, -1, -0.25, 0, 0.5, 1.25, 2.5, 40, math.NaN()}
	posIn   = []float64{1e-3, 0.25, 1, 2.5, 10, 1e4}
	roundIn = []float64{-2.5, -1.5, -0.5, -0.4, 0.5, 0.6, 1.5, 2.5, 3.49}
)

func floatUnaryCases() map[string]unaryCase {
	return map[string]unaryCase{
		"Neg":         {tensor.OpNeg, nil, anyIn, func(x float64) float64 { return -x }},
		"Exp":         {tensor.OpExp, nil, []float64{-20, -1, 0, 0.5, 3, 20}, math.Exp},
		"Expm1":       {tensor.OpExpm1, nil, []float64{-2, -1e-8, 0, 1e-8, 0.5, 3}, math.Expm1},
		"Log":         {tensor.OpLog, nil, append([]float64{0, -1}, posIn...), math.Log},
		"Log1p":       {tensor.OpLog1p, nil, []float64{-0.5, -1e-8, 0, 1e-8, 2, 100}, math.Log1p},
		"Sqrt":        {tensor.OpSqrt, nil, append([]float64{0, -1}, posIn...), math.Sqrt},
		"Rsqrt":       {tensor.OpRsqrt, nil, posIn, func(x float64) float64 { return 1 / math.Sqrt(x) }},
		"Abs":         {tensor.OpAbs, nil, anyIn, math.Abs},
		"Sign":        {tensor.OpSign, nil, anyIn, signRef},
		"Round":       {tensor.OpRound, nil, roundIn, math.RoundToEven},
		"Floor":       {tensor.OpFloor, nil, anyIn, math.Floor},
		"Ceil":        {tensor.OpCeil, nil, anyIn, math.Ceil},
		"Sigmoid":     {tensor.OpSigmoid, nil, []float64{-800, -20, -1, 0, 1, 20, 800}, sigmoidRef},
		"Tanh":        {tensor.OpTanh, nil, []float64{-30, -1, 0, 0.5, 2, 30}, math.Tanh},
		"Relu":        {tensor.OpRelu, nil, anyIn, reluRef},
		"Erf":         {tensor.OpErf, nil, []float64{-3, -0.5, 0, 0.1, 1, 4}, math.Erf},
		"Sin":         {tensor.OpSin, nil, []float64{-3, -0.5, 0, 0.1, 1, 4}, math.Sin},
		"Cos":         {tensor.OpCos, nil, []float64{-3, -0.5, 0, 0.1, 1, 4}, math.Cos},
		"PowScalar2":  {tensor.OpPowScalar, []float64{2}, anyIn, func(x float64) float64 { return x * x }},
		"PowScalar3":  {tensor.OpPowScalar, []float64{3}, anyIn, func(x float64) float64 { return x * x * x }},
		"PowScalar.5": {tensor.OpPowScalar, []float64{0.5}, posIn, math.Sqrt},
		"PowScalar-1": {tensor.OpPowScalar, []float64{-1}, posIn, func(x float64) float64 { return 1 / x }},
		"PowScalar1.7": {tensor.OpPowScalar, []float64{1.7}, posIn,
			func(x float64) float64 { return math.Pow(x, 1.7) }},
		"PowScalar0": {tensor.OpPowScalar, []float64{0}, posIn, func(float64) float64 { return 1 }},
		"Clamp":      {tensor.OpClamp, []float64{-1, 2}, anyIn, clampRef(-1, 2)},
		"ClampMin": {tensor.OpClamp, []float64{math.Inf(-1), 0.5}, anyIn,
			clampRef(math.Inf(-1), 0.5)},
		"ClampMax": {tensor.OpClamp, []float64{0.5, math.Inf(1)}, anyIn,
			clampRef(0.5, math.Inf(1))},
	}
}

func intUnaryCases() map[string]unaryCase {
	in := []float64{-7, -3, -1, 0, 1, 2, 5, 12}
	return map[string]unaryCase{
		"Neg":        {tensor.OpNeg, nil, in, func(x float64) float64 { return -x }},
		"Abs":        {tensor.OpAbs, nil, in, math.Abs},
		"Sign":       {tensor.OpSign, nil, in, signRef},
		"Round":      {tensor.OpRound, nil, in, func(x float64) float64 { return x }},
		"Floor":      {tensor.OpFloor, nil, in, func(x float64) float64 { return x }},
		"Ceil":       {tensor.OpCeil, nil, in, func(x float64) float64 { return x }},
		"Relu":       {tensor.OpRelu, nil, in, reluRef},
		"PowScalar2": {tensor.OpPowScalar, []float64{2}, in, func(x float64) float64 { return x * x }},
		"PowScalar3": {tensor.OpPowScalar, []float64{3}, in, func(x float64) float64 { return x * x * x }},
		"Clamp":      {tensor.OpClamp, []float64{-2, 4}, in, clampRef(-2, 4)},
		"ClampFrac":  {tensor.OpClamp, []float64{-2.5, 4.5}, in, clampRef(-2, 4)},
		"ClampMin":   {tensor.OpClamp, []float64{0, math.Inf(1)}, in, clampRef(0, math.Inf(1))},
		"ClampMax":   {tensor.OpClamp, []float64{math.Inf(-1), 3}, in, clampRef(math.Inf(-1), 3)},
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func testUnary(t *testing.T, be tensor.Backend) {
	for _, dt := range numDTypes {
		cases := floatUnaryCases()
		if dt == tensor.Int64 {
			cases = intUnaryCases()
		}
		for _, name := range sortedKeys(cases) {
			c := cases[name]
			in := asDType(dt, c.in)
			want := make([]float64, len(in))
			for i, x := range in {
				want[i] = c.ref(x)
			}
			// The reference runs in float64 on the values dt really holds.
			want = asDType(dt, want)
			n := len(in)
			run(t, fmt.Sprintf("%s/%v/contiguous", name, dt), func(t *testing.T) {
				src := contig(be, dt, in, n)
				dst := zeros(be, dt, n)
				be.Unary(c.op, dst, src, c.args...)
				check(t, dt, read(t, be, dst), want)
				check(t, dt, read(t, be, src), in) // source untouched
			})
			run(t, fmt.Sprintf("%s/%v/strided", name, dt), func(t *testing.T) {
				// Source at the odd positions of a 2n buffer, destination at the even ones.
				wide := make([]float64, 2*n)
				for i, x := range in {
					wide[2*i+1] = x
				}
				src := tensor.View{Buf: buf(be, dt, wide), Shape: []int{n}, Strides: []int{2}, Offset: 1}
				b := be.Alloc(dt, 2*n)
				be.Unary(c.op, tensor.View{Buf: b, Shape: []int{n}, Strides: []int{2}}, src, c.args...)
				got := whole(t, be, b)
				for i := range n {
					if !close(got[2*i], want[i], dt) || got[2*i+1] != 0 {
						t.Fatalf("got %v, want %v at even positions and 0 elsewhere", got, want)
					}
				}
			})
			run(t, fmt.Sprintf("%s/%v/broadcast", name, dt), func(t *testing.T) {
				src := tensor.View{Buf: buf(be, dt, in), Shape: []int{3, n}, Strides: []int{0, 1}}
				dst := zeros(be, dt, 3, n)
				be.Unary(c.op, dst, src, c.args...)
				check(t, dt, read(t, be, dst), slices.Concat(want, want, want))
			})
			run(t, fmt.Sprintf("%s/%v/in-place", name, dt), func(t *testing.T) {
				v := contig(be, dt, in, n)
				be.Unary(c.op, v, v, c.args...)
				check(t, dt, read(t, be, v), want)
			})
		}
	}
	for _, lay := range []string{"contiguous", "transposed"} {
		run(t, "Not/bool/"+lay, func(t *testing.T) {
			in := []float64{1, 0, 0, 1, 1, 0}
			src := contig(be, tensor.Bool, in, 2, 3)
			want := []float64{0, 1, 1, 0, 0, 1}
			shape := []int{2, 3}
			if lay == "transposed" {
				src.Shape, src.Strides = []int{3, 2}, []int{1, 3}
				shape = []int{3, 2}
				want = []float64{0, 0, 1, 0, 1, 1}
			}
			dst := zeros(be, tensor.Bool, shape...)
			be.Unary(tensor.OpNot, dst, src)
			check(t, tensor.Bool, read(t, be, dst), want)
		})
	}
}

// --- Binary ---

type binaryCase struct {
	op  tensor.BinaryOp
	a   []float64
	b   []float64
	ref func(x, y float64) float64
}

func maxRef(x, y float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.NaN()
	}
	return math.Max(x, y)
}

func minRef(x, y float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.NaN()
	}
	return math.Min(x, y)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func binaryCases(dt tensor.DType) map[string]binaryCase {
	nan := math.NaN()
	a := []float64{-3, -1.5, 0, 2, 7, 1.25, -4, 5}
	b := []float64{2, -1.5, 4, -3, 7, 0.5, 8, -2}
	if dt == tensor.Int64 {
		a = []float64{-3, -1, 0, 2, 7, 1, -4, 5}
		b = []float64{2, -1, 4, -3, 7, 3, 8, -2}
	}
	an := []float64{nan, 1, nan, -2, 3, 0}
	bn := []float64{1, nan, nan, 5, -1, 0}
	cs := map[string]binaryCase{
		"Add":     {tensor.OpAdd, a, b, func(x, y float64) float64 { return x + y }},
		"Sub":     {tensor.OpSub, a, b, func(x, y float64) float64 { return x - y }},
		"Mul":     {tensor.OpMul, a, b, func(x, y float64) float64 { return x * y }},
		"Maximum": {tensor.OpMaximum, a, b, maxRef},
		"Minimum": {tensor.OpMinimum, a, b, minRef},
		"Eq":      {tensor.OpEq, a, b, func(x, y float64) float64 { return b2f(x == y) }},
		"Ne":      {tensor.OpNe, a, b, func(x, y float64) float64 { return b2f(x != y) }},
		"Lt":      {tensor.OpLt, a, b, func(x, y float64) float64 { return b2f(x < y) }},
		"Le":      {tensor.OpLe, a, b, func(x, y float64) float64 { return b2f(x <= y) }},
		"Gt":      {tensor.OpGt, a, b, func(x, y float64) float64 { return b2f(x > y) }},
		"Ge":      {tensor.OpGe, a, b, func(x, y float64) float64 { return b2f(x >= y) }},
	}
	if dt == tensor.Int64 {
		cs["Pow"] = binaryCase{tensor.OpPow, []float64{-3, -2, 0, 1, 2, 3, 5, 10},
			[]float64{3, 2, 0, 7, 10, 0, 3, 1}, math.Pow}
		return cs
	}
	cs["Div"] = binaryCase{tensor.OpDiv, a, []float64{2, -1.5, 4, -3, 7, 0.5, 0, math.Copysign(0, -1)}, func(x, y float64) float64 { return x / y }}
	cs["Pow"] = binaryCase{tensor.OpPow, []float64{2, 0.5, 3, 10, 1.5, 4, -2, 0},
		[]float64{2, 3, -1, 0.5, 2.5, 0, 3, 2}, math.Pow}
	for _, op := range []string{"Maximum", "Minimum", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "Add"} {
		c := cs[op]
		cs[op+"NaN"] = binaryCase{c.op, an, bn, c.ref}
	}
	return cs
}

// testBinary checks Binary on every numeric case of binaryCases and on
// the logical ops.
func testBinary(t *testing.T, be tensor.Backend) {
	for _, dt := range numDTypes {
		cases := binaryCases(dt)
		for _, name := range sortedKeys(cases) {
			testBinaryCase(t, be, dt, name, cases[name])
		}
	}
	testBinaryLogical(t, be)
}

// testBinaryCase checks the numeric case c in dtype dt on each operand
// layout: contiguous, transposed, a broadcast row of b, a broadcast scalar
// a, and (except comparisons) in place.
func testBinaryCase(t *testing.T, be tensor.Backend, dt tensor.DType, name string, c binaryCase) {
	ddt := dt
	if c.op.IsCompare() {
		ddt = tensor.Bool
	}
	a, b := asDType(dt, c.a), asDType(dt, c.b)
	n := len(a)
	want := make([]float64, n)
	for i := range a {
		want[i] = c.ref(a[i], b[i])
	}
	want = asDType(ddt, want)
	run(t, fmt.Sprintf("%s/%v/contiguous", name, dt), func(t *testing.T) {
		dst := zeros(be, ddt, n)
		be.Binary(c.op, dst, contig(be, dt, a, n), contig(be, dt, b, n))
		check(t, ddt, read(t, be, dst), want)
	})
	run(t, fmt.Sprintf("%s/%v/transposed", name, dt), func(t *testing.T) {
		// a and b stored as (2, n/2) and viewed transposed: element (i, j) is
		// at j*(n/2)+i, so row-major reading of the view interleaves halves.
		h := n / 2
		av := tensor.View{Buf: buf(be, dt, a), Shape: []int{h, 2}, Strides: []int{1, h}}
		bv := tensor.View{Buf: buf(be, dt, b), Shape: []int{h, 2}, Strides: []int{1, h}}
		dst := zeros(be, ddt, h, 2)
		be.Binary(c.op, dst, av, bv)
		exp := make([]float64, n)
		for i := 0; i < h; i++ {
			for j := 0; j < 2; j++ {
				exp[i*2+j] = want[j*h+i]
			}
		}
		check(t, ddt, read(t, be, dst), exp)
	})
	run(t, fmt.Sprintf("%s/%v/broadcast-b", name, dt), func(t *testing.T) {
		// dst[i, j] = a[i, j] op b[j] with b's row broadcast (stride 0).
		h := n / 2
		av := contig(be, dt, a, 2, h)
		bv := tensor.View{Buf: buf(be, dt, b), Shape: []int{2, h}, Strides: []int{0, 1}}
		dst := zeros(be, ddt, 2, h)
		be.Binary(c.op, dst, av, bv)
		exp := asDType(ddt, seq(n, func(i int) float64 { return c.ref(a[i], b[i%h]) }))
		check(t, ddt, read(t, be, dst), exp)
	})
	run(t, fmt.Sprintf("%s/%v/broadcast-a-scalar", name, dt), func(t *testing.T) {
		av := tensor.View{Buf: buf(be, dt, a), Shape: []int{n}, Strides: []int{0}, Offset: 3}
		dst := zeros(be, ddt, n)
		be.Binary(c.op, dst, av, contig(be, dt, b, n))
		exp := asDType(ddt, seq(n, func(i int) float64 { return c.ref(a[3], b[i]) }))
		check(t, ddt, read(t, be, dst), exp)
	})
	if !c.op.IsCompare() {
		run(t, fmt.Sprintf("%s/%v/in-place", name, dt), func(t *testing.T) {
			av := contig(be, dt, a, n)
			be.Binary(c.op, av, av, contig(be, dt, b, n))
			check(t, ddt, read(t, be, av), want)
		})
	}
}

// testBinaryLogical checks And, Or and Xor on bools: the truth table, and
// over a broadcast outer grid.
func testBinaryLogical(t *testing.T, be tensor.Backend) {
	logical := []struct {
		name string
		op   tensor.BinaryOp
		ref  func(x, y bool) bool
	}{
		{"And", tensor.OpAnd, func(x, y bool) bool { return x && y }},
		{"Or", tensor.OpOr, func(x, y bool) bool { return x || y }},
		{"Xor", tensor.OpXor, func(x, y bool) bool { return x != y }},
	}
	a := []float64{0, 0, 1, 1}
	b := []float64{0, 1, 0, 1}
	for _, c := range logical {
		want := seq(4, func(i int) float64 { return b2f(c.ref(a[i] != 0, b[i] != 0)) })
		run(t, c.name+"/bool/truth-table", func(t *testing.T) {
			dst := zeros(be, tensor.Bool, 4)
			be.Binary(c.op, dst, contig(be, tensor.Bool, a, 4), contig(be, tensor.Bool, b, 4))
			check(t, tensor.Bool, read(t, be, dst), want)
		})
		run(t, c.name+"/bool/broadcast", func(t *testing.T) {
			// dst[i, j] = a[i] op b[j] over a 2x2 outer grid.
			av := tensor.View{Buf: buf(be, tensor.Bool, []float64{0, 1}), Shape: []int{2, 2}, Strides: []int{1, 0}}
			bv := tensor.View{Buf: buf(be, tensor.Bool, []float64{0, 1}), Shape: []int{2, 2}, Strides: []int{0, 1}}
			dst := zeros(be, tensor.Bool, 2, 2)
			be.Binary(c.op, dst, av, bv)
			check(t, tensor.Bool, read(t, be, dst), want)
		})
	}
}

// --- Where ---

func testWhere(t *testing.T, be tensor.Backend) {
	cond := []float64{1, 0, 0, 1, 1, 0}
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{-1, -2, -3, -4, -5, -6}
	for _, dt := range allDTypes {
		ab, bb := asDType(dt, a), asDType(dt, b)
		if dt == tensor.Bool {
			bb = []float64{0, 0, 0, 0, 0, 0}
		}
		run(t, dt.String()+"/contiguous", func(t *testing.T) {
			dst := zeros(be, dt, 2, 3)
			be.Where(dst, contig(be, tensor.Bool, cond, 2, 3), contig(be, dt, ab, 2, 3), contig(be, dt, bb, 2, 3))
			check(t, dt, read(t, be, dst), []float64{ab[0], bb[1], bb[2], ab[3], ab[4], bb[5]})
		})
		run(t, dt.String()+"/broadcast-cond", func(t *testing.T) {
			// cond row [1 0 0] broadcast over both rows.
			cv := tensor.View{Buf: buf(be, tensor.Bool, cond), Shape: []int{2, 3}, Strides: []int{0, 1}}
			dst := zeros(be, dt, 2, 3)
			be.Where(dst, cv, contig(be, dt, ab, 2, 3), contig(be, dt, bb, 2, 3))
			check(t, dt, read(t, be, dst), []float64{ab[0], bb[1], bb[2], ab[3], bb[4], bb[5]})
		})
		run(t, dt.String()+"/scalar-operands", func(t *testing.T) {
			av := tensor.View{Buf: buf(be, dt, ab), Shape: []int{2, 3}, Strides: []int{0, 0}, Offset: 4}
			bv := tensor.View{Buf: buf(be, dt, bb), Shape: []int{2, 3}, Strides: []int{0, 0}, Offset: 1}
			dst := zeros(be, dt, 2, 3)
			be.Where(dst, contig(be, tensor.Bool, cond, 2, 3), av, bv)
			x, y := ab[4], bb[1]
			check(t, dt, read(t, be, dst), []float64{x, y, y, x, x, y})
		})
		run(t, dt.String()+"/transposed", func(t *testing.T) {
			cv := tensor.View{Buf: buf(be, tensor.Bool, cond), Shape: []int{3, 2}, Strides: []int{1, 3}}
			av := tensor.View{Buf: buf(be, dt, ab), Shape: []int{3, 2}, Strides: []int{1, 3}}
			dst := zeros(be, dt, 3, 2)
			be.Where(dst, cv, av, contig(be, dt, bb, 3, 2))
			// cond^T = [1 1; 0 1; 0 0], a^T = [a0 a3; a1 a4; a2 a5]
			check(t, dt, read(t, be, dst), []float64{ab[0], ab[3], bb[2], ab[4], bb[4], bb[5]})
		})
	}
}

// --- Reduce ---

// reduceRef reduces vals (row-major, of shape) over dims into the row-major
// values of shape with those dims set to 1. Max and Min propagate NaN; the arg
// ops return the first index of the extreme value, NaN counting as extreme.
func reduceRef(op tensor.ReduceOp, vals []float64, shape, dims []int) []float64 {
	out := slices.Clone(shape)
	red := make([]bool, len(shape))
	for _, d := range dims {
		out[d], red[d] = 1, true
	}
	ostr := tensor.ContiguousStrides(out)
	res := make([]float64, tensor.NumelOf(out))
	best := make([]float64, len(res))
	seen := make([]bool, len(res))
	idx := make([]int, len(shape))
	for flat, v := range vals {
		rem := flat
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d] = rem % shape[d]
			rem /= shape[d]
		}
		o := 0
		for d := range shape {
			if !red[d] {
				o += idx[d] * ostr[d]
			}
		}
		pos := 0.0
		if len(dims) == 1 {
			pos = float64(idx[dims[0]])
		}
		if !seen[o] {
			seen[o] = true
			res[o], best[o] = v, v
			if op == tensor.OpArgMax || op == tensor.OpArgMin {
				res[o] = pos
			}
			continue
		}
		switch op {
		case tensor.OpSum:
			res[o] += v
		case tensor.OpProd:
			res[o] *= v
		case tensor.OpMax:
			res[o] = maxRef(res[o], v)
		case tensor.OpMin:
			res[o] = minRef(res[o], v)
		case tensor.OpArgMax, tensor.OpArgMin:
			if math.IsNaN(best[o]) {
				continue
			}
			better := v > best[o]
			if op == tensor.OpArgMin {
				better = v < best[o]
			}
			if better || math.IsNaN(v) {
				best[o], res[o] = v, pos
			}
		}
	}
	for o := range res {
		if !seen[o] && op == tensor.OpProd {
			res[o] = 1
		}
	}
	return res
}

var reduceNames = map[tensor.ReduceOp]string{
	tensor.OpSum: "Sum", tensor.OpProd: "Prod", tensor.OpMax: "Max", tensor.OpMin: "Min",
	tensor.OpArgMax: "ArgMax", tensor.OpArgMin: "ArgMin",
}

// reduceLayout builds a src view of logical shape [2 3 4] holding vals.
func reduceLayout(be tensor.Backend, dt tensor.DType, vals []float64, layout string) tensor.View {
	switch layout {
	case "permuted":
		// Stored as [4 3 2]: (i, j, k) lives at k*6 + j*2 + i.
		st := make([]float64, 24)
		for i := 0; i < 2; i++ {
			for j := 0; j < 3; j++ {
				for k := 0; k < 4; k++ {
					st[k*6+j*2+i] = vals[i*12+j*4+k]
				}
			}
		}
		return tensor.View{Buf: buf(be, dt, st), Shape: []int{2, 3, 4}, Strides: []int{1, 2, 6}}
	case "broadcast":
		// Dim 1 has stride 0: (i, j, k) is stored at i*4 + k, with an offset of 2.
		st := make([]float64, 10)
		for i := 0; i < 2; i++ {
			for k := 0; k < 4; k++ {
				st[2+i*4+k] = vals[i*12+k]
			}
		}
		return tensor.View{Buf: buf(be, dt, st), Shape: []int{2, 3, 4}, Strides: []int{4, 0, 1}, Offset: 2}
	}
	return contig(be, dt, vals, 2, 3, 4)
}

// testReduce checks Reduce: every op over every set of dims on three
// layouts, NaN handling, and the edge cases.
func testReduce(t *testing.T, be tensor.Backend) {
	ops := []tensor.ReduceOp{tensor.OpSum, tensor.OpProd, tensor.OpMax, tensor.OpMin, tensor.OpArgMax, tensor.OpArgMin}
	for _, op := range ops {
		for _, dt := range numDTypes {
			testReduceLayouts(t, be, op, dt)
		}
	}
	testReduceNaN(t, be, ops)
	testReduceEdges(t, be)
}

// reduceVals returns the 24 input values of a [2 3 4] reduction by op in
// dt: halves in -2.5..2.5, or for Prod a pattern of small factors; whole
// numbers in int64.
func reduceVals(op tensor.ReduceOp, dt tensor.DType) []float64 {
	vals := seq(24, func(i int) float64 { return float64((i*7)%11-5) * 0.5 })
	if op == tensor.OpProd {
		pat := []float64{1, -1, 2, 0.5, -2, 1.5, 1, -0.5}
		vals = seq(24, func(i int) float64 { return pat[(i*5)%8] })
	}
	if dt == tensor.Int64 {
		vals = seq(24, func(i int) float64 { return math.Round(vals[i] * 2) })
		if op == tensor.OpProd {
			vals = seq(24, func(i int) float64 { return float64([]int{1, -1, 2, 1, -2, 1}[(i*5)%6]) })
		}
	}
	return vals
}

// testReduceLayouts checks op in dt over each set of dims of a [2 3 4]
// source in the contiguous, permuted and broadcast layouts (reduceLayout);
// the arg ops take one dim only.
func testReduceLayouts(t *testing.T, be tensor.Backend, op tensor.ReduceOp, dt tensor.DType) {
	shape := []int{2, 3, 4}
	dimSets := [][]int{{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1}, {0, 1, 2}}
	vals := reduceVals(op, dt)
	for _, layout := range []string{"contiguous", "permuted", "broadcast"} {
		lv := vals
		if layout == "broadcast" {
			lv = seq(24, func(i int) float64 { return vals[(i/12)*12+i%4] })
		}
		for _, dims := range dimSets {
			arg := op == tensor.OpArgMax || op == tensor.OpArgMin
			if arg && len(dims) != 1 {
				continue
			}
			ddt := dt
			if arg {
				ddt = tensor.Int64
			}
			out := slices.Clone(shape)
			for _, d := range dims {
				out[d] = 1
			}
			run(t, fmt.Sprintf("%s/%v/%s/dims=%v", reduceNames[op], dt, layout, dims), func(t *testing.T) {
				src := reduceLayout(be, dt, vals, layout)
				dst := zeros(be, ddt, out...)
				be.Reduce(op, dst, src, dims)
				want := reduceRef(op, lv, shape, dims)
				check(t, ddt, read(t, be, dst), asDType(ddt, want))
			})
		}
	}
}

// testReduceNaN checks that each of ops propagates NaN in the float dtypes,
// the arg ops counting it as the extreme value.
func testReduceNaN(t *testing.T, be tensor.Backend, ops []tensor.ReduceOp) {
	nan := math.NaN()
	for _, dt := range floatDTypes {
		// Rows: [1 NaN 3 NaN], [-2 5 5 0]: NaN propagates and counts as extreme.
		vals := []float64{1, nan, 3, nan, -2, 5, 5, 0}
		for _, op := range ops {
			ddt := dt
			if op == tensor.OpArgMax || op == tensor.OpArgMin {
				ddt = tensor.Int64
			}
			run(t, fmt.Sprintf("%s/%v/nan/dims=[1]", reduceNames[op], dt), func(t *testing.T) {
				dst := zeros(be, ddt, 2, 1)
				be.Reduce(op, dst, contig(be, dt, vals, 2, 4), []int{1})
				check(t, ddt, read(t, be, dst), reduceRef(op, vals, []int{2, 4}, []int{1}))
			})
		}
	}
}

// testReduceEdges checks Sum and Prod over an empty dim, that Reduce
// overwrites dst, and a long row.
func testReduceEdges(t *testing.T, be tensor.Backend) {
	for _, dt := range numDTypes {
		for _, op := range []tensor.ReduceOp{tensor.OpSum, tensor.OpProd} {
			run(t, fmt.Sprintf("%s/%v/empty/dims=[1]", reduceNames[op], dt), func(t *testing.T) {
				dst := zeros(be, dt, 2, 1)
				be.Fill(dst, 7)
				be.Reduce(op, dst, zeros(be, dt, 2, 0), []int{1})
				check(t, dt, read(t, be, dst), reduceRef(op, nil, []int{2, 0}, []int{1}))
			})
		}
		run(t, fmt.Sprintf("Sum/%v/overwrites-dst", dt), func(t *testing.T) {
			dst := zeros(be, dt, 1, 3)
			be.Fill(dst, 100)
			be.Reduce(tensor.OpSum, dst, contig(be, dt, []float64{1, 2, 3, 4, 5, 6}, 2, 3), []int{0})
			check(t, dt, read(t, be, dst), []float64{5, 7, 9})
		})
		run(t, fmt.Sprintf("Sum/%v/long-row", dt), func(t *testing.T) {
			n := 10000
			dst := zeros(be, dt, 1)
			be.Reduce(tensor.OpSum, dst, contig(be, dt, seq(n, func(i int) float64 { return float64(i % 3) }), n), []int{0})
			check(t, dt, read(t, be, dst), []float64{float64((n / 3) * 3)})
		})
	}
}

// --- MatMul ---

// matmulRef computes the batched product of a [B, m, k] and b [B, k, n], given
// as functions of (batch, row, col).
func matmulRef(nb, m, k, n int, a, b func(bi, i, j int) float64) []float64 {
	out := make([]float64, nb*m*n)
	for bi := 0; bi < nb; bi++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for p := 0; p < k; p++ {
					s += a(bi, i, p) * b(bi, p, j)
				}
				out[(bi*m+i)*n+j] = s
			}
		}
	}
	return out
}

// testMatMul checks MatMul against matmulRef on 2-D and batched products
// with transposed and broadcast operands, then the edge cases.
func testMatMul(t *testing.T, be tensor.Backend) {
	av := func(bi, i, j int) float64 { return float64((bi*31+i*7+j*3)%9-4) * 0.5 }
	bv := func(bi, i, j int) float64 { return float64((bi*17+i*5+j*11)%7-3) * 0.25 }
	type mmCase struct {
		name    string
		nb      int // 0: plain 2-D
		m, k, n int
		// layouts of a and b (matmulOperand): "rm" row-major, "t" stored
		// transposed, "b0" batch stride 0, "b0t" both
		al, bl string
	}
	cases := []mmCase{
		{"2d", 0, 2, 3, 4, "rm", "rm"},
		{"2d/square", 0, 5, 5, 5, "rm", "rm"},
		{"2d/k=1", 0, 3, 1, 2, "rm", "rm"},
		{"2d/m=1", 0, 1, 6, 3, "rm", "rm"},
		{"2d/n=1", 0, 4, 6, 1, "rm", "rm"},
		{"2d/a-transposed", 0, 3, 4, 2, "t", "rm"},
		{"2d/b-transposed", 0, 3, 4, 2, "rm", "t"},
		{"2d/both-transposed", 0, 3, 4, 5, "t", "t"},
		{"2d/larger", 0, 33, 65, 17, "rm", "rm"},
		{"batched", 3, 2, 3, 4, "rm", "rm"},
		{"batched/b-broadcast", 3, 2, 3, 4, "rm", "b0"},
		{"batched/a-broadcast", 2, 4, 3, 2, "b0", "rm"},
		{"batched/a-transposed", 2, 3, 5, 2, "t", "rm"},
		{"batched/b-transposed-broadcast", 4, 2, 3, 5, "rm", "b0t"},
	}
	for _, c := range cases {
		for _, dt := range floatDTypes {
			run(t, fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				a, af := matmulOperand(be, dt, c.nb, c.m, c.k, c.al, av)
				b, bf := matmulOperand(be, dt, c.nb, c.k, c.n, c.bl, bv)
				shape := []int{c.m, c.n}
				if c.nb > 0 {
					shape = []int{c.nb, c.m, c.n}
				}
				dst := zeros(be, dt, shape...)
				be.Fill(dst, 99) // MatMul overwrites, it does not accumulate
				be.MatMul(dst, a, b)
				want := matmulRef(max(c.nb, 1), c.m, c.k, c.n, af, bf)
				check(t, dt, read(t, be, dst), want)
			})
		}
	}
	testMatMulEdges(t, be)
}

// matmulOperand builds the view of a [nb, r, c] operand with values f (a
// plain [r, c] matrix when nb is 0) in layout: "rm" row-major, "t" each
// batch stored transposed, "b0" one batch broadcast (stride 0), "b0t" one
// transposed batch broadcast. It also returns the values the view holds,
// which for a broadcast operand are batch 0's in every batch.
func matmulOperand(be tensor.Backend, dt tensor.DType, nb, r, c int, layout string, f func(bi, i, j int) float64) (tensor.View, func(bi, i, j int) float64) {
	batches := max(nb, 1)
	logical := f
	if layout == "b0" || layout == "b0t" {
		logical = func(_, i, j int) float64 { return f(0, i, j) }
		batches = 1
	}
	var vals []float64
	var strides []int
	if layout == "t" || layout == "b0t" {
		// each batch stored as [c, r]
		vals = make([]float64, batches*r*c)
		for bi := 0; bi < batches; bi++ {
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					vals[bi*r*c+j*r+i] = f(bi, i, j)
				}
			}
		}
		strides = []int{r * c, 1, r}
	} else {
		vals = make([]float64, batches*r*c)
		for bi := 0; bi < batches; bi++ {
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					vals[bi*r*c+i*c+j] = f(bi, i, j)
				}
			}
		}
		strides = []int{r * c, c, 1}
	}
	if layout == "b0" || layout == "b0t" {
		strides[0] = 0
	}
	v := tensor.View{Buf: buf(be, dt, vals), Shape: []int{max(nb, 1), r, c}, Strides: strides}
	if nb == 0 {
		v.Shape, v.Strides = v.Shape[1:], v.Strides[1:]
	}
	return v, logical
}

// testMatMulEdges checks a product over an empty inner dim (zeros) and a
// destination that is a transposed view.
func testMatMulEdges(t *testing.T, be tensor.Backend) {
	for _, dt := range floatDTypes {
		run(t, fmt.Sprintf("2d/k=0/%v", dt), func(t *testing.T) {
			dst := zeros(be, dt, 2, 3)
			be.Fill(dst, 5)
			be.MatMul(dst, zeros(be, dt, 2, 0), zeros(be, dt, 0, 3))
			check(t, dt, read(t, be, dst), make([]float64, 6))
		})
		run(t, fmt.Sprintf("2d/strided-dst/%v", dt), func(t *testing.T) {
			// dst is the transposed view of a [3 2] buffer.
			b := be.Alloc(dt, 6)
			dst := tensor.View{Buf: b, Shape: []int{2, 3}, Strides: []int{1, 2}}
			be.MatMul(dst, contig(be, dt, []float64{1, 2, 3, 4}, 2, 2), contig(be, dt, []float64{1, 0, 2, 0, 1, 3}, 2, 3))
			// product = [[1 2 8] [3 4 18]]
			check(t, dt, read(t, be, dst), []float64{1, 2, 8, 3, 4, 18})
			check(t, dt, whole(t, be, b), []float64{1, 3, 2, 4, 8, 18})
		})
	}
}

// --- Gather ---

func gatherRef(src []float64, sshape []int, index []float64, ishape []int, dim int) []float64 {
	sstr, istr := tensor.ContiguousStrides(sshape), tensor.ContiguousStrides(ishape)
	out := make([]float64, len(index))
	for flat := range index {
		off := 0
		rem := flat
		for d := range ishape {
			i := rem / istr[d]
			rem %= istr[d]
			if d == dim {
				i = int(index[flat])
			}
			off += i * sstr[d]
		}
		out[flat] = src[off]
	}
	return out
}

func testGather(t *testing.T, be tensor.Backend) {
	src := seq(12, func(i int) float64 { return float64(i*3%7) - 2.5 })
	cases := []struct {
		name   string
		sshape []int
		index  []float64
		ishape []int
		dim    int
	}{
		{"dim0", []int{3, 4}, []float64{2, 0, 1, 1, 0, 0, 2, 2}, []int{2, 4}, 0},
		{"dim1", []int{3, 4}, []float64{3, 0, 0, 1, 2, 2, 3, 3, 1}, []int{3, 3}, 1},
		{"dim-1-smaller", []int{3, 4}, []float64{1, 3}, []int{2, 1}, 1},
		{"3d/dim1", []int{2, 3, 2}, []float64{2, 0, 1, 1, 0, 2, 2, 2}, []int{2, 2, 2}, 1},
		{"3d/dim2", []int{2, 3, 2}, []float64{1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0}, []int{2, 3, 2}, 2},
		{"1d", []int{12}, []float64{11, 0, 5, 5, 3}, []int{5}, 0},
	}
	for _, dt := range allDTypes {
		sv := asDType(dt, src)
		for _, c := range cases {
			run(t, fmt.Sprintf("%v/%s", dt, c.name), func(t *testing.T) {
				dst := zeros(be, dt, c.ishape...)
				be.Gather(dst, contig(be, dt, sv, c.sshape...), contig(be, tensor.Int64, c.index, c.ishape...), c.dim)
				check(t, dt, read(t, be, dst), gatherRef(sv, c.sshape, c.index, c.ishape, c.dim))
			})
		}
		run(t, dt.String()+"/transposed-src", func(t *testing.T) {
			// src is the [4 3] transpose of the [3 4] buffer; gather along dim 0.
			sview := tensor.View{Buf: buf(be, dt, sv), Shape: []int{4, 3}, Strides: []int{1, 4}}
			logical := make([]float64, 12)
			for i := 0; i < 4; i++ {
				for j := 0; j < 3; j++ {
					logical[i*3+j] = sv[j*4+i]
				}
			}
			index := []float64{3, 0, 2, 1, 1, 0}
			dst := zeros(be, dt, 2, 3)
			be.Gather(dst, sview, contig(be, tensor.Int64, index, 2, 3), 0)
			check(t, dt, read(t, be, dst), gatherRef(logical, []int{4, 3}, index, []int{2, 3}, 0))
		})
		run(t, dt.String()+"/broadcast-index", func(t *testing.T) {
			// index row [2 0 1 3] repeated for each of 3 rows via stride 0.
			iv := tensor.View{Buf: buf(be, tensor.Int64, []float64{2, 0, 1, 3}), Shape: []int{3, 4}, Strides: []int{0, 1}}
			dst := zeros(be, dt, 3, 4)
			be.Gather(dst, contig(be, dt, sv, 3, 4), iv, 1)
			idx := []float64{2, 0, 1, 3, 2, 0, 1, 3, 2, 0, 1, 3}
			check(t, dt, read(t, be, dst), gatherRef(sv, []int{3, 4}, idx, []int{3, 4}, 1))
		})
	}
}

// --- Scatter ---

func scatterRef(dst []float64, dshape []int, index []float64, ishape []int, src []float64, dim int, acc bool) []float64 {
	out := slices.Clone(dst)
	dstr, istr := tensor.ContiguousStrides(dshape), tensor.ContiguousStrides(ishape)
	for flat := range index {
		off := 0
		rem := flat
		for d := range ishape {
			i := rem / istr[d]
			rem %= istr[d]
			if d == dim {
				i = int(index[flat])
			}
			off += i * dstr[d]
		}
		if acc {
			out[off] += src[flat]
		} else {
			out[off] = src[flat]
		}
	}
	return out
}

func testScatter(t *testing.T, be tensor.Backend) {
	base := seq(12, func(i int) float64 { return float64(i) })
	cases := []struct {
		name   string
		dshape []int
		index  []float64
		ishape []int
		dim    int
		unique bool // no two index entries hit the same destination element
	}{
		{"dim0/unique", []int{3, 4}, []float64{2, 0, 1, 1, 0, 1, 2, 0}, []int{2, 4}, 0, true},
		{"dim1/unique", []int{3, 4}, []float64{3, 0, 1, 2, 0, 3, 1, 2, 0}, []int{3, 3}, 1, true},
		{"dim1/duplicates", []int{3, 4}, []float64{1, 1, 1, 0, 3, 0, 2, 2, 2}, []int{3, 3}, 1, false},
		{"dim0/duplicates", []int{3, 4}, []float64{0, 0, 2, 2, 0, 1, 2, 2}, []int{2, 4}, 0, false},
		{"3d/dim2", []int{2, 3, 2}, []float64{1, 0, 0, 1, 1, 0}, []int{1, 3, 2}, 2, true},
		{"1d/duplicates", []int{12}, []float64{3, 3, 3, 11, 0}, []int{5}, 0, false},
	}
	for _, acc := range []bool{false, true} {
		mode := "overwrite"
		dts := allDTypes
		if acc {
			mode = "accumulate"
			dts = numDTypes
		}
		for _, dt := range dts {
			for _, c := range cases {
				if !acc && !c.unique {
					continue // overwrite order with duplicates is unspecified
				}
				run(t, fmt.Sprintf("%s/%v/%s", mode, dt, c.name), func(t *testing.T) {
					d0 := asDType(dt, base)
					src := asDType(dt, seq(len(c.index), func(i int) float64 { return float64(i+1) * -1.5 }))
					if dt == tensor.Bool {
						d0 = make([]float64, 12)
						src = seq(len(c.index), func(i int) float64 { return 1 })
					}
					dst := contig(be, dt, d0, c.dshape...)
					be.Scatter(dst, contig(be, tensor.Int64, c.index, c.ishape...), contig(be, dt, src, c.ishape...), c.dim, acc)
					check(t, dt, read(t, be, dst), scatterRef(d0, c.dshape, c.index, c.ishape, src, c.dim, acc))
				})
			}
			run(t, fmt.Sprintf("%s/%v/strided-dst", mode, dt), func(t *testing.T) {
				// dst is column 1..2 of a [3 4] buffer: shape [3 2], strides [4 1], offset 1.
				d0 := asDType(dt, base)
				if dt == tensor.Bool {
					d0 = make([]float64, 12)
				}
				b := buf(be, dt, d0)
				dst := tensor.View{Buf: b, Shape: []int{3, 2}, Strides: []int{4, 1}, Offset: 1}
				index := []float64{1, 0, 2}
				src := asDType(dt, []float64{5, 6, 7})
				if dt == tensor.Bool {
					src = []float64{1, 1, 1}
				}
				be.Scatter(dst, contig(be, tensor.Int64, index, 3, 1), contig(be, dt, src, 3, 1), 0, acc)
				// logical dst[index[i], 0] (op)= src[i] -> buffer position 1 + index[i]*4
				want := slices.Clone(d0)
				for i, ix := range index {
					p := 1 + int(ix)*4
					if acc {
						want[p] += src[i]
					} else {
						want[p] = src[i]
					}
				}
				check(t, dt, whole(t, be, b), want)
			})
		}
	}
}
