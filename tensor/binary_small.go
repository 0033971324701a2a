package tensor

// binarySmall computes a op b for the most common operands of autograd loops:
// two CPU tensors of the same float dtype and the same shape, of rank ≤ 1 and
// at most 4 elements, laid out without gaps. It skips operand resolution,
// promotion and broadcasting, whose outcome is known here, and returns nil
// for anything else. The result is the one Binary's general path computes.
func binarySmall(op BinaryOp, a, b any) *Tensor {
	x, ok := a.(*Tensor)
	if !ok || x == nil {
		return nil
	}
	y, ok := b.(*Tensor)
	if !ok || y == nil {
		return nil
	}
	switch op {
	case OpAdd, OpSub, OpMul, OpDiv:
	default:
		return nil
	}
	if len(x.shape) > 1 || len(y.shape) != len(x.shape) {
		return nil
	}
	n := 1
	if len(x.shape) == 1 {
		n = x.shape[0]
		if y.shape[0] != n || n > 4 || (n > 1 && (x.strides[0] != 1 || y.strides[0] != 1)) {
			return nil
		}
	}
	if _, cpu := x.st.be.(CPU); !cpu || y.st.be != x.st.be {
		return nil
	}
	switch xb := x.st.buf.(type) {
	case *hostBuf[float32]:
		yb, ok := y.st.buf.(*hostBuf[float32])
		if !ok {
			return nil
		}
		out := newSmallHost[float32](x.st.be, x.shape, n)
		flatKernel(op, out.st.buf.(*hostBuf[float32]).s[:n], xb.s[x.offset:x.offset+n], yb.s[y.offset:y.offset+n])
		return out
	case *hostBuf[float64]:
		yb, ok := y.st.buf.(*hostBuf[float64])
		if !ok {
			return nil
		}
		out := newSmallHost[float64](x.st.be, x.shape, n)
		flatKernel(op, out.st.buf.(*hostBuf[float64]).s[:n], xb.s[x.offset:x.offset+n], yb.s[y.offset:y.offset+n])
		return out
	}
	return nil
}
