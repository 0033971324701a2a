package tensor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// refArray is the naive reference for views: a row-major array whose view ops
// materialise a new array by index arithmetic, one element at a time.
type refArray struct {
	shape []int
	data  []float64
}

func refNumel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// refBuild fills a new array of shape with f(index), visiting indices in
// row-major order with an odometer.
func refBuild(shape []int, f func(idx []int) float64) refArray {
	r := refArray{shape: slices.Clone(shape), data: make([]float64, 0, refNumel(shape))}
	if refNumel(shape) == 0 {
		return r
	}
	idx := make([]int, len(shape))
	for {
		r.data = append(r.data, f(idx))
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return r
		}
	}
}

func (r refArray) at(idx []int) float64 {
	flat := 0
	for d, i := range idx {
		flat = flat*r.shape[d] + i
	}
	return r.data[flat]
}

func refArange(shape []int) refArray {
	n := 0.0
	return refBuild(shape, func([]int) float64 { n++; return n })
}

func (r refArray) permute(perm []int) refArray {
	ns := make([]int, len(perm))
	for i, p := range perm {
		ns[i] = r.shape[p]
	}
	old := make([]int, len(perm))
	return refBuild(ns, func(idx []int) float64 {
		for i, p := range perm {
			old[p] = idx[i]
		}
		return r.at(old)
	})
}

func (r refArray) narrow(dim, start, length int) refArray {
	ns := slices.Clone(r.shape)
	ns[dim] = length
	old := make([]int, len(ns))
	return refBuild(ns, func(idx []int) float64 {
		copy(old, idx)
		old[dim] += start
		return r.at(old)
	})
}

// slice takes already-normalised, in-range start and stop.
func (r refArray) slice(dim, start, stop, step int) refArray {
	ns := slices.Clone(r.shape)
	ns[dim] = 0
	if stop > start {
		ns[dim] = (stop-start-1)/step + 1
	}
	old := make([]int, len(ns))
	return refBuild(ns, func(idx []int) float64 {
		copy(old, idx)
		old[dim] = start + idx[dim]*step
		return r.at(old)
	})
}

func (r refArray) expand(shape []int) refArray {
	lead := len(shape) - len(r.shape)
	old := make([]int, len(r.shape))
	return refBuild(shape, func(idx []int) float64 {
		for i := range old {
			if r.shape[i] != 1 {
				old[i] = idx[i+lead]
			} else {
				old[i] = 0
			}
		}
		return r.at(old)
	})
}

func (r refArray) unsqueeze(dim int) refArray {
	return refArray{shape: slices.Insert(slices.Clone(r.shape), dim, 1), data: r.data}
}

func (r refArray) squeeze(dim int) refArray {
	return refArray{shape: slices.Delete(slices.Clone(r.shape), dim, dim+1), data: r.data}
}

func (r refArray) selectAt(dim, i int) refArray { return r.narrow(dim, i, 1).squeeze(dim) }

// broadcastRef applies f to a and b broadcast against each other.
func broadcastRef(a, b refArray, f func(x, y float64) float64) refArray {
	n := max(len(a.shape), len(b.shape))
	out := make([]int, n)
	for i := range out {
		out[i] = 1
		if j := i - (n - len(a.shape)); j >= 0 {
			out[i] = max(out[i], a.shape[j])
		}
		if j := i - (n - len(b.shape)); j >= 0 {
			out[i] = max(out[i], b.shape[j])
		}
	}
	pick := func(r refArray, idx []int) float64 {
		lead := n - len(r.shape)
		old := make([]int, len(r.shape))
		for i := range old {
			if r.shape[i] != 1 {
				old[i] = idx[i+lead]
			}
		}
		return r.at(old)
	}
	return refBuild(out, func(idx []int) float64 { return f(pick(a, idx), pick(b, idx)) })
}

// noCopyStrides is the brute-force answer to "can this layout be viewed with
// newShape without copying?": the strides of such a view are forced (new dim d
// must step by the old address distance of its unit index), so derive them and
// check every element.
func noCopyStrides(shape, strides, newShape []int) ([]int, bool) {
	n := refNumel(shape)
	if n == 0 {
		return nil, true
	}
	addrOld := func(flat int) int {
		a := 0
		for d := len(shape) - 1; d >= 0; d-- {
			a += (flat % shape[d]) * strides[d]
			flat /= shape[d]
		}
		return a
	}
	ns := make([]int, len(newShape))
	unit := 1
	for d := len(newShape) - 1; d >= 0; d-- {
		if newShape[d] > 1 {
			ns[d] = addrOld(unit)
		}
		unit *= newShape[d]
	}
	for flat := 0; flat < n; flat++ {
		a, rem := 0, flat
		for d := len(newShape) - 1; d >= 0; d-- {
			a += (rem % newShape[d]) * ns[d]
			rem /= newShape[d]
		}
		if a != addrOld(flat) {
			return nil, false
		}
	}
	return ns, true
}

