package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// specials are values the packing must carry bit for bit (NaN: as a NaN).
var specials = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
	5e-324, -2.5e-310, 1e-40, -1.2e-45, math.MaxFloat32, -math.MaxFloat64, 1, -1}

// specialSlice returns n random values in [-1, 1) with a special value at
// every seventh place.
func specialSlice[T float32 | float64](r *rand.Rand, n int) []T {
	s := randSlice[T](r, n)
	for i := 3; i < n; i += 7 {
		s[i] = T(specials[r.IntN(len(specials))])
	}
	return s
}

// sameBits reports whether got and want are identical, counting any two
// NaNs as equal.
func sameBits[T float32 | float64](got, want []T) int {
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(g) && math.IsNaN(w) {
			continue
		}
		if g != w || math.Signbit(g) != math.Signbit(w) {
			return i
		}
	}
	return -1
}

// packCase runs one packing call (strided or contiguous) with the
// assembly of mode and with the Go code, each on its own copy of a
// destination full of a sentinel with guard cells around the panel, and
// compares them.
func packCase[T float32 | float64](t *testing.T, r *rand.Rand, mode packing, strided bool, n, w, kcb, off int, alpha T) {
	t.Helper()
	var ld int
	var src []T
	if strided {
		ld = kcb + off%3
		src = specialSlice[T](r, off+max(0, n-1)*ld+kcb)
	} else {
		ld = n + off%3
		src = specialSlice[T](r, off+max(0, (kcb-1)*ld+n))
	}
	src = src[off:] // unaligned starts
	run := func(mode packing) []T {
		old := asmPack
		asmPack = mode
		defer func() { asmPack = old }()
		const guard = 19
		d := make([]T, kcb*w+2*guard+off)
		for i := range d {
			d[i] = -7
		}
		dst := d[guard+off : guard+off+kcb*w]
		if strided {
			packStrided(dst, src, ld, n, w, kcb, alpha)
		} else {
			packContig(dst, src, ld, n, w, kcb, alpha)
		}
		return d
	}
	want, got := run(packGo), run(mode)
	if i := sameBits(got, want); i >= 0 {
		t.Fatalf("%v strided=%v n=%d w=%d kcb=%d off=%d alpha=%v: element %d (of %d with guards) = %v, want %v",
			mode, strided, n, w, kcb, off, alpha, i, len(got), got[i], want[i])
	}
}

func testPack[T float32 | float64](t *testing.T, mode packing) {
	lanes := 64 / (int(sizeOf[T]()))
	widths := []int{1, 2, 3, 4, 6, 8, 12, 14, 16, 17, 32, 33, 48}
	alphas := []T{1, -0.5, 3}
	for _, strided := range []bool{true, false} {
		t.Run(fmt.Sprintf("strided=%v", strided), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			for _, w := range widths {
				if !strided && w > 2*lanes {
					continue
				}
				for n := 0; n <= w; n++ {
					for kcb := 0; kcb <= 100; kcb += 1 + n%3 {
						packCase(t, r, mode, strided, n, w, kcb, (n+kcb)%5, alphas[(n+kcb)%len(alphas)])
					}
					for _, kcb := range []int{255, 256, 257, 1023} {
						packCase(t, r, mode, strided, n, w, kcb, n%4, alphas[n%len(alphas)])
					}
				}
			}
		})
	}
}

// TestPack compares each packing assembly this CPU runs with the Go code on
// every width the kernels use and more, every row count, depths 0..100 and
// a few large ones, unaligned sources and special values.
func TestPack(t *testing.T) {
	if raceEnabled {
		t.Skip("serial comparison of assembly with Go code: run without -race")
	}
	modes := packings()[1:]
	if len(modes) == 0 {
		t.Skip("no packing assembly on this CPU")
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			t.Run("float32", func(t *testing.T) { testPack[float32](t, mode) })
			t.Run("float64", func(t *testing.T) { testPack[float64](t, mode) })
		})
	}
}

