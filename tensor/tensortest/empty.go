package tensortest

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/tensor"
)

// Empty sizes: every primitive on views with no elements. A destination with
// no elements must leave its buffer alone (the views below sit inside a
// buffer of sentinels); a reduction over an empty dim or a product with an
// empty inner dim writes the identity (0 for Sum and MatMul, 1 for Prod).
// Subtests are named Group/dtype/empty/case.

// emptyShapes are the empty shapes each element-wise primitive is run on.
var emptyShapes = [][]int{{0}, {0, 3}, {3, 0}, {2, 0, 4}}

const sentinel = 7

// hole returns a view of shape (no elements) at offset 1 inside a
// three-element buffer of sentinels.
func hole(be tensor.Backend, dt tensor.DType, shape ...int) tensor.View {
	if tensor.NumelOf(shape) != 0 {
		panic(fmt.Sprintf("tensortest: hole of non-empty shape %v", shape))
	}
	b := buf(be, dt, []float64{sentinel, sentinel, sentinel})
	return tensor.View{Buf: b, Shape: shape, Strides: tensor.ContiguousStrides(shape), Offset: 1}
}

// untouched fails unless v's buffer still holds only sentinels.
func untouched(t *testing.T, be tensor.Backend, v tensor.View) {
	t.Helper()
	check(t, v.DType(), whole(t, be, v.Buf), asDType(v.DType(), []float64{sentinel, sentinel, sentinel}))
}

// withEmpty runs a group's cases and then its empty-size cases.
func withEmpty(cases, empty func(t *testing.T, be tensor.Backend)) func(t *testing.T, be tensor.Backend) {
	return func(t *testing.T, be tensor.Backend) {
		cases(t, be)
		empty(t, be)
	}
}

func emptyAlloc(t *testing.T, be tensor.Backend) {
	for _, dt := range allDTypes {
		run(t, dt.String()+"/empty/alloc-read", func(t *testing.T) {
			b := be.Alloc(dt, 0)
			for _, s := range emptyShapes {
				v := tensor.View{Buf: b, Shape: s, Strides: tensor.ContiguousStrides(s)}
				check(t, dt, read(t, be, v), []float64{})
			}
		})
	}
}

func emptyFromSlice(t *testing.T, be tensor.Backend) {
	for _, dt := range allDTypes {
		for _, s := range emptyShapes {
			run(t, fmt.Sprintf("%v/empty/%v", dt, s), func(t *testing.T) {
				// Read back a view with no elements inside a non-empty buffer.
				v := hole(be, dt, s...)
				check(t, dt, read(t, be, v), []float64{})
				untouched(t, be, v)
			})
		}
	}
}

func emptyFill(t *testing.T, be tensor.Backend) {
	for _, dt := range allDTypes {
		for _, s := range emptyShapes {
			run(t, fmt.Sprintf("%v/empty/%v", dt, s), func(t *testing.T) {
				dst := hole(be, dt, s...)
				be.Fill(dst, 1)
				untouched(t, be, dst)
			})
		}
	}
}

func emptyCopy(t *testing.T, be tensor.Backend) {
	for _, dt := range allDTypes {
		for _, src := range allDTypes {
			for _, s := range emptyShapes {
				run(t, fmt.Sprintf("%v/empty/from-%v/%v", dt, src, s), func(t *testing.T) {
					dst := hole(be, dt, s...)
					be.Copy(dst, zeros(be, src, s...))
					untouched(t, be, dst)
				})
			}
		}
	}
}

