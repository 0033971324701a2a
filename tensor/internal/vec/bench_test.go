package vec

import (
	"fmt"
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
