package gemm

import (
	"runtime"
	"sync"
	"unsafe"
)

// kernel describes one micro-kernel and the cache blocking that suits it.
type kernel[T float32 | float64] struct {
	name   string
	mr, nr int // register tile: fn updates an mr×nr block of C
	mc     int // rows of A packed per block (multiple of mr; the block stays in L2)
	kc     int // depth of one packed panel pair (a kc×nr B micro-panel stays in L1)
	nc     int // columns of B packed per block (multiple of nr)
	// fn adds Apanel·Bpanel into C: Apanel holds k steps of mr values, Bpanel
	// k steps of nr values, and C is an mr×nr tile with row stride ldc.
	fn func(k int, a, b, c *T, ldc int)
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
}

// parallelMin is the smallest m·n·k for which one product is split across
// goroutines; below it the start-up cost outweighs the gain.
var parallelMin = 1 << 21

// gemm computes C = alpha·op(A)·op(B) + beta·C with kernel kn. Arguments
// are assumed valid.
func gemm[T float32 | float64](kn *kernel[T], p problem[T], beta T) {
	if p.m == 0 || p.n == 0 {
		return
	}
	if beta != 1 {
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
	w := runtime.GOMAXPROCS(0)
	if w == 1 || p.m*p.n*p.k < parallelMin {
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
	var wg sync.WaitGroup
	for _, q := range parts[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			serial(kn, q)
		}()
	}
	serial(kn, parts[0])
	wg.Wait()
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
	bufA := getBuf[T](mc*kc + mr*nr)
	bufB := getBuf[T](nc * kc)
	// Edge tiles are computed into tile, then the valid part is added into C.
	tile := bufA.s[mc*kc : mc*kc+mr*nr]
	for jc := 0; jc < p.n; jc += nc {
		ncb := min(nc, p.n-jc)
		for pc := 0; pc < p.k; pc += kc {
			kcb := min(kc, p.k-pc)
			packB(kn, p, bufB.s, pc, kcb, jc, ncb)
			for ic := 0; ic < p.m; ic += mc {
				mcb := min(mc, p.m-ic)
				packA(kn, p, bufA.s, ic, mcb, pc, kcb)
				for jr := 0; jr < ncb; jr += nr {
					bp := &bufB.s[jr*kcb]
					nrb := min(nr, ncb-jr)
					for ir := 0; ir < mcb; ir += mr {
						ap := &bufA.s[ir*kcb]
						mrb := min(mr, mcb-ir)
						ci := (ic+ir)*p.ldc + jc + jr
						if mrb == mr && nrb == nr {
							kn.fn(kcb, ap, bp, &p.c[ci], p.ldc)
							continue
						}
						t := tile
						clear(t)
						kn.fn(kcb, ap, bp, &t[0], nr)
						for i := 0; i < mrb; i++ {
							row := p.c[ci+i*p.ldc : ci+i*p.ldc+nrb]
							for j := range row {
								row[j] += t[i*nr+j]
							}
						}
					}
				}
			}
		}
	}
	putBuf(bufA)
	putBuf(bufB)
}

// packA copies alpha·op(A)[ic:ic+mcb, pc:pc+kcb] into dst as mr-tall
// micro-panels: panel q holds, for each p, the mr values of rows q·mr.. in
// order. Rows past mcb are zero.
func packA[T float32 | float64](kn *kernel[T], pr problem[T], dst []T, ic, mcb, pc, kcb int) {
	mr := kn.mr
	alpha := pr.alpha
	for q := 0; q < mcb; q += mr {
		panel := dst[q*kcb : (q+mr)*kcb]
		rows := min(mr, mcb-q)
		if pr.transA {
			// op(A)[i][p] = a[p*lda+i]: the mr values of one p are contiguous.
			for p := 0; p < kcb; p++ {
				src := pr.a[(pc+p)*pr.lda+ic+q:]
				d := panel[p*mr : p*mr+mr]
				for i := 0; i < rows; i++ {
					d[i] = alpha * src[i]
				}
				clear(d[rows:])
			}
			continue
		}
		// op(A)[i][p] = a[i*lda+p]: walk each row and scatter with stride mr.
		for i := 0; i < rows; i++ {
			src := pr.a[(ic+q+i)*pr.lda+pc:]
			src = src[:kcb]
			for p, v := range src {
				panel[p*mr+i] = alpha * v
			}
		}
		for i := rows; i < mr; i++ {
			for p := 0; p < kcb; p++ {
				panel[p*mr+i] = 0
			}
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
		if !pr.transB {
			// op(B)[p][j] = b[p*ldb+j]: the nr values of one p are contiguous.
			for p := 0; p < kcb; p++ {
				src := pr.b[(pc+p)*pr.ldb+jc+r:]
				d := panel[p*nr : p*nr+nr]
				copy(d[:cols], src[:cols])
				clear(d[cols:])
			}
			continue
		}
		// op(B)[p][j] = b[j*ldb+p]: walk each row of b and scatter with stride nr.
		for j := 0; j < cols; j++ {
			src := pr.b[(jc+r+j)*pr.ldb+pc:]
			src = src[:kcb]
			for p, v := range src {
				panel[p*nr+j] = v
			}
		}
		for j := cols; j < nr; j++ {
			for p := 0; p < kcb; p++ {
				panel[p*nr+j] = 0
			}
		}
	}
}

// buf is a packing buffer whose slice s starts on a 64-byte boundary.
type buf[T float32 | float64] struct {
	raw []T
	s   []T
}

var pools [2]sync.Pool // float32, float64 packing buffers (*buf)

func poolFor[T float32 | float64]() *sync.Pool {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return &pools[0]
	}
	return &pools[1]
}

// getBuf returns a buffer of at least n elements, reusing a pooled one when
// it is large enough.
func getBuf[T float32 | float64](n int) *buf[T] {
	if b, ok := poolFor[T]().Get().(*buf[T]); ok && len(b.s) >= n {
		b.s = b.s[:n]
		return b
	}
	var z T
	extra := 64 / int(unsafe.Sizeof(z))
	raw := make([]T, n+extra)
	off := 0
	for uintptr(unsafe.Pointer(&raw[off]))%64 != 0 {
		off++
	}
	return &buf[T]{raw: raw, s: raw[off : off+n]}
}

func putBuf[T float32 | float64](b *buf[T]) {
	b.s = b.s[:cap(b.s)]
	poolFor[T]().Put(b)
}

// unsafeSlice views n elements starting at p.
func unsafeSlice[T any](p *T, n int) []T { return unsafe.Slice(p, n) }
