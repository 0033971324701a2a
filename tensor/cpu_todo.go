package tensor

// Temporary: replaced by the indexing kernels.

func (CPU) Gather(dst, src, index View, dim int) { panic("Gather: not yet") }
func (CPU) Scatter(dst, index, src View, dim int, accumulate bool) {
	panic("Scatter: not yet")
}
