package tensor

import "slices"

// Gather implements Backend: for every position p of index (and dst, which has
// index's shape), dst[p] = src[p with p[dim] replaced by index[p]].
func (CPU) Gather(dst, src, index View, dim int) {
	idx := host[int64]("Gather", index.Buf)
	checkIndexRange("Gather", idx, index, src.Shape[dim], dim)
	// src's strides with dim zeroed: the index supplies the position along dim.
	sst := slices.Clone(src.Strides)
	sst[dim] = 0
	shape := index.Shape
	strides := [][]int{dst.Strides, index.Strides, sst}
	offs := []int{dst.Offset, index.Offset, src.Offset}
	step := src.Strides[dim]
	switch dst.DType() {
	case Float32:
		gatherKernel(host[float32]("Gather", dst.Buf), host[float32]("Gather", src.Buf), idx, shape, strides, offs, step)
	case Float64:
		gatherKernel(host[float64]("Gather", dst.Buf), host[float64]("Gather", src.Buf), idx, shape, strides, offs, step)
	case Int64:
		gatherKernel(host[int64]("Gather", dst.Buf), host[int64]("Gather", src.Buf), idx, shape, strides, offs, step)
	case Bool:
		gatherKernel(host[bool]("Gather", dst.Buf), host[bool]("Gather", src.Buf), idx, shape, strides, offs, step)
	}
}

func gatherKernel[T Elem](d, s []T, idx []int64, shape []int, strides [][]int, offs []int, step int) {
	forEachRow(shape, strides, offs, func(o []int, n int, in []int) {
		for i, p, q, r := 0, o[0], o[1], o[2]; i < n; i, p, q, r = i+1, p+in[0], q+in[1], r+in[2] {
			d[p] = s[r+int(idx[q])*step]
		}
	})
}

// checkIndexRange panics with ErrIndex when an element of the index view falls
// outside [0, size). It runs serially before any parallel kernel, so the panic
// reaches the caller's goroutine.
func checkIndexRange(op string, idx []int64, index View, size, dim int) {
	forEachIndex(index.Shape, [][]int{index.Strides}, []int{index.Offset}, func(o []int) {
		if v := idx[o[0]]; v < 0 || v >= int64(size) {
			Panicf(op, ErrIndex, "index %d is out of bounds for dimension %d with size %d", v, dim, size)
		}
	})
}

// Scatter implements Backend: for every position p of index (and src, which has
// index's shape), dst[p with p[dim] replaced by index[p]] = src[p], or += with
// accumulate. It runs serially, so repeated indices are applied in row-major
// order (the last write wins without accumulate).
func (CPU) Scatter(dst, index, src View, dim int, accumulate bool) {
	idx := host[int64]("Scatter", index.Buf)
	checkIndexRange("Scatter", idx, index, dst.Shape[dim], dim)
	dstt := slices.Clone(dst.Strides)
	dstt[dim] = 0
	shape := index.Shape
	strides := [][]int{index.Strides, src.Strides, dstt}
	offs := []int{index.Offset, src.Offset, dst.Offset}
	step := dst.Strides[dim]
	switch dst.DType() {
	case Float32:
		scatterKernel(host[float32]("Scatter", dst.Buf), host[float32]("Scatter", src.Buf), idx, shape, strides, offs, step, accumulate)
	case Float64:
		scatterKernel(host[float64]("Scatter", dst.Buf), host[float64]("Scatter", src.Buf), idx, shape, strides, offs, step, accumulate)
	case Int64:
		scatterKernel(host[int64]("Scatter", dst.Buf), host[int64]("Scatter", src.Buf), idx, shape, strides, offs, step, accumulate)
	case Bool:
		if accumulate {
			Panicf("Scatter", ErrDType, "accumulating scatter is not defined for bool tensors")
		}
		d, s := host[bool]("Scatter", dst.Buf), host[bool]("Scatter", src.Buf)
		forEachIndex(shape, strides, offs, func(o []int) {
			d[o[2]+int(idx[o[0]])*step] = s[o[1]]
		})
	}
}

func scatterKernel[T Num](d, s []T, idx []int64, shape []int, strides [][]int, offs []int, step int, accumulate bool) {
	if accumulate {
		forEachIndex(shape, strides, offs, func(o []int) {
			d[o[2]+int(idx[o[0]])*step] += s[o[1]]
		})
		return
	}
	forEachIndex(shape, strides, offs, func(o []int) {
		d[o[2]+int(idx[o[0]])*step] = s[o[1]]
	})
}
