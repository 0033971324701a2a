package tensor

// Temporary: replaced by the reduction and matmul kernels.

func (CPU) Reduce(op ReduceOp, dst, src View, dims []int) { panic("Reduce: not yet") }
func (CPU) MatMul(dst, a, b View)                         { panic("MatMul: not yet") }
