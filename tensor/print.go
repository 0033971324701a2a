package tensor

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// PrintOptions controls how String formats tensors, as torch.set_printoptions:
// Precision is the number of digits after the decimal point, tensors with more
// than Threshold elements are summarised with "..." showing EdgeItems items at
// each end of every dim, and LineWidth is the number of characters per line
// before wrapping.
type PrintOptions struct {
	Precision int
	Threshold int
	EdgeItems int
	LineWidth int
}

// DefaultPrintOptions returns PyTorch's defaults: precision 4, threshold 1000,
// 3 edge items, line width 80.
func DefaultPrintOptions() PrintOptions {
	return PrintOptions{Precision: 4, Threshold: 1000, EdgeItems: 3, LineWidth: 80}
}

var printOpts atomic.Pointer[PrintOptions]

func init() {
	o := DefaultPrintOptions()
	printOpts.Store(&o)
}

// SetPrintOptions replaces the options String uses and returns the previous ones,
// so that a caller can restore them. Negative fields panic with ErrArg.
func SetPrintOptions(o PrintOptions) PrintOptions {
	if o.Precision < 0 || o.Threshold < 0 || o.EdgeItems < 0 || o.LineWidth < 0 {
		Panicf("SetPrintOptions", ErrArg, "options must be non-negative, got %+v", o)
	}
	return *printOpts.Swap(&o)
}

// String formats t as PyTorch's repr does, for example
//
//	tensor([[ 1.0000, -2.5000],
//	        [ 3.0000,  4.0000]])
//
// Floats whose values are all integers print as "1."; otherwise with Precision
// decimals, switching to scientific notation when the largest and smallest
// non-zero magnitudes differ by more than 1000x, the largest exceeds 1e8 or the
// smallest is below 1e-4. Non-default dtypes (all but Float32, Int64 and Bool)
// add "dtype=float64"; empty tensors print "[]" with their size and (unless
// Float32) dtype. Tensors over the Threshold are summarised with "...".
func (t *Tensor) String() string { return t.StringWith() }

// StringWith is String with extra "key=value" entries appended inside the
// parentheses after the dtype, as PyTorch shows grad_fn=<MulBackward0> or
// requires_grad=True.
func (t *Tensor) StringWith(extras ...string) string {
	if t == nil {
		return "tensor(nil)"
	}
	o := *printOpts.Load()
	const prefix = "tensor("
	indent := len(prefix)
	var suffixes []string
	var body string
	dt := t.DType()
	if t.Numel() == 0 {
		if t.Dim() != 1 {
			suffixes = append(suffixes, "size="+tupleString(t.shape))
		}
		if dt != Float32 {
			suffixes = append(suffixes, "dtype="+dt.String())
		}
		body = "[]"
	} else {
		if dt != Float32 && dt != Int64 && dt != Bool {
			suffixes = append(suffixes, "dtype="+dt.String())
		}
		body = newPrinter(t, o).str(indent)
	}
	suffixes = append(suffixes, extras...)
	return addSuffixes(prefix+body, suffixes, indent, o.LineWidth)
}

// tupleString writes a shape as a Python tuple: (2, 3), (0,), ().
func tupleString(s []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(v))
	}
	if len(s) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// addSuffixes appends ", key=value" entries, starting a new line for an entry
// that would overflow the line width.
func addSuffixes(s string, suffixes []string, indent, width int) string {
	var b strings.Builder
	b.WriteString(s)
	last := len(s) - strings.LastIndexByte(s, '\n') + 1
	for _, suf := range suffixes {
		if last+len(suf)+2 > width {
			b.WriteString(",\n")
			b.WriteString(strings.Repeat(" ", indent))
			b.WriteString(suf)
			last = indent + len(suf)
		} else {
			b.WriteString(", ")
			b.WriteString(suf)
			last += len(suf) + 2
		}
	}
	b.WriteByte(')')
	return b.String()
}

// printer formats the elements of one tensor, read from a row-major host copy.
type printer struct {
	o         PrintOptions
	shape     []int
	strides   []int
	dt        DType
	f         []float64 // Float32 / Float64 elements
	i         []int64
	b         []bool
	summarize bool
	// formatter state, as torch's _Formatter
	intMode bool
	sci     bool
	width   int
}

func newPrinter(t *Tensor, o PrintOptions) *printer {
	p := &printer{o: o, shape: t.shape, strides: contiguousStrides(t.shape), dt: t.DType()}
	switch p.dt {
	case Float32, Float64:
		p.f = ToSlice[float64](t)
	case Int64:
		p.i = ToSlice[int64](t)
	case Bool:
		p.b = ToSlice[bool](t)
	}
	p.summarize = t.Numel() > o.Threshold
	p.initFormatter()
	return p
}