// randomFactorShape returns a random shape with n elements, with size-1 dims
// sprinkled in.
func randomFactorShape(rng *rand.Rand, n int) []int {
	var shape []int
	for n > 1 {
		var divs []int
		for d := 2; d <= n; d++ {
			if n%d == 0 {
				divs = append(divs, d)
			}
		}
		d := divs[rng.IntN(len(divs))]
		shape = append(shape, d)
		n /= d
	}
	if n == 0 {
		shape = append(shape, 0)
	}
	for rng.IntN(3) == 0 {
		shape = slices.Insert(shape, rng.IntN(len(shape)+1), 1)
	}
	rng.Shuffle(len(shape), func(i, j int) { shape[i], shape[j] = shape[j], shape[i] })
	return shape
}

// randomViewChain applies up to steps random view ops to t and r alike.
func randomViewChain(t *testing.T, rng *rand.Rand, x *Tensor, r refArray, steps int) (*Tensor, refArray, []string) {
	var log []string
	for s := 0; s < steps; s++ {
		n := x.Dim()
		switch op := rng.IntN(9); {
		case op == 0 && n >= 2:
			d0, d1 := rng.IntN(n), rng.IntN(n)
			x = x.Transpose(d0, d1)
			perm := make([]int, n)
			for i := range perm {
				perm[i] = i
			}
			perm[d0], perm[d1] = perm[d1], perm[d0]
			r = r.permute(perm)
			log = append(log, fmt.Sprintf("Transpose(%d,%d)", d0, d1))
		case op == 1 && n >= 1:
			perm := rng.Perm(n)
			x = x.Permute(perm...)
			r = r.permute(perm)
			log = append(log, fmt.Sprintf("Permute%v", perm))
		case op == 2 && n >= 1:
			d := rng.IntN(n)
			size := r.shape[d]
			start := rng.IntN(size + 1)
			length := rng.IntN(size - start + 1)
			x = x.Narrow(d, start, length)
			r = r.narrow(d, start, length)
			log = append(log, fmt.Sprintf("Narrow(%d,%d,%d)", d, start, length))
		case op == 3 && n >= 1:
			d := rng.IntN(n)
			size := r.shape[d]
			start, stop, step := rng.IntN(size+1), rng.IntN(size+1), 1+rng.IntN(3)
			// Exercise negative bounds too: they count from the end.
			ps, pe := start, stop
			if rng.IntN(2) == 0 && start < size {
				ps = start - size
			}
			if rng.IntN(2) == 0 && stop < size {
				pe = stop - size
			}
			x = x.Slice(d, ps, pe, step)
			r = r.slice(d, start, max(start, stop), step)
			log = append(log, fmt.Sprintf("Slice(%d,%d,%d,%d)", d, ps, pe, step))
		case op == 4 && n < 5:
			d := rng.IntN(n + 1)
			x = x.Unsqueeze(d)
			r = r.unsqueeze(d)
			log = append(log, fmt.Sprintf("Unsqueeze(%d)", d))
		case op == 5 && n >= 1:
			d := rng.IntN(n)
			if r.shape[d] != 1 {
				continue
			}
			x = x.Squeeze(d)
			r = r.squeeze(d)
			log = append(log, fmt.Sprintf("Squeeze(%d)", d))
		case op == 6 && n >= 1:
			// Expand every size-1 dim to a random size and maybe add a leading dim.
			shape := slices.Clone(r.shape)
			for i, s := range shape {
				if s == 1 {
					shape[i] = 1 + rng.IntN(3)
				}
			}
			if rng.IntN(2) == 0 && n < 5 {
				shape = slices.Insert(shape, 0, 1+rng.IntN(3))
			}
			x = x.Expand(shape...)
			r = r.expand(shape)
			log = append(log, fmt.Sprintf("Expand%v", shape))
		case op == 7 && n >= 1:
			d := rng.IntN(n)
			if r.shape[d] == 0 {
				continue
			}
			i := rng.IntN(r.shape[d])
			x = x.Select(d, i)
			r = r.selectAt(d, i)
			log = append(log, fmt.Sprintf("Select(%d,%d)", d, i))
		case op == 8 && n == 2:
			x = x.T()
			r = r.permute([]int{1, 0})
			log = append(log, "T()")
		}
	}
	return x, r, log
}

func randomShape(rng *rand.Rand, maxRank, maxDim int) []int {
	shape := make([]int, 1+rng.IntN(maxRank))
	for i := range shape {
		shape[i] = 1 + rng.IntN(maxDim)
	}
	return shape
}

func arangeTensor(shape []int) *Tensor {
	n := refNumel(shape)
	data := make([]float64, n)
	for i := range data {
		data[i] = float64(i + 1)
	}
	return FromSlice(data).Reshape(shape...)
}

func TestPropertyViewChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 400 {
		shape := randomShape(rng, 4, 5)
		base := arangeTensor(shape)
		x, r, log := randomViewChain(t, rng, base, refArange(shape), 1+rng.IntN(6))
		name := fmt.Sprintf("%d/%v%v", iter, shape, log)
		if !slices.Equal(x.Shape(), r.shape) {
			t.Fatalf("%s: shape %v, reference %v", name, x.Shape(), r.shape)
		}
		if got := x.Float64s(); !slices.Equal(got, r.data) {
			t.Fatalf("%s: values %v, reference %v", name, got, r.data)
		}
		if !x.SameStorage(base) {
			t.Fatalf("%s: a view chain must share storage with its base", name)
		}
		if c := x.Contiguous(); !c.IsContiguous() || !slices.Equal(c.Float64s(), r.data) {
			t.Fatalf("%s: Contiguous changed the values or is not contiguous", name)
		}
		if got := x.Flatten().Float64s(); !slices.Equal(got, r.data) {
			t.Fatalf("%s: Flatten: %v, want %v", name, got, r.data)
		}
	}
}

func TestPropertyViewVsReshape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	views := 0
	for iter := range 400 {
		shape := randomShape(rng, 4, 4)
		base := arangeTensor(shape)
		x, r, log := randomViewChain(t, rng, base, refArange(shape), rng.IntN(5))
		ns := randomFactorShape(rng, x.Numel())
		name := fmt.Sprintf("%d/%v%v->%v (layout %v strides %v)", iter, shape, log, ns, x.Shape(), x.Strides())
		want, can := noCopyStrides(x.Shape(), x.Strides(), ns)
		var v *Tensor
		err := try(func() { v = x.View(ns...) })
		if can != (err == nil) {
			t.Fatalf("%s: View error %v, but a no-copy layout exists: %v", name, err, can)
		}
		if err == nil {
			views++
			if !v.SameStorage(x) || !slices.Equal(v.Float64s(), r.data) {
				t.Fatalf("%s: View does not alias or reorders values", name)
			}
			if x.Numel() > 0 {
				for d, s := range ns {
					if s > 1 && v.Strides()[d] != want[d] {
						t.Fatalf("%s: View strides %v, want %v", name, v.Strides(), want)
					}
				}
			}
		}
		rs := x.Reshape(ns...)
		if !slices.Equal(rs.Shape(), ns) || !slices.Equal(rs.Float64s(), r.data) {
			t.Fatalf("%s: Reshape gives %v %v, want row-major %v", name, rs.Shape(), rs.Float64s(), r.data)
		}
		if rs.SameStorage(x) != can {
			t.Fatalf("%s: Reshape shares storage = %v, want %v", name, rs.SameStorage(x), can)
		}
	}
	if views < 50 {
		t.Errorf("only %d of 400 random cases could View; the generator is too narrow", views)
	}
}

// randomBroadcastPair returns two shapes that broadcast together.
func randomBroadcastPair(rng *rand.Rand) ([]int, []int) {
	out := randomShape(rng, 4, 4)
	mk := func() []int {
		s := slices.Clone(out[rng.IntN(len(out)+1):])
		for i := range s {
			if rng.IntN(3) == 0 {
				s[i] = 1
			}
		}
		return s
	}
	return mk(), mk()
}

func TestPropertyBroadcastBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ops := []struct {
		name string
		fn   func(a, b *Tensor) *Tensor
		ref  func(x, y float64) float64
	}{
		{"Add", func(a, b *Tensor) *Tensor { return Add(a, b) }, func(x, y float64) float64 { return x + y }},
		{"Sub", func(a, b *Tensor) *Tensor { return a.Sub(b) }, func(x, y float64) float64 { return x - y }},
		{"Mul", func(a, b *Tensor) *Tensor { return Mul(a, b) }, func(x, y float64) float64 { return x * y }},
		{"Maximum", func(a, b *Tensor) *Tensor { return Maximum(a, b) }, func(x, y float64) float64 { return max(x, y) }},
		{"Lt", func(a, b *Tensor) *Tensor { return a.Lt(b) }, func(x, y float64) float64 {
			if x < y {
				return 1
			}
			return 0
		}},
	}
	for iter := range 300 {
		sa, sb := randomBroadcastPair(rng)
		ra := refBuild(sa, func([]int) float64 { return float64(rng.IntN(9) - 4) })
		rb := refBuild(sb, func([]int) float64 { return float64(rng.IntN(9) - 4) })
		a := FromSlice(ra.data).Reshape(sa...)
		// Give b a non-contiguous layout: store it reversed-permuted, then permute back.
		perm := make([]int, len(sb))
		for i := range perm {
			perm[i] = len(sb) - 1 - i
		}
		b := FromSlice(rb.permute(perm).data).Reshape(rb.permute(perm).shape...).Permute(perm...)
		for _, op := range ops {
			want := broadcastRef(ra, rb, op.ref)
			got := op.fn(a, b)
			if !slices.Equal(got.Shape(), want.shape) || !slices.Equal(got.Float64s(), want.data) {
				t.Fatalf("%d: %s(%v, %v) = %v %v, want %v %v", iter, op.name, sa, sb, got.Shape(), got.Float64s(), want.shape, want.data)
			}
			if bs := BroadcastShapes("test", sa, sb); !slices.Equal(bs, want.shape) {
				t.Fatalf("%d: BroadcastShapes(%v, %v) = %v, want %v", iter, sa, sb, bs, want.shape)
			}
		}
	}
}