func emptyUnary(t *testing.T, be tensor.Backend) {
	for _, dt := range numDTypes {
		cases := floatUnaryCases()
		if dt == tensor.Int64 {
			cases = intUnaryCases()
		}
		for _, name := range sortedKeys(cases) {
			c := cases[name]
			for _, s := range emptyShapes {
				run(t, fmt.Sprintf("%v/empty/%s/%v", dt, name, s), func(t *testing.T) {
					dst := hole(be, dt, s...)
					be.Unary(c.op, dst, zeros(be, dt, s...), c.args...)
					untouched(t, be, dst)
				})
			}
		}
	}
	for _, s := range emptyShapes {
		run(t, fmt.Sprintf("bool/empty/Not/%v", s), func(t *testing.T) {
			dst := hole(be, tensor.Bool, s...)
			be.Unary(tensor.OpNot, dst, zeros(be, tensor.Bool, s...))
			untouched(t, be, dst)
		})
	}
}

func emptyBinary(t *testing.T, be tensor.Backend) {
	logical := map[string]binaryCase{"And": {op: tensor.OpAnd}, "Or": {op: tensor.OpOr}, "Xor": {op: tensor.OpXor}}
	for _, dt := range allDTypes {
		cases := logical
		if dt != tensor.Bool {
			cases = binaryCases(dt)
		}
		for _, name := range sortedKeys(cases) {
			c := cases[name]
			ddt := dt
			if c.op.IsCompare() {
				ddt = tensor.Bool
			}
			for _, s := range emptyShapes {
				run(t, fmt.Sprintf("%v/empty/%s/%v", dt, name, s), func(t *testing.T) {
					dst := hole(be, ddt, s...)
					// b broadcast along its first dim (stride 0).
					bv := zeros(be, dt, s...)
					bv.Strides = append([]int{0}, bv.Strides[1:]...)
					be.Binary(c.op, dst, zeros(be, dt, s...), bv)
					untouched(t, be, dst)
				})
			}
		}
	}
}

func emptyWhere(t *testing.T, be tensor.Backend) {
	for _, dt := range allDTypes {
		for _, s := range emptyShapes {
			run(t, fmt.Sprintf("%v/empty/%v", dt, s), func(t *testing.T) {
				dst := hole(be, dt, s...)
				be.Where(dst, zeros(be, tensor.Bool, s...), zeros(be, dt, s...), zeros(be, dt, s...))
				untouched(t, be, dst)
			})
		}
	}
}

func emptyReduce(t *testing.T, be tensor.Backend) {
	ops := []tensor.ReduceOp{tensor.OpSum, tensor.OpProd, tensor.OpMax, tensor.OpMin, tensor.OpArgMax, tensor.OpArgMin}
	for _, dt := range numDTypes {
		for _, op := range ops {
			arg := op == tensor.OpArgMax || op == tensor.OpArgMin
			ddt := dt
			if arg {
				ddt = tensor.Int64
			}
			// Reducing a non-empty dim of an empty source: an empty result.
			for _, c := range []struct {
				shape, dims []int
			}{{[]int{0, 3}, []int{1}}, {[]int{2, 0, 4}, []int{2}}, {[]int{2, 0, 4}, []int{0}}} {
				run(t, fmt.Sprintf("%v/empty/%s/%v/dims=%v", dt, reduceNames[op], c.shape, c.dims), func(t *testing.T) {
					out := append([]int(nil), c.shape...)
					for _, d := range c.dims {
						out[d] = 1
					}
					dst := hole(be, ddt, out...)
					be.Reduce(op, dst, zeros(be, dt, c.shape...), c.dims)
					untouched(t, be, dst)
				})
			}
			if arg || op == tensor.OpMax || op == tensor.OpMin {
				continue // no identity: the tensor package refuses these
			}
			// Reducing an empty dim: the identity.
			for _, c := range []struct {
				shape, dims []int
			}{{[]int{0}, []int{0}}, {[]int{3, 0}, []int{1}}, {[]int{0, 3}, []int{0, 1}}, {[]int{2, 0, 4}, []int{1}}} {
				run(t, fmt.Sprintf("%v/empty/%s/%v/dims=%v", dt, reduceNames[op], c.shape, c.dims), func(t *testing.T) {
					out := append([]int(nil), c.shape...)
					for _, d := range c.dims {
						out[d] = 1
					}
					dst := zeros(be, dt, out...)
					be.Fill(dst, sentinel)
					be.Reduce(op, dst, zeros(be, dt, c.shape...), c.dims)
					check(t, dt, read(t, be, dst), reduceRef(op, nil, c.shape, c.dims))
				})
			}
		}
	}
}

