package tensor

import (
	"fmt"
	"slices"
	"testing"
)

// TestReduceNoDimsManyWorkers: CPU.Reduce with no dims to reduce copies its
// source, also when the source is large enough to split and every dim is
// smaller than the worker count (reduceT then has no dim to split along).
func TestReduceNoDimsManyWorkers(t *testing.T) {
	for _, dt := range []DType{Float32, Float64, Int64} {
		for _, procs := range []int{1, 2, 64} {
			t.Run(fmt.Sprintf("%v/procs%d", dt, procs), func(t *testing.T) {
				old := parallelMin
				parallelMin = 64 // split from 64 elements on (cheap sums: a multiple)
				defer func() { parallelMin = old }()
				withProcs(procs, func() {
					src := FromSlice(seq(60*60*60), 60, 60, 60).To(dt)
					dst := Empty(dt, 60, 60, 60)
					for _, op := range []ReduceOp{OpSum, OpProd, OpMax, OpMin} {
						CPU{}.Reduce(op, dst.Raw(), src.Raw(), nil)
						if !slices.Equal(dst.Float64s(), src.Float64s()) {
							t.Fatalf("%v over no dims differs from its source", op)
						}
					}
				})
			})
		}
	}
}
