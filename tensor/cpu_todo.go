package tensor

// Temporary: replaced by the reduction, matmul and indexing kernels.

func (CPU) Reduce(op ReduceOp, dst, src View, dims []int) { panic("Reduce: not yet") }
func (CPU) MatMul(dst, a, b View)                         { panic("MatMul: not yet") }
func (CPU) Gather(dst, src, index View, dim int)          { panic("Gather: not yet") }
func (CPU) Scatter(dst, index, src View, dim int, accumulate bool) {
	panic("Scatter: not yet")
}