func emptyMatMul(t *testing.T, be tensor.Backend) {
	for _, dt := range floatDTypes {
		for _, c := range []struct{ nb, m, k, n int }{
			{1, 0, 3, 4}, {1, 3, 4, 0}, {1, 0, 0, 0}, {0, 2, 3, 4}, {2, 0, 3, 2},
		} {
			run(t, fmt.Sprintf("%v/empty/%dx%dx%dx%d", dt, c.nb, c.m, c.k, c.n), func(t *testing.T) {
				dst := hole(be, dt, c.nb, c.m, c.n)
				be.MatMul(dst, zeros(be, dt, c.nb, c.m, c.k), zeros(be, dt, c.nb, c.k, c.n))
				untouched(t, be, dst)
			})
		}
		// An empty inner dim: the result is all zeros, whatever dst held.
		for _, c := range []struct{ nb, m, n int }{{1, 2, 3}, {2, 3, 1}, {1, 40, 33}} {
			run(t, fmt.Sprintf("%v/empty/%dx%dx0x%d", dt, c.nb, c.m, c.n), func(t *testing.T) {
				dst := zeros(be, dt, c.nb, c.m, c.n)
				be.Fill(dst, math.NaN())
				be.MatMul(dst, zeros(be, dt, c.nb, c.m, 0), zeros(be, dt, c.nb, 0, c.n))
				check(t, dt, read(t, be, dst), make([]float64, c.nb*c.m*c.n))
			})
		}
	}
}

func emptyGather(t *testing.T, be tensor.Backend) {
	for _, dt := range allDTypes {
		for _, c := range []struct {
			name           string
			sshape, ishape []int
			dim            int
		}{
			{"index", []int{3, 4}, []int{0, 4}, 0},
			{"index-dim", []int{3, 4}, []int{3, 0}, 1},
			{"source", []int{0, 4}, []int{0, 2}, 1},
		} {
			run(t, fmt.Sprintf("%v/empty/%s", dt, c.name), func(t *testing.T) {
				dst := hole(be, dt, c.ishape...)
				src := contig(be, dt, make([]float64, tensor.NumelOf(c.sshape)), c.sshape...)
				be.Gather(dst, src, zeros(be, tensor.Int64, c.ishape...), c.dim)
				untouched(t, be, dst)
			})
		}
	}
}

func emptyScatter(t *testing.T, be tensor.Backend) {
	for _, acc := range []bool{false, true} {
		mode := "overwrite"
		if acc {
			mode = "accumulate"
		}
		for _, dt := range allDTypes {
			if acc && dt == tensor.Bool {
				continue
			}
			for _, ishape := range [][]int{{0, 3}, {2, 0}} {
				run(t, fmt.Sprintf("%v/empty/%s/%v", dt, mode, ishape), func(t *testing.T) {
					dst := contig(be, dt, []float64{1, 0, 1, 1, 0, 1}, 2, 3)
					be.Scatter(dst, zeros(be, tensor.Int64, ishape...), zeros(be, dt, ishape...), 1, acc)
					check(t, dt, read(t, be, dst), []float64{1, 0, 1, 1, 0, 1})
				})
			}
			run(t, fmt.Sprintf("%v/empty/%s/into-empty", dt, mode), func(t *testing.T) {
				dst := hole(be, dt, 0, 3)
				be.Scatter(dst, zeros(be, tensor.Int64, 0, 2), zeros(be, dt, 0, 2), 1, acc)
				untouched(t, be, dst)
			})
		}
	}
}
