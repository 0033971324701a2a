package agx

import "github.com/goagx/agx/tensor"

// Backward functions of Add and Mul for the common case where no operand is
// broadcast or promoted: every tensor operand has the output's shape and dtype,
// so a gradient needs no reduction and the backward captures nothing. Sharing
// one function value per case saves the closure allocation (about 200 bytes)
// that each recorded op would otherwise make.

// sameAsOut reports whether t has out's dtype and shape.
func sameAsOut(t *Tensor, out *tensor.Tensor) bool {
	if t.DType() != out.DType() {
		return false
	}
	return shapeIs(t.data, out.Raw().Shape)
}

// Kinds of Node.fast: Mul's backward (fastMul, or fastSquare when both
// operands are one tensor), or Add's with the dtype and which operands are
// tensors packed in (fastAdd | k<<fastShift | fastF64; always even).
const (
	fastMul    uint8 = 1
	fastAdd    uint8 = 2
	fastSquare uint8 = 3
	fastF64    uint8 = 4
	fastShift        = 3
)

// fastBackward computes the backward of a node of fast kind into out (two
// slots) and returns out. It is what the node's bw computes, without
// allocating the result slice.
func fastBackward(kind uint8, g *Tensor, s, out []*Tensor) []*Tensor {
	if kind == fastSquare {
		return squareBackward(g, s[0], out)
	}
	if kind == fastMul {
		out[0], out[1] = nil, nil
		if s[0] != nil {
			out[0] = likeInput(Mul(g, s[0]), s[0])
		}
		if s[1] != nil {
			out[1] = likeInput(Mul(g, s[1]), s[1])
		}
		return out
	}
	dt := Float32
	if kind&fastF64 != 0 {
		dt = Float64
	}
	if g.DType() != dt {
		g = g.To(dt)
	}
	k := kind >> fastShift
	out[0], out[1] = nil, nil
	if k&1 != 0 {
		out[0] = g
	}
	if k&2 != 0 {
		out[1] = g
	}
	return out
}

// addSame holds the shared Add backwards, indexed by dtype (Float32, Float64)
// and by which operands are tensors (1: a, 2: b, 3: both), with their fast
// kinds.
var (
	addSame     [2][4]func(g *Tensor, _ []*Tensor) []*Tensor
	addSameKind [2][4]uint8
)

// init fills addSame (in init rather than in the declaration, because the
// backwards call Mul, whose forward rule calls Add, which reads addSame).
func init() { addSame, addSameKind = makeAddSame() }

func makeAddSame() (tab [2][4]func(g *Tensor, _ []*Tensor) []*Tensor, kinds [2][4]uint8) {
	for i := range 2 {
		for k := 1; k < 4; k++ {
			kind := fastAdd | uint8(k)<<fastShift
			if i == 1 {
				kind |= fastF64
			}
			kinds[i][k] = kind
			tab[i][k] = func(g *Tensor, s []*Tensor) []*Tensor {
				return fastBackward(kind, g, s, make([]*Tensor, 2))
			}
		}
	}
	return tab, kinds
}

// addSameBackward returns the shared Add backward when every tensor operand
// has out's shape and dtype, else nil.
func addSameBackward(x, y *Tensor, out *tensor.Tensor) (func(g *Tensor, _ []*Tensor) []*Tensor, uint8) {
	var i int
	switch out.DType() {
	case Float32:
		i = 0
	case Float64:
		i = 1
	default:
		return nil, 0
	}
	k := 0
	if x != nil {
		if !sameAsOut(x, out) {
			return nil, 0
		}
		k |= 1
	}
	if y != nil {
		if !sameAsOut(y, out) {
			return nil, 0
		}
		k |= 2
	}
	return addSame[i][k], addSameKind[i][k]
}

// mulSameBackward is Mul's backward when both operands are tensors of the
// output's shape and dtype. s[0] is b (saved when a requires grad), s[1] is a.
func mulSameBackward(g *Tensor, s []*Tensor) []*Tensor {
	return fastBackward(fastMul, g, s, make([]*Tensor, 2))
}

// squareBackward is the fast backward of x.Mul(x) into out (two slots):
// Mul's backward gives g·x to each operand, and here both get one tensor,
// computed once. The engine adds them where they meet at x as it adds any
// two gradients, in the same order, so the bits are those of two products;
// when nothing else refers to that tensor, it adds it into itself in place
// (gradBuffers.deposit), so x·x's backward takes two passes and one buffer
// instead of three and two.
func squareBackward(g, x *Tensor, out []*Tensor) []*Tensor {
	gx := likeInput(Mul(g, x), x)
	out[0], out[1] = gx, gx
	return out
}

// likeInput casts a gradient to the dtype of like, which has the input's shape
// and dtype (the operands share them), and sums it to that shape if needed.
func likeInput(g, like *Tensor) *Tensor {
	if !shapeIs(g.data, like.data.Raw().Shape) {
		g = sumTo(g, like.data.Shape())
	}
	if g.DType() != like.DType() {
		g = g.To(like.DType())
	}
	return g
}

// withFast marks the node of t, which record has just made, as of fast kind.
func withFast(t *Tensor, kind uint8) *Tensor {
	if t.gradFn != nil {
		t.gradFn.fast = kind
	}
	return t
}