func sizeOf[T float32 | float64]() uintptr {
	var z T
	return unsafe.Sizeof(z)
}

func testBufs[T float32 | float64](t *testing.T) {
	for _, w := range []int{0, 1} {
		st := stashFor[T](w)
		st.mu.Lock()
		st.bufs = nil
		st.mu.Unlock()
	}
	var kept []*buf[T]
	for _, n := range []int{1, 100, 5000, 70000, 3} {
		b := getBuf[T](n, 0)
		if len(b.s) != n || uintptr(unsafe.Pointer(&b.s[0]))%64 != 0 {
			t.Fatalf("getBuf(%d): len %d, address %p (want a 64-byte boundary)", n, len(b.s), &b.s[0])
		}
		kept = append(kept, b)
	}
	for _, b := range kept {
		putBuf(b, 0)
	}
	// Another worker's stash does not hand out worker 0's buffers.
	other := getBuf[T](60000, 1)
	if &other.s[0] == &kept[3].s[0] {
		t.Errorf("getBuf(60000) of worker 1 took worker 0's buffer")
	}
	putBuf(other, 1)
	// A kept buffer serves a later request of at most its size.
	b := getBuf[T](60000, 0)
	if len(b.s) != 60000 || &b.s[0] != &kept[3].s[0] {
		t.Errorf("getBuf(60000) after putBuf did not reuse the 70000-element buffer")
	}
	putBuf(b, 0)
}

// TestBufs checks the packing buffers' length, alignment and reuse.
func TestBufs(t *testing.T) {
	t.Run("float32", testBufs[float32])
	t.Run("float64", testBufs[float64])
}

// testLargestBufStashed checks that the packing buffer of a full block of
// each kernel (what serial asks for in a large product) goes back to the
// stash, which the collector does not empty, and not to the sync.Pool.
func testLargestBufStashed[T float32 | float64](t *testing.T, ks []*kernel[T]) {
	const w = 1
	st := stashFor[T](w)
	for _, k := range ks {
		st.mu.Lock()
		st.bufs = nil
		st.mu.Unlock()
		for st.pool.Get() != nil { // a pooled buffer would serve the request
		}
		n := roundUp(k.mc*k.kc+k.mr*k.nr, 16) + k.nc*k.kc
		b := getBuf[T](n, w)
		putBuf(b, w)
		st.mu.Lock()
		kept := len(st.bufs) == 1 && st.bufs[0].(*buf[T]) == b
		st.bufs = nil
		st.mu.Unlock()
		if !kept {
			t.Errorf("%s: the buffer of a full block (%d elements, %d bytes made) was not kept in the stash (stashMax %d)",
				k.name, n, cap(b.s)*int(sizeOf[T]()), stashMax)
		}
	}
}

func TestLargestBufStashed(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testLargestBufStashed(t, kernelsF32) })
	t.Run("float64", func(t *testing.T) { testLargestBufStashed(t, kernelsF64) })
}

// TestBufSize checks the rounding of packing buffers.
func TestBufSize(t *testing.T) {
	for _, c := range []struct{ n, elem, want int }{
		{1, 4, 1}, {3, 8, 4}, {70000, 4, 1 << 17}, {1 << 18, 4, 1 << 18},
		{1<<18 + 1, 4, 2 << 18},       // 1 MiB + 4 bytes: 2 MiB
		{610528, 8, 5 << 20 / 8},      // float64 AVX-512 block, 4.7 MiB: 5 MiB
		{908736, 4, 4 << 20 / 4},      // float32 AVX-512 block, 3.5 MiB: 4 MiB
		{3<<20/8 - 1, 8, 3 << 20 / 8}, // just under 3 MiB
	} {
		if got := bufSize(c.n, c.elem); got != c.want || got < c.n {
			t.Errorf("bufSize(%d, %d) = %d, want %d", c.n, c.elem, got, c.want)
		}
	}
}
