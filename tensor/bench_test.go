package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// Benchmarks pair each tensor op with the same math written by hand on plain
// slices ("hand"), so the ratio shows the framework's overhead. The hand loops
// run on one goroutine; tensor kernels may use every core, so each element-wise
// op is also timed with GOMAXPROCS=1 ("tensor-1core"). "tensor" allocates its
// result, as ordinary ops do; "tensor-to" writes into a preallocated
// destination like the hand loop, and "hand-alloc" makes a fresh output slice
// per call like "tensor". See bench/README.md for the figures.

func benchF32(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i%1000)/250 - 2
	}
	return v
}

// withProcs runs fn with GOMAXPROCS set to p.
func withProcs(p int, fn func()) {
	old := runtime.GOMAXPROCS(p)
	defer runtime.GOMAXPROCS(old)
	fn()
}

func BenchmarkElementwise(b *testing.B) {
	const n = 1_000_000
	xs, ys := benchF32(n), benchF32(n)
	for i := range ys {
		ys[i] += 3
	}
	x, y := FromSlice(xs), FromSlice(ys)
	out := make([]float32, n)
	dst := Empty(Float32, n)
	type op struct {
		name   string
		tensor func() *Tensor
		to     func()
		hand   func()
	}
	ops := []op{
		{"Add", func() *Tensor { return Add(x, y) }, func() { BinaryTo(dst, OpAdd, x, y) }, func() {
			for i, v := range xs {
				out[i] = v + ys[i]
			}
		}},
		{"Mul", func() *Tensor { return Mul(x, y) }, func() { BinaryTo(dst, OpMul, x, y) }, func() {
			for i, v := range xs {
				out[i] = v * ys[i]
			}
		}},
		{"Exp", x.Exp, func() { UnaryTo(dst, OpExp, x) }, func() {
			for i, v := range xs {
				out[i] = float32(math.Exp(float64(v)))
			}
		}},
		{"Sigmoid", x.Sigmoid, func() { UnaryTo(dst, OpSigmoid, x) }, func() {
			for i, v := range xs {
				f := float64(v)
				if f >= 0 {
					out[i] = float32(1 / (1 + math.Exp(-f)))
				} else {
					e := math.Exp(f)
					out[i] = float32(e / (1 + e))
				}
			}
		}},
		{"Tanh", x.Tanh, func() { UnaryTo(dst, OpTanh, x) }, func() {
			for i, v := range xs {
				out[i] = float32(math.Tanh(float64(v)))
			}
		}},
	}
	for _, o := range ops {
		b.Run(o.name+"/f32/1e6/tensor", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o.tensor()
			}
		})
		b.Run(o.name+"/f32/1e6/tensor-to", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o.to()
			}
		})
		b.Run(o.name+"/f32/1e6/tensor-1core", func(b *testing.B) {
			b.ReportAllocs()
			withProcs(1, func() {
				for b.Loop() {
					o.to()
				}
			})
		})
		b.Run(o.name+"/f32/1e6/hand", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o.hand()
			}
		})
		b.Run(o.name+"/f32/1e6/hand-alloc", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out = make([]float32, n)
				o.hand()
			}
		})
	}
}

func BenchmarkReduce(b *testing.B) {
	data := benchF32(1024 * 1024)
	x := FromSlice(data, 1024, 1024)
	b.Run("SumAll/f32/1024x1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.Sum()
		}
	})
	b.Run("SumAll/f32/1024x1024/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var s float32
			for _, v := range data {
				s += v
			}
			_ = s
		}
	})
	b.Run("SumDim0/f32/1024x1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.Sum(0)
		}
	})
	b.Run("SumDim1/f32/1024x1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.Sum(1)
		}
	})
	b.Run("AmaxDim1/f32/1024x1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.Amax(1)
		}
	})
	// The soft-rank exercise's reductions: rows of 64 over [32,64,64],
	// along the last dim and along the middle one.
	r := FromSlice(benchF32(32*64*64), 32, 64, 64)
	for _, d := range []int{2, 1} {
		b.Run(fmt.Sprintf("SumDim%d/f32/32x64x64", d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Sum(d)
			}
		})
	}
	s := FromSlice(benchF32(256*1024), 256, 1024)
	b.Run("Softmax/f32/256x1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.Softmax(-1)
		}
	})
	b.Run("LogSoftmax/f32/256x1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.LogSoftmax(-1)
		}
	})
}

