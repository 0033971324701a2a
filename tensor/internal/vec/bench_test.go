package vec

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkBinary times dst = a op b and dst = a op s for each implementation
// this CPU runs, from L1-sized to memory-sized slices, and reports bytes moved
// per second (two or three slices).
func BenchmarkBinary(b *testing.B) {
	for _, n := range []int{512, 4096, 131072, 1 << 20} {
		b.Run(fmt.Sprintf("f32/n=%d", n), func(b *testing.B) { benchBinary(b, impls32(), n) })
		b.Run(fmt.Sprintf("f64/n=%d", n), func(b *testing.B) { benchBinary(b, impls64(), n) })
	}
}

func benchBinary[T Float](b *testing.B, impls []*impl[T], n int) {
	x, y, d := make([]T, n), make([]T, n), make([]T, n)
	for i := range x {
		x[i], y[i] = T(i%100)+1, T(i%7)+1
	}
	size := int64(n) * int64(sizeOf[T]())
	for _, im := range impls {
		for _, op := range []Op{Add, Div} {
			b.Run(im.name+"/vv"+opNames[op], func(b *testing.B) {
				b.SetBytes(3 * size)
				for b.Loop() {
					im.vv[op](&d[0], &x[0], &y[0], n)
				}
			})
		}
		b.Run(im.name+"/vsMul", func(b *testing.B) {
			b.SetBytes(2 * size)
			for b.Loop() {
				im.vs[Mul](&d[0], &x[0], 3, n)
			}
		})
	}
}

// BenchmarkSum times Sum with each implementation's leaf.
func BenchmarkSum(b *testing.B) {
	for _, n := range []int{128, 4096, 1 << 20} {
		b.Run(fmt.Sprintf("f32/n=%d", n), func(b *testing.B) { benchSum(b, impls32(), n) })
		b.Run(fmt.Sprintf("f64/n=%d", n), func(b *testing.B) { benchSum(b, impls64(), n) })
	}
}

func benchSum[T Float](b *testing.B, impls []*impl[T], n int) {
	x := make([]T, n)
	for i := range x {
		x[i] = T(i % 100)
	}
	for _, im := range impls {
		b.Run(im.name, func(b *testing.B) {
			b.SetBytes(int64(n) * int64(sizeOf[T]()))
			for b.Loop() {
				pairwise(im.sumLeaf, x, SumBlock[T]())
			}
		})
	}
}

func sizeOf[T Float]() int { return 128 / lanes[T]() }

// BenchmarkKernels times a fused gradient, relu, a comparison and a
// selection for each implementation this CPU runs, reporting the bytes
// moved per second.
func BenchmarkKernels(b *testing.B) {
	for _, n := range []int{4096, 1 << 20} {
		b.Run(fmt.Sprintf("f32/n=%d", n), func(b *testing.B) { benchKernels(b, impls32(), n) })
		b.Run(fmt.Sprintf("f64/n=%d", n), func(b *testing.B) { benchKernels(b, impls64(), n) })
	}
}

func benchKernels[T Float](b *testing.B, impls []*impl[T], n int) {
	x, y, d := make([]T, n), make([]T, n), make([]T, n)
	c := make([]bool, n)
	for i := range x {
		x[i], y[i] = T(i%100)/100-0.5, T(i%7)+1
		c[i] = (i*7919)%13 < 6
	}
	size := int64(n) * int64(sizeOf[T]())
	for _, im := range impls {
		b.Run(im.name+"/sigmoidGrad", func(b *testing.B) {
			b.SetBytes(3 * size)
			for b.Loop() {
				im.grad[SigmoidGrad](&d[0], &x[0], &y[0], n)
			}
		})
		b.Run(im.name+"/tanhGradScalar", func(b *testing.B) {
			b.SetBytes(2 * size)
			for b.Loop() {
				im.gradS[TanhGrad](&d[0], &x[0], 1, n)
			}
		})
		b.Run(im.name+"/relu", func(b *testing.B) {
			b.SetBytes(2 * size)
			for b.Loop() {
				im.relu(&d[0], &x[0], n)
			}
		})
		b.Run(im.name+"/reluGrad", func(b *testing.B) {
			b.SetBytes(3 * size)
			for b.Loop() {
				im.reluGrad(&d[0], &x[0], &y[0], n)
			}
		})
		b.Run(im.name+"/cmpLt", func(b *testing.B) {
			b.SetBytes(2*size + int64(n))
			for b.Loop() {
				im.cmp[Lt](&c[0], &x[0], &y[0], n)
			}
		})
		b.Run(im.name+"/cmpScalarGt", func(b *testing.B) {
			b.SetBytes(size + int64(n))
			for b.Loop() {
				im.cmpS[Gt](&c[0], &x[0], 0, n)
			}
		})
		b.Run(im.name+"/select", func(b *testing.B) {
			b.SetBytes(3*size + int64(n))
			for b.Loop() {
				im.sel(&d[0], &x[0], &y[0], &c[0], n)
			}
		})
		for _, f := range []Fn{Abs, Round, Sign} {
			b.Run(im.name+"/"+strings.ToLower(fnNames[f]), func(b *testing.B) {
				b.SetBytes(2 * size)
				for b.Loop() {
					im.unary[f](&d[0], &x[0], n)
				}
			})
		}
		b.Run(im.name+"/clamp0", func(b *testing.B) {
			b.SetBytes(2 * size)
			for b.Loop() {
				im.clamp(&d[0], &x[0], 0, 0.25, n)
			}
		})
	}
}

// BenchmarkSoftmaxBackward times SoftmaxBackward over 64 rows of n
// elements (the active implementation).
func BenchmarkSoftmaxBackward(b *testing.B) {
	for _, n := range []int{128, 1024} {
		b.Run(fmt.Sprintf("f32/n=%d", n), func(b *testing.B) { benchSoftmaxBackward[float32](b, n) })
		b.Run(fmt.Sprintf("f64/n=%d", n), func(b *testing.B) { benchSoftmaxBackward[float64](b, n) })
	}
}

func benchSoftmaxBackward[T Float](b *testing.B, n int) {
	const rows = 64
	g, y := make([]T, rows*n), make([]T, rows*n)
	for i := range y {
		g[i], y[i] = T(i%7), 1/T(n)
	}
	b.SetBytes(int64(len(g)) * int64(sizeOf[T]()) * 3)
	for b.Loop() {
		SoftmaxBackward(g, y, n, 1) // g settles at 0 after the first call
	}
}
