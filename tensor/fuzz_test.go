package tensor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Fuzz targets. Their seeds (f.Add below and testdata/fuzz/<FuzzName>/) run as
// ordinary tests; `go test -run '^$' -fuzz '^FuzzViewStrides$' -fuzztime 10s
// ./tensor` explores further.

// fuzzBytes hands out small integers from a fuzz input, then zeros when it runs dry.
type fuzzBytes struct {
	b []byte
	i int
}

func (r *fuzzBytes) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	v := r.b[r.i]
	r.i++
	return int(v)
}

func (r *fuzzBytes) intn(n int) int { return r.next() % n }

func (r *fuzzBytes) done() bool { return r.i >= len(r.b) }

// shape reads a rank in [0, maxRank] and dims in [0, maxDim]; zero-size dims
// are rare (one in 16) so most inputs have elements.
func (r *fuzzBytes) shape(minRank, maxRank, maxDim int) []int {
	s := make([]int, minRank+r.intn(maxRank-minRank+1))
	for i := range s {
		v := r.next()
		if v%16 == 15 {
			s[i] = 0
		} else {
			s[i] = 1 + v%maxDim
		}
	}
	return s
}

// expectAgxError checks that f panics with an *Error wrapping kind.
func expectAgxError(t *testing.T, what string, kind error, f func()) {
	t.Helper()
	err := try(f)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: want an *Error wrapping %v, got %v", what, kind, err)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("%s: error %v does not wrap %v", what, err, kind)
	}
}

func naiveBroadcast(a, b []int) ([]int, bool) {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := range out {
		x, y := 1, 1
		if j := i - (n - len(a)); j >= 0 {
			x = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			y = b[j]
		}
		switch {
		case x == y || y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			return nil, false
		}
	}
	return out, true
}

func FuzzBroadcastShapes(f *testing.F) {
	f.Add([]byte{2, 3, 1, 1, 4})
	f.Add([]byte{3, 2, 2, 1, 2, 1, 3})
	f.Add([]byte{0, 4, 1, 2, 3, 4})
	f.Add([]byte{2, 2, 2, 3, 3, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzBytes{b: data}
		a, b := r.shape(0, 4, 4), r.shape(0, 4, 4)
		want, ok := naiveBroadcast(a, b)
		var got, rev []int
		err := try(func() { got = BroadcastShapes("Fuzz", a, b) })
		errRev := try(func() { rev = BroadcastShapes("Fuzz", b, a) })
		if !ok {
			if err == nil || errRev == nil {
				t.Fatalf("BroadcastShapes(%v, %v) = %v / %v, want an error", a, b, got, rev)
			}
			if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "not broadcastable") {
				t.Fatalf("BroadcastShapes(%v, %v): error %q", a, b, err)
			}
			return
		}
		if err != nil || errRev != nil {
			t.Fatalf("BroadcastShapes(%v, %v): unexpected error %v / %v", a, b, err, errRev)
		}
		if !slices.Equal(got, want) || !slices.Equal(rev, want) {
			t.Fatalf("BroadcastShapes(%v, %v) = %v (reversed %v), want %v", a, b, got, rev, want)
		}
		// Broadcasting a tensor to the result is a view with the reference values.
		x := arangeTensor(a)
		bx := x.BroadcastTo(want...)
		if !bx.SameStorage(x) || !slices.Equal(bx.Float64s(), refArange(a).expand(want).data) {
			t.Fatalf("BroadcastTo(%v -> %v) = %v", a, want, bx.Float64s())
		}
	})
}

// fuzzFactorShape reads a shape with exactly n elements.
func (r *fuzzBytes) factorShape(n int) []int {
	var shape []int
	for n > 1 {
		var divs []int
		for d := 2; d <= n; d++ {
			if n%d == 0 {
				divs = append(divs, d)
			}
		}
		d := divs[r.intn(len(divs))]
		shape = slices.Insert(shape, r.intn(len(shape)+1), d)
		n /= d
	}
	if n == 0 {
		shape = append(shape, 0)
		if r.intn(2) == 0 {
			shape = append(shape, r.intn(4))
		}
	}
	for k := r.intn(3); k > 0; k-- {
		shape = slices.Insert(shape, r.intn(len(shape)+1), 1)
	}
	return shape
}