// BenchmarkMatMul times tensor.MatMul against a direct GEMM call on the same
// data with the installed BLAS ("blas": agx's own GEMM in the default build),
// and gonum's pure-Go GEMM ("gonum").
func BenchmarkMatMul(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
		flops := 2 * float64(n) * float64(n) * float64(n)
		report := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		a32, b32 := benchF32(n*n), benchF32(n*n)
		c32 := make([]float32, n*n)
		ta, tb := FromSlice(a32, n, n), FromSlice(b32, n, n)
		b.Run(fmt.Sprintf("f32/%d/tensor", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				MatMul(ta, tb)
			}
			report(b)
		})
		b.Run(fmt.Sprintf("f32/%d/blas", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a32, n, b32, n, 0, c32, n)
			}
			report(b)
		})
		b.Run(fmt.Sprintf("f32/%d/gonum", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a32, n, b32, n, 0, c32, n)
			}
			report(b)
		})
		a64, b64 := ToSlice[float64](ta), ToSlice[float64](tb)
		c64 := make([]float64, n*n)
		ta64, tb64 := FromSlice(a64, n, n), FromSlice(b64, n, n)
		b.Run(fmt.Sprintf("f64/%d/tensor", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				MatMul(ta64, tb64)
			}
			report(b)
		})
		b.Run(fmt.Sprintf("f64/%d/blas", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a64, n, b64, n, 0, c64, n)
			}
			report(b)
		})
		b.Run(fmt.Sprintf("f64/%d/gonum", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				gonum.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a64, n, b64, n, 0, c64, n)
			}
			report(b)
		})
	}
	// A transposed operand goes to GEMM as TransB, without a copy.
	n := 512
	ta, tb := FromSlice(benchF32(n*n), n, n), FromSlice(benchF32(n*n), n, n).T()
	b.Run("f32/512/tensor-bT", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			MatMul(ta, tb)
		}
		b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	// Batched small GEMMs (attention-sized): B2 H4 S128 D64.
	q := FromSlice(benchF32(8*128*64), 2, 4, 128, 64)
	k := q.MT()
	b.Run("f32/batch-2x4x128x64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			MatMul(q, k)
		}
		b.ReportMetric(2*8*128*128*64*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

// BenchmarkCheapOps times the cheap element-wise ops of the course's
// Functions (clamps, signs, rounding, masks) on [256,512] of random normal
// values, into a preallocated destination at one thread: float32 and
// float64 (`Clamp0` has a zero bound).
func BenchmarkCheapOps(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dt := range []DType{Float32, Float64} {
		vs := make([]float64, 256*512)
		for i := range vs {
			vs[i] = r.NormFloat64() * 3
		}
		x := FromSlice(vs).To(dt).Reshape(256, 512)
		dst := Empty(dt, 256, 512)
		mask, m2, bdst := x.Gt(0), x.Lt(1), Empty(Bool, 256, 512)
		one := Scalar(1.0).To(dt).Expand(256, 512)
		ops := []struct {
			name string
			run  func()
		}{
			{"Neg", func() { UnaryTo(dst, OpNeg, x) }},
			{"Abs", func() { UnaryTo(dst, OpAbs, x) }},
			{"Sign", func() { UnaryTo(dst, OpSign, x) }},
			{"Round", func() { UnaryTo(dst, OpRound, x) }},
			{"Clamp", func() { UnaryTo(dst, OpClamp, x, -1, 1) }},
			{"Clamp0", func() { UnaryTo(dst, OpClamp, x, 0, 6) }},
			{"Gt", func() { BinaryTo(bdst, OpGt, x, 0.5) }},
			{"LogicalAnd", func() { BinaryTo(bdst, OpAnd, mask, m2) }},
			{"WhereScalars", func() {
				dst.Backend().Where(dst.Raw(), mask.Raw(), one.Raw(), Scalar(0.0).To(dt).Expand(256, 512).Raw())
			}},
			{"MaskedFill", func() { x.MaskedFill(mask, 0) }},
			{"BoolToFloat", func() { mask.To(dt) }},
		}
		for _, o := range ops {
			b.Run(o.name+"/"+dt.String(), func(b *testing.B) {
				withProcs(1, func() {
					for b.Loop() {
						o.run()
					}
				})
			})
		}
	}
}

// BenchmarkTranscendental times Erf, Sin, Cos and Tanh on [256,512] of
// random normal values into a preallocated destination at one thread.
func BenchmarkTranscendental(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []DType{Float32, Float64} {
		vs := make([]float64, 256*512)
		for i := range vs {
			vs[i] = r.NormFloat64() * 3
		}
		x := FromSlice(vs).To(dt).Reshape(256, 512)
		dst := Empty(dt, 256, 512)
		for _, o := range []struct {
			name string
			op   UnaryOp
		}{{"Erf", OpErf}, {"Sin", OpSin}, {"Cos", OpCos}, {"Tanh", OpTanh}} {
			b.Run(o.name+"/"+dt.String(), func(b *testing.B) {
				withProcs(1, func() {
					for b.Loop() {
						UnaryTo(dst, o.op, x)
					}
				})
			})
		}
	}
}

// BenchmarkFreshResult measures what a fresh result costs a cheap op: x·x on
// a [256,512] float32 x (512 KiB each way), written into one reused
// destination ("into"), into destinations taken in turn from a set of the
// given total size ("rotate-N-MiB": where a fresh result lands when the
// collector reuses memory only after a cycle, without the allocator's own
// costs), and into a result Mul allocates ("fresh"). The kernel is the
// same in all; the differences are the cache and the runtime. Run it
// under GOMAXPROCS=1 and GOMAXPROCS=2 (the environment variable, not -cpu:
// the heap floor is chosen at start-up from GOMAXPROCS): on two the
// kernel splits over both cores (see docs/performance.md, "Fresh
// results").
func BenchmarkFreshResult(b *testing.B) {
	const rows, cols = 256, 512
	x := FromSlice(benchF32(rows*cols)).Reshape(rows, cols)
	into := func(dsts []*Tensor) func(b *testing.B) {
		return func(b *testing.B) {
			i := 0
			for b.Loop() {
				BinaryTo(dsts[i], OpMul, x, x)
				i = (i + 1) % len(dsts)
			}
		}
	}
	b.Run("into", into([]*Tensor{Zeros(Float32, rows, cols)}))
	for _, mib := range []int{2, 8, 32, 64} {
		dsts := make([]*Tensor, mib<<20/(4*rows*cols))
		for i := range dsts {
			dsts[i] = Zeros(Float32, rows, cols)
			BinaryTo(dsts[i], OpMul, x, x) // fault its pages in
		}
		b.Run(fmt.Sprintf("rotate-%d-MiB", mib), into(dsts))
	}
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			Mul(x, x)
		}
	})
}

// BenchmarkBroadcastRows compares broadcasts whose result rows are short
// with their dense twin, all into a reused [32,64,64] float32 destination:
// the outer difference x[:,:,None] - x[:,None,:] of soft ranks, a scalar
// per row times a tensor (g[:,:,None]·d in soft ranks' backward), and d·d.
// The three write 2048 rows of 64 elements (see forEachRow3).
func BenchmarkBroadcastRows(b *testing.B) {
	x := FromSlice(benchF32(32*64), 32, 64)
	d := FromSlice(benchF32(32*64*64), 32, 64, 64)
	col, row := x.Reshape(32, 64, 1), x.Reshape(32, 1, 64)
	out := Zeros(Float32, 32, 64, 64)
	for _, c := range []struct {
		name string
		op   BinaryOp
		a, b *Tensor
	}{
		{"outer-sub", OpSub, col, row},
		{"row-scalar-mul", OpMul, col, d},
		{"row-scalar-div", OpDiv, d, col}, // x / x.SumKeep(-1), a row normalisation
		{"dense-mul", OpMul, d, d},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				BinaryTo(out, c.op, c.a, c.b)
			}
		})
	}
}
