package gemm

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/goagx/agx/tensor/internal/team"
)

// kernel describes one micro-kernel and the cache blocking that suits it.
type kernel[T float32 | float64] struct {
	name   string
	mr, nr int // register tile: fn updates an mr×nr block of C
	mc     int // rows of A packed per block (multiple of mr; the block stays in L2)
	kc     int // depth of one packed panel pair (the C tile is read and written once per kc steps)
	nc     int // columns of B packed per block (multiple of nr)
	// fn adds Apanel·Bpanel into C: Apanel holds k steps of mr values, Bpanel
	// k steps of nr values, and C is an mr×nr tile with row stride ldc.
	fn func(k int, a, b, c *T, ldc int)
	// set is fn storing the product into C instead of adding it (C is not read).
	set func(k int, a, b, c *T, ldc int)
	// edge, when not nil, holds at index r (1..mr) the kernels for tiles
	// that overhang C: they compute the first r rows and store the first
	// cols columns only. Without it such tiles go through a scratch tile.
	edge []edgeKernel[T]
	// strided, when its functions are not nil, reads A where it lies (see
	// inPlaceA).
	strided stridedKernels[T]
}

// stridedKernels are fn and set reading mr rows of A in place instead of
// from a packed panel: row i of step p at a[i·rs + p·ps].
type stridedKernels[T float32 | float64] struct {
	fn, set func(k int, a, b, c *T, ldc, rs, ps int)
}

// edgeKernel is a kernel pair (adding, storing) for the first rows of a
// tile, whose last argument is the number of columns of C to update.
type edgeKernel[T float32 | float64] struct {
	fn, set func(k int, a, b, c *T, ldc, cols int)
}

// problem is one C = alpha·op(A)·op(B) + C update (beta already applied).
type problem[T float32 | float64] struct {
	transA, transB bool
	m, n, k        int
	alpha          T
	a              []T
	lda            int
	b              []T
	ldb            int
	c              []T
	ldc            int
	// overwrite says that C holds no data to keep (beta == 0): the first k
	// block stores its product instead of adding it.
	overwrite bool
	// worker is the team worker (package team) running the product, 0 on
	// the caller; it picks the packing buffers' stash.
	worker int
}

// parallelMin is the smallest m·n·k of a float32 product that is split
// across the resident team (package team; float64 products, about half as
// fast, from half that). Below it the stripes are too short to pay for
// packing the shared operand twice. With a goroutine started per stripe the
// threshold was 2²⁵: waking an idle thread cost more than a 256³ product
// saves (float32 256³ 250 µs serial against 292-305 µs split, on the
// project's 2-core VM). With the team awake, `go test -bench Shapes`, two
// cores against one: float32 256³ 206 → 120 µs, 64×256×784 182 → 104 µs,
// 784×256×64 155 → 84 µs, 128×64×128 15.2 → 10.3 µs.
var parallelMin = 1 << 20