func FuzzViewStrides(f *testing.F) {
	f.Add([]byte{2, 2, 3, 3, 1, 0, 0})
	f.Add([]byte{2, 3, 4, 1, 3, 1, 1})
	f.Add([]byte{3, 2, 1, 3, 6, 9, 2, 1, 0, 1})
	f.Add([]byte{2, 2, 2, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzBytes{b: data}
		old := r.shape(0, 4, 4)
		strides := make([]int, len(old))
		for i := range strides {
			strides[i] = r.intn(13)
		}
		ns := r.factorShape(refNumel(old))
		got, ok := viewStrides(old, strides, ns)
		_, can := noCopyStrides(old, strides, ns)
		if ok != can {
			t.Fatalf("viewStrides(%v, %v, %v) ok=%v, brute force says %v", old, strides, ns, ok, can)
		}
		if !ok {
			return
		}
		if len(got) != len(ns) {
			t.Fatalf("viewStrides(%v, %v, %v) = %v: wrong rank", old, strides, ns, got)
		}
		// Every element must keep its address.
		n := refNumel(old)
		for flat := 0; flat < n; flat++ {
			ao, an := 0, 0
			rem := flat
			for d := len(old) - 1; d >= 0; d-- {
				ao += (rem % old[d]) * strides[d]
				rem /= old[d]
			}
			rem = flat
			for d := len(ns) - 1; d >= 0; d-- {
				an += (rem % ns[d]) * got[d]
				rem /= ns[d]
			}
			if ao != an {
				t.Fatalf("viewStrides(%v, %v, %v) = %v: element %d at %d, was at %d", old, strides, ns, got, flat, an, ao)
			}
		}
	})
}

// naiveOffsets lists the per-operand offsets of every element of shape, in
// row-major order, with a plain odometer.
func naiveOffsets(shape []int, strides [][]int, offsets []int) [][]int {
	var out [][]int
	if refNumel(shape) == 0 {
		return out
	}
	idx := make([]int, len(shape))
	for {
		tup := make([]int, len(strides))
		for k := range strides {
			tup[k] = offsets[k]
			for d := range shape {
				tup[k] += idx[d] * strides[k][d]
			}
		}
		out = append(out, tup)
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return out
		}
	}
}

func expandRow(offs []int, n int, inner []int) [][]int {
	var out [][]int
	for i := 0; i < n; i++ {
		tup := make([]int, len(offs))
		for k := range offs {
			tup[k] = offs[k] + i*inner[k]
		}
		out = append(out, tup)
	}
	return out
}

func cmpTuple(a, b []int) int { return slices.Compare(a, b) }