// shown lists the flat positions of the elements that will be printed (all of
// them, or the edge items of every dim when summarising).
func (p *printer) shown() []int {
	var out []int
	var walk func(d, off int)
	walk = func(d, off int) {
		if d == len(p.shape) {
			out = append(out, off)
			return
		}
		for _, i := range p.indices(p.shape[d]) {
			if i >= 0 {
				walk(d+1, off+i*p.strides[d])
			}
		}
	}
	walk(0, 0)
	return out
}

// indices returns the positions printed along a dim of size n, with -1 where
// the "..." goes.
func (p *printer) indices(n int) []int {
	e := p.o.EdgeItems
	var out []int
	if p.summarize && n > 2*e {
		for i := range e {
			out = append(out, i)
		}
		out = append(out, -1)
		for i := n - e; i < n; i++ {
			out = append(out, i)
		}
		return out
	}
	for i := range n {
		out = append(out, i)
	}
	return out
}

func (p *printer) initFormatter() {
	p.width = 1
	pos := p.shown()
	if p.dt != Float32 && p.dt != Float64 {
		for _, k := range pos {
			p.width = max(p.width, len(p.rawElem(k)))
		}
		return
	}
	p.intMode = true
	lo, hi := math.Inf(1), 0.0
	var vals []float64
	for _, k := range pos {
		v := p.f[k]
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		vals = append(vals, v)
		a := math.Abs(v)
		lo, hi = min(lo, a), max(hi, a)
		if v != math.Ceil(v) {
			p.intMode = false
		}
	}
	if len(vals) == 0 {
		return
	}
	prec := p.o.Precision
	switch {
	case p.intMode && (hi/lo > 1000 || hi > 1e8):
		p.sci = true
	case !p.intMode && (hi/lo > 1000 || hi > 1e8 || lo < 1e-4):
		p.sci = true
	}
	for _, v := range vals {
		switch {
		case p.sci:
			p.width = max(p.width, len(fmtSci(v, prec)))
		case p.intMode:
			p.width = max(p.width, len(strconv.FormatFloat(v, 'f', 0, 64))+1)
		default:
			p.width = max(p.width, len(strconv.FormatFloat(v, 'f', prec, 64)))
		}
	}
}

// fmtSci formats v as Python's "{:.Pe}": d.ddddde+XX with at least two exponent digits.
func fmtSci(v float64, prec int) string { return strconv.FormatFloat(v, 'e', prec, 64) }

// nonFinite formats NaN and ±Inf as Python does.
func nonFinite(v float64) (string, bool) {
	switch {
	case math.IsNaN(v):
		return "nan", true
	case math.IsInf(v, 1):
		return "inf", true
	case math.IsInf(v, -1):
		return "-inf", true
	}
	return "", false
}

// rawElem formats element k without padding.
func (p *printer) rawElem(k int) string {
	switch p.dt {
	case Int64:
		return strconv.FormatInt(p.i[k], 10)
	case Bool:
		if p.b[k] {
			return "True"
		}
		return "False"
	}
	v := p.f[k]
	if s, ok := nonFinite(v); ok {
		return s
	}
	switch {
	case p.sci:
		return fmtSci(v, p.o.Precision)
	case p.intMode:
		return strconv.FormatFloat(v, 'f', 0, 64) + "."
	}
	return strconv.FormatFloat(v, 'f', p.o.Precision, 64)
}

// elem formats element k right-aligned to the common width.
func (p *printer) elem(k int) string {
	s := p.rawElem(k)
	if n := p.width - len(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

func (p *printer) str(indent int) string {
	var b strings.Builder
	p.write(&b, 0, 0, indent)
	return b.String()
}

// write formats the sub-tensor at dim d starting at flat offset off; indent is
// the column where its opening bracket sits (plus one).
func (p *printer) write(b *strings.Builder, d, off, indent int) {
	rank := len(p.shape)
	if rank == 0 {
		b.WriteString(p.elem(0))
		return
	}
	idx := p.indices(p.shape[d])
	if d == rank-1 {
		per := max(1, (p.o.LineWidth-indent)/(p.width+2))
		b.WriteByte('[')
		for j, i := range idx {
			if j > 0 {
				if j%per == 0 {
					b.WriteString(",\n")
					b.WriteString(strings.Repeat(" ", indent+1))
				} else {
					b.WriteString(", ")
				}
			}
			if i < 0 {
				b.WriteString(" ...")
				continue
			}
			b.WriteString(p.elem(off + i*p.strides[d]))
		}
		b.WriteByte(']')
		return
	}
	sep := "," + strings.Repeat("\n", rank-d-1) + strings.Repeat(" ", indent+1)
	b.WriteByte('[')
	for j, i := range idx {
		if j > 0 {
			b.WriteString(sep)
		}
		if i < 0 {
			b.WriteString("...")
			continue
		}
		p.write(b, d+1, off+i*p.strides[d], indent+1)
	}
	b.WriteByte(']')
}