// gemm computes C = alpha·op(A)·op(B) + beta·C with kernel kn. Arguments
// are assumed valid.
func gemm[T float32 | float64](kn *kernel[T], p problem[T], beta T) {
	if p.m == 0 || p.n == 0 {
		return
	}
	if beta == 0 && p.alpha != 0 && p.k != 0 {
		p.overwrite = true
	} else if beta != 1 {
		for i := 0; i < p.m; i++ {
			row := p.c[i*p.ldc : i*p.ldc+p.n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
	}
	if p.alpha == 0 || p.k == 0 {
		return
	}
	if narrow(kn, p.m, p.n) {
		transposed(kn, p)
		return
	}
	multiply(kn, p)
}

// multiply adds alpha·op(A)·op(B) into C (stores it, when p.overwrite),
// on the team when the product is large enough.
func multiply[T float32 | float64](kn *kernel[T], p problem[T]) {
	w := runtime.GOMAXPROCS(0)
	var z T
	// A product that is itself one part of a team kernel (a batch spread
	// over the team) stays on its worker: the others are busy with the
	// rest of the batch.
	if w == 1 || p.worker > 0 || p.m*p.n*p.k*int(unsafe.Sizeof(z)) < parallelMin*4 {
		serial(kn, p)
		return
	}
	// Split the larger output dimension into w stripes of whole tiles. Each
	// stripe is an independent product that packs its own panels.
	var parts []problem[T]
	if p.n >= p.m {
		step := roundUp((p.n+w-1)/w, kn.nr)
		for j := 0; j < p.n; j += step {
			q := p
			q.n = min(step, p.n-j)
			if p.transB {
				q.b = p.b[j*p.ldb:]
			} else {
				q.b = p.b[j:]
			}
			q.c = p.c[j:]
			parts = append(parts, q)
		}
	} else {
		step := roundUp((p.m+w-1)/w, kn.mr)
		for i := 0; i < p.m; i += step {
			q := p
			q.m = min(step, p.m-i)
			if p.transA {
				q.a = p.a[i:]
			} else {
				q.a = p.a[i*p.lda:]
			}
			q.c = p.c[i*p.ldc:]
			parts = append(parts, q)
		}
	}
	// The stripes go to the resident team (package team): the caller starts
	// on the first at once and takes the others too if no helper is awake.
	// Each worker packs into buffers of its own (see stash).
	team.Do(len(parts), w, func(i, worker int) {
		q := parts[i]
		q.worker = worker
		serial(kn, q)
	})
}

// narrow reports whether the m×n product is computed faster as its
// transpose (see transposed): when C has more rows than columns and at
// least a third of the nr columns of its last tiles would be padding (with
// nr = 32: n ≤ 21 or 33..42; nr = 16: n ≤ 10 or 17..21; nr = 8: n ≤ 5 or
// 9..10). The transposed product pads its long side only, to whole tiles of
// nr, and its n rows go to the edge kernels (the AVX2 kernels: to tiles of
// 6 rows); the transposition back costs a pass over C.
//
// BenchmarkNarrow, one thread (AGX_GEMM_ISA=avx2 for the AVX2 kernels):
// the time of the transposed product over the direct one, median over m of
// 64, 256 and 1024, k of 64 and 256 and the transposes NT, TN and NN; the
// rule picks those marked *, whose worst single ratio is 1.04:
//
//	n                 1      5      10     16     20     24     32     40
//	float32 AVX-512  0.21*  0.30*  0.46*  0.67*  0.76*  0.90   1.13   0.76*
//	float64 AVX-512  0.37*  0.49*  0.73*  1.06   0.73*  0.83   1.07   0.94
//	float32 AVX2     0.68*  0.71*  0.85*  0.98   0.86*  0.86   1.12   1.03
//	float64 AVX2     0.86*  0.82*  0.84*  1.09   1.00   1.02   1.13   1.12
func narrow[T float32 | float64](kn *kernel[T], m, n int) bool {
	return n < m && 2*roundUp(n, kn.nr) >= 3*n
}

// transposed adds alpha·op(A)·op(B) into C (stores it, when p.overwrite)
// as the transposed product alpha·op(B)ᵀ·op(A)ᵀ, computed into a scratch
// n×m matrix and then added into C a row of C at a time.
func transposed[T float32 | float64](kn *kernel[T], p problem[T]) {
	// The scratch rows are m+16 apart, not m: rows 4 KiB apart (m = 1024,
	// float32) share their L1 sets, and reading a row of C back from n of
	// them thrashed (m=1024 n=36 k=64 took 1.7 times the direct product).
	ld := p.m + 16
	buf := getBuf[T](p.n*ld, p.worker)
	ct := buf.s
	multiply(kn, problem[T]{
		transA: !p.transB, transB: !p.transA,
		m: p.n, n: p.m, k: p.k, alpha: p.alpha,
		a: p.b, lda: p.ldb, b: p.a, ldb: p.lda,
		c: ct, ldc: ld, overwrite: true, worker: p.worker,
	})
	for i := 0; i < p.m; i++ {
		row := p.c[i*p.ldc : i*p.ldc+p.n]
		if p.overwrite {
			for j := range row {
				row[j] = ct[j*ld+i]
			}
		} else {
			for j := range row {
				row[j] += ct[j*ld+i]
			}
		}
	}
	putBuf(buf, p.worker)
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// serial runs the blocked loop nest on the calling goroutine:
//
//	for jc (nc columns of B and C)
//	  for pc (kc deep): pack B[pc:pc+kc, jc:jc+nc] into nr-wide micro-panels
//	    for ic (mc rows of A and C): pack alpha·A[ic:ic+mc, pc:pc+kc] into mr-tall micro-panels
//	      for jr (nr columns), for ir (mr rows): micro-kernel
func serial[T float32 | float64](kn *kernel[T], p problem[T]) {
	mr, nr := kn.mr, kn.nr
	kc := min(kn.kc, p.k)
	nc := min(kn.nc, roundUp(p.n, nr))
	mc := min(kn.mc, roundUp(p.m, mr))
	// One pooled buffer holds the packed A block, the scratch tile and the
	// packed B block (from a 64-byte boundary).
	sizeA := roundUp(mc*kc+mr*nr, 16)
	buf := getBuf[T](sizeA+nc*kc, p.worker)
	bufA, bufB := buf.s[:sizeA], buf.s[sizeA:]
	// Without edge kernels, edge tiles are computed into tile, then the
	// valid part is added into C.
	tile := bufA[mc*kc : mc*kc+mr*nr]
	// A read in place: row i of step q at a[i·rs + q·ps].
	direct := inPlaceA(kn, p)
	rs, ps := p.lda, 1
	if p.transA {
		rs, ps = 1, p.lda
	}
	for jc := 0; jc < p.n; jc += nc {
		ncb := min(nc, p.n-jc)
		for pc := 0; pc < p.k; pc += kc {
			kcb := min(kc, p.k-pc)
			packB(kn, p, bufB, pc, kcb, jc, ncb)
			fn, sfn := kn.fn, kn.strided.fn
			set := pc == 0 && p.overwrite
			if set {
				fn, sfn = kn.set, kn.strided.set
			}
			for ic := 0; ic < p.m; ic += mc {
				mcb := min(mc, p.m-ic)
				// Rows below inPlace are read from A; the rest are packed
				// (from the start of bufA).
				inPlace := 0
				if direct {
					inPlace = mcb / mr * mr
				}
				packA(kn, p, bufA, ic+inPlace, mcb-inPlace, pc, kcb)
				for jr := 0; jr < ncb; jr += nr {
					bp := &bufB[jr*kcb]
					nrb := min(nr, ncb-jr)
					for ir := 0; ir < mcb; ir += mr {
						mrb := min(mr, mcb-ir)
						ci := (ic+ir)*p.ldc + jc + jr
						if ir < inPlace {
							ai := (ic+ir)*rs + pc*ps
							_ = p.a[ai+(mr-1)*rs+(kcb-1)*ps] // the last value the kernel reads
							if nrb == nr {
								sfn(kcb, &p.a[ai], bp, &p.c[ci], p.ldc, rs, ps)
								continue
							}
							kn.strided.set(kcb, &p.a[ai], bp, &tile[0], nr, rs, ps)
							addTile(p.c[ci:], p.ldc, tile, nr, mr, nrb, set)
							continue
						}
						ap := &bufA[(ir-inPlace)*kcb]
						if mrb == mr && nrb == nr {
							fn(kcb, ap, bp, &p.c[ci], p.ldc)
							continue
						}
						if kn.edge != nil {
							e := kn.edge[mrb].fn
							if set {
								e = kn.edge[mrb].set
							}
							e(kcb, ap, bp, &p.c[ci], p.ldc, nrb)
							continue
						}
						kn.set(kcb, ap, bp, &tile[0], nr)
						addTile(p.c[ci:], p.ldc, tile, nr, mrb, nrb, set)
					}
				}
			}
		}
	}
	putBuf(buf, p.worker)
}

// inPlaceA reports whether serial reads the whole mr-row panels of A where
// they lie (kernel.strided) instead of packing them. Packing A costs a
// pass over it per kc block and pays off when each packed panel serves many
// tiles of C, so A is read in place only in products at most
// inPlaceMaxTiles tiles wide (p.n is a stripe's width when multiply splits
// a product over the cores): in float32 the 128-wide products of attention,
// where packing A took a tenth of the time. A transposed A is read a step
// at a time, lda apart: from 4 KiB apart the steps share one set of the L1
// cache and evict each other, and from about 3 KiB each step is on a page
// of its own; in place measured slower from there (float32 TN 768×128×256,
// 3 KiB: 88 packed, 86 in place), so such an A is packed from 2 KiB up.
//
// BenchmarkShapes, Zen 3 (AVX2), one thread, GFLOP/s packed → in place:
// float32 NN 128×64×128 84 → 90, TN 128×64×128 77 → 86, NT 128×128×64
// 82 → 88; float64 NN 128×64×128 41 → 45. Reading A in place everywhere
// lost elsewhere: float32 TN 256×784×64 92 → 85, TN 1024×64×1024 (A's
// steps 4 KiB apart) 67 → 59, NN 1024³ 90 → 86.
func inPlaceA[T float32 | float64](kn *kernel[T], p problem[T]) bool {
	var z T
	return kn.strided.fn != nil && p.alpha == 1 && p.n <= inPlaceMaxTiles*kn.nr &&
		(!p.transA || p.lda*int(unsafe.Sizeof(z)) <= 2048)
}

// inPlaceMaxTiles is the widest product, in tiles of nr columns, whose A
// serial reads in place.
const inPlaceMaxTiles = 8

// addTile adds the first rows×cols values of tile (rows nr apart) into c
// (rows ldc apart), or stores them there when set.
func addTile[T float32 | float64](c []T, ldc int, tile []T, nr, rows, cols int, set bool) {
	for i := 0; i < rows; i++ {
		row := c[i*ldc : i*ldc+cols]
		t := tile[i*nr : i*nr+cols]
		if set {
			copy(row, t)
			continue
		}
		for j, v := range t {
			row[j] += v
		}
	}
}

// packA copies alpha·op(A)[ic:ic+mcb, pc:pc+kcb] into dst as mr-tall
// micro-panels: panel q holds, for each p, the mr values of rows q·mr.. in
// order. Rows past mcb are zero.
func packA[T float32 | float64](kn *kernel[T], pr problem[T], dst []T, ic, mcb, pc, kcb int) {
	mr := kn.mr
	for q := 0; q < mcb; q += mr {
		panel := dst[q*kcb : (q+mr)*kcb]
		rows := min(mr, mcb-q)
		if pr.transA {
			// op(A)[i][p] = a[p*lda+i]: the values of one p are contiguous.
			packContig(panel, pr.a[pc*pr.lda+ic+q:], pr.lda, rows, mr, kcb, pr.alpha)
		} else {
			packStrided(panel, pr.a[(ic+q)*pr.lda+pc:], pr.lda, rows, mr, kcb, pr.alpha)
		}
	}
}

// packB copies op(B)[pc:pc+kcb, jc:jc+ncb] into dst as nr-wide
// micro-panels: panel r holds, for each p, the nr values of columns r·nr..
// in order. Columns past ncb are zero.
func packB[T float32 | float64](kn *kernel[T], pr problem[T], dst []T, pc, kcb, jc, ncb int) {
	nr := kn.nr
	for r := 0; r < ncb; r += nr {
		panel := dst[r*kcb : (r+nr)*kcb]
		cols := min(nr, ncb-r)
		if pr.transB {
			// op(B)[p][j] = b[j*ldb+p]: each of the nr columns is a row of b.
			packStrided(panel, pr.b[(jc+r)*pr.ldb+pc:], pr.ldb, cols, nr, kcb, 1)
		} else {
			packContig(panel, pr.b[pc*pr.ldb+jc+r:], pr.ldb, cols, nr, kcb, 1)
		}
	}
}

// packing names the packing routines in use (asmPack).
type packing int

const (
	packGo packing = iota
	packAVX2
	packAVX512
)

func (p packing) String() string { return [...]string{"gopack", "avx2pack", "avx512pack"}[p] }

// packContig fills the micro-panel dst (kcb steps of w values) from src,
// where the n ≤ w values of step p are contiguous at src[p*ld:]; the other
// w-n values of each step are zero.
func packContig[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) {
	if packContigAsm(dst, src, ld, n, w, kcb, alpha) {
		return
	}
	for p := 0; p < kcb; p++ {
		d := dst[p*w : p*w+w]
		s := src[p*ld : p*ld+n]
		if alpha == 1 {
			copy(d, s)
		} else {
			for i, v := range s {
				d[i] = alpha * v
			}
		}
		clear(d[n:])
	}
}

// packStrided fills the micro-panel dst (kcb steps of w values) from n ≤ w
// rows of src, ld apart, each holding kcb consecutive steps: it transposes
// an n×kcb block. It works on 16 steps at a time, so that the cache lines of
// all n rows stay in L1 until they are used up (rows whose stride is a
// multiple of 4 KiB share one L1 set), and the other w-n values are zero.
func packStrided[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) {
	if packStridedAsm(dst, src, ld, n, w, kcb, alpha) {
		return
	}
	const block = 16
	for p0 := 0; p0 < kcb; p0 += block {
		packStridedBlock(dst[p0*w:], src[p0:], ld, n, w, min(block, kcb-p0), alpha)
	}
}

// packStridedBlock is packStrided for a few steps. Eight (then four) rows
// are read side by side so that each step writes adjacent values.
func packStridedBlock[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) {
	i := 0
	for ; i+8 <= n; i += 8 {
		r0 := src[i*ld : i*ld+kcb]
		r1 := src[(i+1)*ld : (i+1)*ld+kcb]
		r2 := src[(i+2)*ld : (i+2)*ld+kcb]
		r3 := src[(i+3)*ld : (i+3)*ld+kcb]
		r4 := src[(i+4)*ld : (i+4)*ld+kcb]
		r5 := src[(i+5)*ld : (i+5)*ld+kcb]
		r6 := src[(i+6)*ld : (i+6)*ld+kcb]
		r7 := src[(i+7)*ld : (i+7)*ld+kcb]
		d := dst[i:]
		if alpha == 1 {
			for p := range r0 {
				e := d[p*w : p*w+8 : p*w+8]
				e[0], e[1], e[2], e[3] = r0[p], r1[p], r2[p], r3[p]
				e[4], e[5], e[6], e[7] = r4[p], r5[p], r6[p], r7[p]
			}
			continue
		}
		for p := range r0 {
			e := d[p*w : p*w+8 : p*w+8]
			e[0], e[1], e[2], e[3] = alpha*r0[p], alpha*r1[p], alpha*r2[p], alpha*r3[p]
			e[4], e[5], e[6], e[7] = alpha*r4[p], alpha*r5[p], alpha*r6[p], alpha*r7[p]
		}
	}
	for ; i+4 <= n; i += 4 {
		r0 := src[i*ld : i*ld+kcb]
		r1 := src[(i+1)*ld : (i+1)*ld+kcb]
		r2 := src[(i+2)*ld : (i+2)*ld+kcb]
		r3 := src[(i+3)*ld : (i+3)*ld+kcb]
		d := dst[i:]
		for p := range r0 {
			e := d[p*w : p*w+4 : p*w+4]
			e[0], e[1], e[2], e[3] = alpha*r0[p], alpha*r1[p], alpha*r2[p], alpha*r3[p]
		}
	}
	for ; i < n; i++ {
		r := src[i*ld : i*ld+kcb]
		for p, v := range r {
			dst[p*w+i] = alpha * v
		}
	}
	if n < w {
		for p := 0; p < kcb; p++ {
			clear(dst[p*w+n : p*w+w])
		}
	}
}

// buf is a packing buffer whose slice s starts on a 64-byte boundary.
type buf[T float32 | float64] struct {
	raw []T
	s   []T
}

// Packing buffers are kept for reuse in a small stash per element type and
// team worker, which, unlike a sync.Pool, the garbage collector does not
// empty: the workloads allocate fast enough to collect several times a
// second, and a fresh buffer costs its zeroing. Buffers larger than
// stashMax bytes, or beyond stashLen of them, go to a sync.Pool instead.
//
// One stash per worker keeps a worker's buffers in its core's caches. With
// one stash for all, the two stripes of a product swapped buffers whenever
// the helper finished last, and each then packed into memory that the
// other core held: two 128×64×64 float32 stripes, 7 µs each alone, took 13
// µs each side by side (`go test -bench`), no faster than one core.
const (
	stashLen = 4
	stashMax = 5 << 20 // the largest packing buffer, float64 with AVX-512 blocking: 4.7 MiB, made 5
)

type stash struct {
	mu   sync.Mutex
	bufs []any // *buf[T]
	pool sync.Pool
}

// stashWorkers is the number of per-worker stashes; workers beyond it
// share them.
const stashWorkers = 8

var stashes [2][stashWorkers]stash // float32, float64

func stashFor[T float32 | float64](worker int) *stash {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return &stashes[0][worker%stashWorkers]
	}
	return &stashes[1][worker%stashWorkers]
}

// getBuf returns a buffer of at least n elements for worker, reusing a
// kept one when it is large enough.
func getBuf[T float32 | float64](n, worker int) *buf[T] {
	st := stashFor[T](worker)
	st.mu.Lock()
	for i := len(st.bufs) - 1; i >= 0; i-- {
		if b := st.bufs[i].(*buf[T]); len(b.s) >= n {
			st.bufs = append(st.bufs[:i], st.bufs[i+1:]...)
			st.mu.Unlock()
			b.s = b.s[:n]
			return b
		}
	}
	st.mu.Unlock()
	if b, ok := st.pool.Get().(*buf[T]); ok {
		if len(b.s) >= n {
			b.s = b.s[:n]
			return b
		}
		st.pool.Put(b)
	}
	var z T
	extra := 64 / int(unsafe.Sizeof(z))
	size := bufSize(n, int(unsafe.Sizeof(z)))
	raw := make([]T, size+extra)
	off := 0
	for uintptr(unsafe.Pointer(&raw[off]))%64 != 0 {
		off++
	}
	// The capacity stops at size, so that putBuf weighs the buffer by the
	// size it was made for, not by the alignment slack after it.
	return &buf[T]{raw: raw, s: raw[off : off+size : off+size][:n]}
}

// bufSize rounds a packing buffer of n elements of elem bytes up, so that
// products of similar sizes reuse it: to a power of two, and from 1 MiB to
// a whole number of MiB (a power of two would make the float64 AVX-512
// buffer, 4.7 MiB, 8 MiB and too large for the stash).
func bufSize(n, elem int) int {
	const mib = 1 << 20
	if n*elem > mib {
		return (n*elem + mib - 1) / mib * mib / elem
	}
	size := 1
	for size < n {
		size *= 2
	}
	return size
}

// putBuf gives b back for reuse. A full stash swaps out its smallest
// buffer for b when b is larger.
func putBuf[T float32 | float64](b *buf[T], worker int) {
	b.s = b.s[:cap(b.s)]
	st := stashFor[T](worker)
	if len(b.s)*int(unsafe.Sizeof(b.s[0])) <= stashMax {
		st.mu.Lock()
		if len(st.bufs) < stashLen {
			st.bufs = append(st.bufs, b)
			st.mu.Unlock()
			return
		}
		small := 0
		for i, x := range st.bufs {
			if len(x.(*buf[T]).s) < len(st.bufs[small].(*buf[T]).s) {
				small = i
			}
		}
		if len(st.bufs[small].(*buf[T]).s) < len(b.s) {
			st.bufs[small], b = b, st.bufs[small].(*buf[T])
		}
		st.mu.Unlock()
	}
	st.pool.Put(b)
}

// unsafeSlice views n elements starting at p.
func unsafeSlice[T any](p *T, n int) []T { return unsafe.Slice(p, n) }