func sameTuples(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

// withParallelMin runs f with parallelMin set to n.
func withParallelMin(n int, f func()) {
	old := parallelMin
	parallelMin = n
	defer func() { parallelMin = old }()
	f()
}

func FuzzCollapse(f *testing.F) {
	f.Add([]byte{2, 3, 4, 1, 4, 1, 0, 0})
	f.Add([]byte{3, 2, 3, 4, 2, 12, 4, 1, 0, 1, 0, 2, 5})
	f.Add([]byte{1, 40, 2, 1, 1, 3, 0})
	f.Add([]byte{4, 1, 2, 1, 2, 3, 9, 9, 9, 9, 8, 4, 2, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzBytes{b: data}
		shape := r.shape(0, 4, 5)
		if r.intn(4) == 0 && len(shape) > 0 {
			shape[r.intn(len(shape))] = 20 + r.intn(60) // a long row
		}
		nops := 1 + r.intn(3)
		strides := make([][]int, nops)
		offsets := make([]int, nops)
		for k := range strides {
			if r.intn(2) == 0 {
				strides[k] = contiguousStrides(shape)
			} else {
				strides[k] = make([]int, len(shape))
				for d := range shape {
					strides[k][d] = r.intn(7)
				}
			}
			offsets[k] = r.intn(6)
		}
		want := naiveOffsets(shape, strides, offsets)
		desc := fmt.Sprintf("shape %v strides %v offsets %v", shape, strides, offsets)

		// collapse keeps the element order.
		cs, cst := collapse(shape, strides)
		if got := naiveOffsets(cs, cst, offsets); !sameTuples(got, want) {
			t.Fatalf("%s: collapsed to %v %v, which visits %v, want %v", desc, cs, cst, got, want)
		}
		if len(cs) > max(len(shape), 1) {
			t.Fatalf("%s: collapse grew the rank to %v", desc, cs)
		}

		var got [][]int
		forEachIndex(shape, strides, offsets, func(o []int) { got = append(got, slices.Clone(o)) })
		if !sameTuples(got, want) {
			t.Fatalf("%s: forEachIndex visits %v, want %v", desc, got, want)
		}

		got = nil
		withParallelMin(1<<30, func() {
			forEachRow(shape, strides, offsets, func(o []int, n int, in []int) { got = append(got, expandRow(o, n, in)...) })
		})
		if !sameTuples(got, want) {
			t.Fatalf("%s: serial forEachRow visits %v, want %v", desc, got, want)
		}

		var mu sync.Mutex
		got = nil
		withParallelMin(1, func() {
			forEachRow(shape, strides, offsets, func(o []int, n int, in []int) {
				rows := expandRow(o, n, in)
				mu.Lock()
				got = append(got, rows...)
				mu.Unlock()
			})
		})
		slices.SortFunc(got, cmpTuple)
		sorted := slices.Clone(want)
		slices.SortFunc(sorted, cmpTuple)
		if !sameTuples(got, sorted) {
			t.Fatalf("%s: parallel forEachRow visits %v, want the multiset %v", desc, got, sorted)
		}
	})
}

func FuzzPermuteNarrowSlice(f *testing.F) {
	f.Add([]byte{2, 3, 4, 0, 1, 0, 1, 1, 1, 2, 2, 1, 0, 7, 1})
	f.Add([]byte{3, 2, 3, 4, 2, 2, 250, 3, 2, 3, 1, 0, 1})
	f.Add([]byte{1, 5, 3, 0, 1, 4, 2, 0, 1, 1})
	f.Add([]byte{2, 4, 4, 3, 0, 2, 1, 1, 0, 2, 2, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzBytes{b: data}
		shape := r.shape(1, 4, 5)
		base := arangeTensor(shape)
		x, ref := base, refArange(shape)
		var log []string
		small := func() int { // mostly in [-6, 6], rarely huge
			switch v := r.next(); v {
			case 255:
				return math.MaxInt
			case 254:
				return math.MinInt
			default:
				return v%13 - 6
			}
		}
		for steps := 0; steps < 8 && !r.done(); steps++ {
			n := x.Dim()
			switch r.intn(4) {
			case 0: // Permute, sometimes with negative or repeated dims
				perm := make([]int, n)
				for i := range perm {
					perm[i] = i
				}
				for i := n - 1; i > 0; i-- {
					j := r.intn(i + 1)
					perm[i], perm[j] = perm[j], perm[i]
				}
				arg := slices.Clone(perm)
				if n > 0 && r.intn(4) == 0 {
					arg[0] -= n // negative dims count from the end
				}
				if n > 1 && r.intn(8) == 0 {
					arg[1] = arg[0] // a repeated dim
					expectAgxError(t, fmt.Sprintf("%v Permute%v", log, arg), ErrArg, func() { x.Permute(arg...) })
					continue
				}
				x = x.Permute(arg...)
				ref = ref.permute(perm)
				log = append(log, fmt.Sprintf("Permute%v", arg))
			case 1: // Narrow
				d, start, length := small(), small(), small()
				what := fmt.Sprintf("%v Narrow(%d,%d,%d) of %v", log, d, start, length, x.Shape())
				if n == 0 || d < -n || d >= n {
					expectAgxError(t, what, ErrIndex, func() { x.Narrow(d, start, length) })
					continue
				}
				if d < 0 {
					d += n
				}
				size := ref.shape[d]
				s := start
				if s < 0 {
					s += size
				}
				if s < 0 || length < 0 || s > size || length > size-s {
					expectAgxError(t, what, ErrIndex, func() { x.Narrow(d, start, length) })
					continue
				}
				x = x.Narrow(d, start, length)
				ref = ref.narrow(d, s, length)
				log = append(log, what)
			case 2: // Slice
				d, start, stop, step := small(), small(), small(), small()
				what := fmt.Sprintf("%v Slice(%d,%d,%d,%d) of %v", log, d, start, stop, step, x.Shape())
				if n == 0 || d < -n || d >= n {
					expectAgxError(t, what, ErrIndex, func() { x.Slice(d, start, stop, step) })
					continue
				}
				if step <= 0 {
					expectAgxError(t, what, ErrArg, func() { x.Slice(d, start, stop, step) })
					continue
				}
				if d < 0 {
					d += n
				}
				size := ref.shape[d]
				clip := func(i int) int {
					if i < 0 {
						i += size
					}
					return max(0, min(i, size))
				}
				s, e := clip(start), clip(stop)
				x = x.Slice(d, start, stop, step)
				ref = ref.slice(d, s, max(s, e), step)
				log = append(log, what)
			case 3: // Select, which can bring the rank down to 0
				d, i := small(), small()
				what := fmt.Sprintf("%v Select(%d,%d) of %v", log, d, i, x.Shape())
				if n == 0 || d < -n || d >= n {
					expectAgxError(t, what, ErrIndex, func() { x.Select(d, i) })
					continue
				}
				if d < 0 {
					d += n
				}
				size := ref.shape[d]
				if i < -size || i >= size {
					expectAgxError(t, what, ErrIndex, func() { x.Select(d, i) })
					continue
				}
				if i < 0 {
					i += size
				}
				x = x.Select(d, i)
				ref = ref.selectAt(d, i)
				log = append(log, what)
			}
			if !slices.Equal(x.Shape(), ref.shape) || !slices.Equal(x.Float64s(), ref.data) {
				t.Fatalf("%v: got %v %v, want %v %v", log, x.Shape(), x.Float64s(), ref.shape, ref.data)
			}
			if !x.SameStorage(base) {
				t.Fatalf("%v: the view does not share storage", log)
			}
		}
	})
}

// FuzzRowArith checks Binary on an operand and a broadcast one (any dims
// of the output set to 1, either order, either dtype), so that rowArith's
// classification of the operands (cpu_binary.go) meets every layout: its
// results must match the operands broadcast and copied, element by element.
func FuzzRowArith(f *testing.F) {
	f.Add([]byte{0, 2, 4, 16, 2, 0, 0})
	f.Add([]byte{1, 3, 2, 3, 5, 4, 1, 1})
	f.Add([]byte{1, 2, 4, 16, 1, 3, 0})
	f.Add([]byte{0, 3, 2, 3, 5, 6, 3, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzBytes{b: data}
		dt := []DType{Float32, Float64}[r.intn(2)]
		shape := make([]int, 2+r.intn(3))
		for i := range shape {
			shape[i] = 1 + r.intn(6)
		}
		mask := r.next()
		small := slices.Clone(shape)
		for i := range small {
			if mask&(1<<i) != 0 {
				small[i] = 1
			}
		}
		if mask&(1<<4) != 0 { // drop leading size-1 dims
			for len(small) > 1 && small[0] == 1 {
				small = small[1:]
			}
		}
		op := []BinaryOp{OpAdd, OpSub, OpMul, OpDiv}[r.intn(4)]
		a, b := rowOperand(dt, shape, 1.1), rowOperand(dt, small, -0.9)
		if r.intn(2) == 1 {
			a, b = b, a
		}
		checkBinaryBroadcast(t, op, a, b)
	})
}
