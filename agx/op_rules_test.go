package agx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goagx/agx/tensor"
)

// ruleCase is one way to call an op for TestOpRules: its tensor inputs and
// its arguments (the op's P; nil for the zero value). An op of any number of
// inputs (Cat) takes both from list instead.
type ruleCase struct {
	name   string
	inputs func(r *rand.Rand, dt DType) ins
	args   func(x ins) any
	list   func(r *rand.Rand, dt DType) ([]*Tensor, any)
}

// ruleCases gives the cases of the ops that need more than the default (one
// input of shape [3,4] with values of both signs, away from 0, and the zero
// value of the op's arguments). An op with arguments or two inputs must have
// an entry, else TestOpRules fails: add one when adding such an op.
var ruleCases = map[string][]ruleCase{
	"LogBackward0":    {{inputs: positive}},
	"Log1pBackward0":  {{inputs: positive}},
	"SqrtBackward0":   {{inputs: positive}},
	"RsqrtBackward0":  {{inputs: positive}},
	"ClampBackward1":  {{args: func(ins) any { return clampArgs{-1, 1} }}, {name: "lower", args: func(ins) any { return clampArgs{0, math.Inf(1)} }}},
	"ToCopyBackward0": {{name: "to-other-dtype", args: toOtherDType}},

	"AddBackward0":     binaryCases(signedTensor, signedTensor, binArgsOf),
	"SubBackward0":     binaryCases(signedTensor, signedTensor, binArgsOf),
	"MulBackward0":     binaryCases(signedTensor, signedTensor, binArgsOf),
	"DivBackward0":     binaryCases(signedTensor, signedTensor, binArgsOf),
	"PowBackward1":     binaryCases(positiveTensor, signedTensor, binArgsOf),
	"MaximumBackward0": binaryCases(signedTensor, signedTensor, minmaxArgsOf(tensor.OpMaximum)),
	"MinimumBackward0": binaryCases(signedTensor, signedTensor, minmaxArgsOf(tensor.OpMinimum)),
	"WhereBackward0": binaryCases(signedTensor, signedTensor, func(a, b any, x, y *Tensor) any {
		return whereArgs{newBinArgs(a, b), whereCond}
	}),
	"PowBackward0": powCases(),

	"MmBackward0": {
		mmCase("matrices", []int{3, 4}, []int{4, 5}, false),
		mmCase("batched", []int{2, 3, 4}, []int{4, 5}, false),
		mmCase("transposed", []int{3, 4}, []int{4, 5}, true),
	},

	"ReshapeAliasBackward0": {shapeCase("", []int{3, 4}, reshapeArgsOf(2, 6)), shapeCase("flat", []int{3, 4}, reshapeArgsOf(-1))},
	"ViewBackward0":         {shapeCase("", []int{3, 4}, reshapeArgsOf(2, -1, 3))},
	"SqueezeBackward0": {shapeCase("", []int{3, 1, 4}, reshapeArgsOf(1)),
		shapeCase("all", []int{1, 3, 1}, reshapeArgsOf())},
	"UnsqueezeBackward0": {shapeCase("", []int{3, 4}, func(x ins) any { return reshapeArgs{dim: 1} })},
	"ExpandBackward0": {shapeCase("", []int{3, 1}, reshapeArgsOf(3, 4)),
		shapeCase("new-dims", []int{4}, reshapeArgsOf(2, 3, 4))},
	"TransposeBackward0": {shapeCase("", []int{2, 3, 4}, func(ins) any { return transposeArgs{0, -1} })},
	"PermuteBackward0":   {shapeCase("", []int{2, 3, 4}, func(ins) any { return permuteArgs{[]int{2, 0, 1}, []int{1, 2, 0}} })},

	"SumBackward0":       {reduceCase("", false, nil)},
	"SumBackward1":       {reduceCase("", false, nil, 1), reduceCase("keep", true, nil, 0)},
	"MeanBackward0":      {reduceCase("", false, nil)},
	"MeanBackward1":      {reduceCase("", false, nil, 1), reduceCase("keep", true, nil, -2)},
	"VarBackward0":       {reduceCase("", false, func(p *reduceArgs) { p.unbiased = true }, 1), reduceCase("biased-all", true, nil)},
	"AmaxBackward0":      {reduceCase("", false, func(p *reduceArgs) { p.max = true }, 1), reduceCase("all", true, func(p *reduceArgs) { p.max = true })},
	"AminBackward0":      {reduceCase("", true, nil, 0)},
	"LogsumexpBackward0": {reduceCase("", false, nil, 1), reduceCase("keep-all", true, nil)},
	"MaxBackward0":       {extremeDimCase(true, false, 1), extremeDimCase(true, true, 0)},
	"MinBackward0":       {extremeDimCase(false, false, -1)},
	"SoftmaxBackward0":   {shapeCase("", []int{3, 4}, func(ins) any { return dimArgs{1} })},
	"LogSoftmaxBackward0": {shapeCase("", []int{3, 4}, func(ins) any { return dimArgs{1} }),
		shapeCase("dim0", []int{3, 4}, func(ins) any { return dimArgs{0} })},

	"NarrowBackward0": {shapeCase("", []int{3, 4}, viewArgsOf(narrowView, func(x *tensor.Tensor) *tensor.Tensor { return x.Narrow(1, 1, 2) }))},
	"SliceBackward0":  {shapeCase("", []int{3, 4}, viewArgsOf(sliceView, func(x *tensor.Tensor) *tensor.Tensor { return x.Slice(1, 0, 4, 2) }))},
	"SelectBackward0": {shapeCase("", []int{3, 4}, viewArgsOf(selectView, func(x *tensor.Tensor) *tensor.Tensor { return x.Select(0, 2) }))},
	"ViewBackward":    {shapeCase("", []int{3, 4}, viewArgsOf(viewOfGrad, func(x *tensor.Tensor) *tensor.Tensor { return x.Narrow(0, 1, 2) }))},
	"EmbedBackward": {shapeCase("", []int{3, 2}, func(ins) any {
		return embedArgs{[]int{3, 4}, func(x *tensor.Tensor) *tensor.Tensor { return x.Narrow(1, 1, 2) }}
	})},

	"GatherBackward0": {{inputs: signed, args: func(x ins) any {
		return gatherArgs{1, indexData([]int64{0, 3, 1, 1, 2, 0}, 3, 2), x[0].Shape()}
	}}},
	"ScatterAddBackward0": {{inputs: scatterInputs, args: func(x ins) any {
		return scatterArgs{dim: 1, idx: indexData([]int64{0, 3, 1, 1, 2, 0}, 3, 2)}
	}}},
	"ScatterBackward0": {{inputs: scatterInputs, args: func(x ins) any {
		return scatterArgs{1, indexData([]int64{0, 3, 1, 2, 2, 0}, 3, 2), metaOf(x[1])}
	}}},
	"IndexSelectBackward0": {{inputs: signed, args: func(x ins) any {
		index := indexData([]int64{2, 0, 2}, 3)
		idx := index.Reshape(3, 1).Expand(3, 4)
		return indexSelectArgs{gatherArgs{0, idx, x[0].Shape()}, index}
	}}},
	"MaskedFillBackward0": {{args: func(x ins) any { return maskArgs{x[0].data.Lt(0), 3} }}},

	"NativeBatchNormBackward0": {bnCase("", true, 4, 3), bnCase("no-affine", false, 4, 3), bnCase("3d", true, 2, 3, 4)},

	"AsStridedBackward0": {regionCase("narrow", false, func(x *tensor.Tensor) *tensor.Tensor { return x.Narrow(1, 1, 2) }),
		regionCase("transposed-select", false, func(x *tensor.Tensor) *tensor.Tensor { return x.T().Select(0, 2) })},
	"CopySlices": {regionCase("narrow", true, func(x *tensor.Tensor) *tensor.Tensor { return x.Narrow(1, 1, 2) }),
		regionCase("transposed-slice", true, func(x *tensor.Tensor) *tensor.Tensor { return x.T().Slice(0, 0, 4, 2) })},

	"CatBackward0": {catCase("dim0", 0, nil, []int{2, 4}, []int{3, 4}),
		catCase("dim1", -1, nil, []int{3, 1}, []int{3, 4}, []int{3, 2}),
		catCase("one", 1, nil, []int{2, 3, 4}),
		catCase("mixed-dtypes", 0, []DType{Float64, Float32}, []int{2, 4}, []int{3, 4})},
	"StackBackward0": {stackCase("dim0", 0, nil, 3, 4), stackCase("dim-1", -1, nil, 3, 4),
		stackCase("mixed-dtypes", 1, []DType{Float32, Float64}, 3, 4)},
}

// whereCond is the condition of Where's cases (of their output's shape).
var whereCond = tensor.FromSlice([]bool{true, false, false, true, false, true, true, false, true, true, false, false}, 3, 4)

// reduceCase is a reduction of a [3,4] input over dims; set fills in the
// arguments beyond the dims.
func reduceCase(name string, keep bool, set func(p *reduceArgs), dims ...int) ruleCase {
	return ruleCase{name: name, args: func(x ins) any {
		p := newReduce(x[0], keep, dims)
		if set != nil {
			set(&p)
		}
		return p
	}}
}

// extremeDimCase is MaxDim's or MinDim's case on a [3,4] input.
func extremeDimCase(isMax, keep bool, dim int) ruleCase {
	return ruleCase{name: fmt.Sprint("dim=", dim, ",keep=", keep), args: func(x ins) any {
		p := reduceArgs{keep: keep, in: metaOf(x[0]), max: isMax, dims: []int{dim}}
		p.dim = normDims(x[0].data.Raw().Shape, p.dims)[0]
		var idx *tensor.Tensor
		if isMax {
			_, idx = x[0].data.MaxDim(dim, true)
		} else {
			_, idx = x[0].data.MinDim(dim, true)
		}
		p.idx = idx
		return p
	}}
}

// bnCase is BatchNorm of an input of shape, with a weight and bias or
// without (affine false), eps 1e-5.
func bnCase(name string, affine bool, shape ...int) ruleCase {
	return ruleCase{name: name,
		inputs: func(r *rand.Rand, dt DType) ins {
			x := ins{signedTensor(r, dt, shape...)}
			if affine {
				x[1], x[2] = positiveTensor(r, dt, shape[1]), signedTensor(r, dt, shape[1])
			}
			return x
		},
		args: func(x ins) any {
			_, mean, invstd := tensor.BatchNormForward(x[0].data, dataOrNil(x[1]), dataOrNil(x[2]), 1e-5)
			return bnArgs{eps: 1e-5, mean: mean, invstd: invstd}
		}}
}

// regionCase is AsStridedBackward0 (a base of shape [3,4] and its view) or,
// with written, CopySlices (the base and new values for the view).
func regionCase(name string, written bool, view func(*tensor.Tensor) *tensor.Tensor) ruleCase {
	region := func(x *Tensor) regionArgs {
		v := view(x.data)
		idx, ok := viewIndex(x.data, v)
		if !ok {
			panic("regionCase: a view that is not one to one")
		}
		m := make([]float64, x.Numel())
		for i := range m {
			m[i] = 1
		}
		for _, k := range idx {
			m[k] = 0
		}
		mask := tensor.FromSlice(m, 3, 4).To(x.DType())
		return regionArgs{idx: wrap(tensor.FromSlice(idx, len(idx))), vshape: v.Shape(), base: metaOf(x), mask: wrap(mask)}
	}
	return ruleCase{name: name,
		inputs: func(r *rand.Rand, dt DType) ins {
			x := signedTensor(r, dt, 3, 4)
			if !written {
				return ins{x}
			}
			return ins{x, signedTensor(r, dt, view(x.data).Shape()...)}
		},
		args: func(x ins) any { return region(x[0]) }}
}

// catCase is a Cat along dim of inputs of the given shapes, of the case's
// dtype or, where given, of dts's.
func catCase(name string, dim int, dts []DType, shapes ...[]int) ruleCase {
	return ruleCase{name: name, list: func(r *rand.Rand, dt DType) ([]*Tensor, any) {
		xs := listOf(r, dt, dts, shapes)
		if dim < 0 {
			dim += xs[0].Dim()
		}
		return xs, newCatArgs(dim, xs)
	}}
}

// stackCase is a Stack along dim of 2 inputs of shape, of the case's dtype or,
// where given, of dts's.
func stackCase(name string, dim int, dts []DType, shape ...int) ruleCase {
	return ruleCase{name: name, list: func(r *rand.Rand, dt DType) ([]*Tensor, any) {
		xs := listOf(r, dt, dts, [][]int{shape, shape})
		if dim < 0 {
			dim += len(shape) + 1
		}
		return xs, catArgs{dim: dim, dts: dtypesOf(xs)}
	}}
}

// listOf are inputs of the given shapes, of dtype dt or, where given, dts[i].
func listOf(r *rand.Rand, dt DType, dts []DType, shapes [][]int) []*Tensor {
	xs := make([]*Tensor, len(shapes))
	for i, sh := range shapes {
		d := dt
		if dts != nil {
			d = dts[i]
		}
		xs[i] = signedTensor(r, d, sh...)
	}
	return xs
}

// shapeCase is a case of one input of the given shape.
func shapeCase(name string, shape []int, args func(x ins) any) ruleCase {
	return ruleCase{name: name, args: args,
		inputs: func(r *rand.Rand, dt DType) ins { return ins{signedTensor(r, dt, shape...)} }}
}

// reshapeArgsOf are the arguments of Reshape, View, Squeeze or Expand to shape.
func reshapeArgsOf(shape ...int) func(x ins) any {
	return func(x ins) any { return reshapeArgs{shape: shape} }
}

// viewArgsOf are the arguments of a sliceLike view of kind.
func viewArgsOf(kind int, view func(*tensor.Tensor) *tensor.Tensor) func(x ins) any {
	return func(x ins) any { return viewArgs{kind, view, x[0].Shape()} }
}

// mmCase is a MatMul case of operands of shapes sa and sb; transposed
// stores both as the transposes of row-major matrices.
func mmCase(name string, sa, sb []int, transposed bool) ruleCase {
	mk := func(r *rand.Rand, dt DType, shape []int) *Tensor {
		if !transposed {
			return signedTensor(r, dt, shape...)
		}
		return wrap(signedTensor(r, dt, shape[1], shape[0]).data.MT())
	}
	return ruleCase{name: name,
		inputs: func(r *rand.Rand, dt DType) ins { return ins{mk(r, dt, sa), mk(r, dt, sb)} },
		args: func(x ins) any {
			ma, mb := metaOf(x[0]), metaOf(x[1])
			return mmArgs{ma, mb, ma.req && storedTransposed(x[0].data), mb.req && storedTransposed(x[1].data)}
		}}
}

// indexData is an Int64 index of the given values and shape.
func indexData(v []int64, shape ...int) *tensor.Tensor { return tensor.FromSlice(v, shape...) }

// scatterInputs are a [3,4] tensor and a [3,2] source.
func scatterInputs(r *rand.Rand, dt DType) ins {
	return ins{signedTensor(r, dt, 3, 4), signedTensor(r, dt, 3, 2)}
}

// binaryCases are the cases of a binary op: tensors of one shape (and ties:
// both operands equal), broadcast either way, a Go number either side. The
// operands' values come from gen (a) and genB (b); args makes the op's
// arguments from the operands as the op got them.
func binaryCases(gen, genB func(r *rand.Rand, dt DType, shape ...int) *Tensor, args func(a, b any, x, y *Tensor) any) []ruleCase {
	tensors := func(name string, sa, sb []int) ruleCase {
		return ruleCase{name: name,
			inputs: func(r *rand.Rand, dt DType) ins { return ins{gen(r, dt, sa...), genB(r, dt, sb...)} },
			args:   func(x ins) any { return args(x[0], x[1], x[0], x[1]) }}
	}
	return []ruleCase{
		tensors("same", []int{3, 4}, []int{3, 4}),
		tensors("broadcast", []int{3, 4}, []int{4}),
		tensors("broadcast-first", []int{3, 1}, []int{3, 4}),
		{name: "ties",
			inputs: func(r *rand.Rand, dt DType) ins {
				a := gen(r, dt, 3, 4)
				return ins{a, wrap(a.data.Clone())}
			},
			args: func(x ins) any { return args(x[0], x[1], x[0], x[1]) }},
		{name: "number",
			inputs: func(r *rand.Rand, dt DType) ins { return ins{gen(r, dt, 3, 4)} },
			args:   func(x ins) any { return args(x[0], 1.5, x[0], nil) }},
		{name: "number-first",
			inputs: func(r *rand.Rand, dt DType) ins { return ins{nil, genB(r, dt, 3, 4)} },
			args:   func(x ins) any { return args(1.5, x[1], nil, x[1]) }},
	}
}

func binArgsOf(a, b any, x, y *Tensor) any { return newBinArgs(a, b) }

func minmaxArgsOf(op tensor.BinaryOp) func(a, b any, x, y *Tensor) any {
	return func(a, b any, x, y *Tensor) any { return minmaxArgs{newBinArgs(a, b), op} }
}

// powCases are Pow(x, p)'s for Go-number exponents, the cheap forms among
// them.
func powCases() []ruleCase {
	var cs []ruleCase
	for _, p := range []float64{2, 3, -1, 0.5, -0.5, 0, 1.7} {
		cs = append(cs, ruleCase{name: fmt.Sprint("p=", p), inputs: positive, args: func(ins) any { return powArgs{p} }})
	}
	for _, p := range []float64{2, 3, -2} {
		cs = append(cs, ruleCase{name: fmt.Sprint("signed/p=", p), args: func(ins) any { return powArgs{p} }})
	}
	return cs
}

func positiveTensor(r *rand.Rand, dt DType, shape ...int) *Tensor {
	return randTensor(r, dt, func(r *rand.Rand) float64 { return 0.5 + 1.5*r.Float64() }, shape...)
}

// positive is one input of shape [3,4] with values in [0.5, 2].
func positive(r *rand.Rand, dt DType) ins {
	return ins{randTensor(r, dt, func(r *rand.Rand) float64 { return 0.5 + 1.5*r.Float64() }, 3, 4)}
}

// signed is one input of shape [3,4] with values in ±[0.5, 2].
func signed(r *rand.Rand, dt DType) ins { return ins{signedTensor(r, dt, 3, 4)} }

func signedTensor(r *rand.Rand, dt DType, shape ...int) *Tensor {
	return randTensor(r, dt, func(r *rand.Rand) float64 {
		v := 0.5 + 1.5*r.Float64()
		if r.IntN(2) == 0 {
			return -v
		}
		return v
	}, shape...)
}

func toOtherDType(x ins) any {
	if x[0].DType() == Float32 {
		return toArgs{from: Float32, to: Float64}
	}
	return toArgs{from: Float64, to: Float32}
}

func randTensor(r *rand.Rand, dt DType, gen func(*rand.Rand) float64, shape ...int) *Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = gen(r)
	}
	return FromSlice(v, shape...).To(dt)
}

// opTables are the tables TestOpRules goes through.
func opTables() map[string][]rules {
	return map[string][]rules{"unary": unaryOps, "arith": arithOps, "matmul": matmulOps, "index": indexOps, "shape": shapeOps, "reduce": reduceOps, "batchnorm": batchNormOps, "views": inplaceViewOps}
}

// ruleChecker is what TestOpRules needs of an opDef of any P.
type ruleChecker interface {
	checkRules(t *testing.T, c ruleCase, r *rand.Rand, dt DType)
	hasArgs() bool
}

func (d *opDef[P]) hasArgs() bool {
	_, ok := any(*new(P)).(noArgs)
	return !ok || d.arity != 1
}

// TestOpRules checks, for every op of every table, float32 and float64, that
// its rules agree with each other on random inputs:
//   - the data-only backward, where there is one, gives the graph backward's
//     gradients;
//   - the forward-mode rule is the transpose of the backward: for random
//     tangents v of the inputs and u of the output, <u, J v> from the
//     forward rule equals <Jᵀ u, v> from the backward.
func TestOpRules(t *testing.T) {
	for table, ops := range opTables() {
		for _, op := range ops {
			c, ok := op.(ruleChecker)
			if !ok {
				t.Fatalf("%s: %T has no checkRules", op.opName(), op)
			}
			cases := ruleCases[op.opName()]
			if cases == nil {
				if c.hasArgs() {
					t.Errorf("%s (table %s) has arguments or two inputs: give it a case in ruleCases", op.opName(), table)
					continue
				}
				cases = []ruleCase{{}}
			}
			for _, rc := range cases {
				if rc.inputs == nil {
					rc.inputs = signed
				}
				for _, dt := range []DType{Float32, Float64} {
					name := fmt.Sprintf("%s/%s/%v", table, op.opName(), dt)
					if rc.name != "" {
						name += "/" + rc.name
					}
					t.Run(name, func(t *testing.T) {
						c.checkRules(t, rc, rand.New(rand.NewPCG(1, uint64(len(name)))), dt)
					})
				}
			}
		}
	}
	for _, op := range dualBoundary {
		for _, dt := range []DType{Float32, Float64} {
			name := fmt.Sprintf("dual/%s/%v", op.name, dt)
			t.Run(name, func(t *testing.T) {
				checkDualBoundary(t, op.name, op.op, rand.New(rand.NewPCG(1, uint64(len(name)))), dt)
			})
		}
	}
}

// dualBoundary are the ops that are not opDefs because forward mode starts
// or ends at them (see op.go): their node's name, and the op on an input x
// and a tangent v.
var dualBoundary = []struct {
	name string
	op   func(x, v *Tensor) *Tensor
}{
	{"MakeDualBackward0", MakeDual},
	{"AliasBackward0", func(x, v *Tensor) *Tensor {
		p, _ := UnpackDual(MakeDual(x, v))
		return p
	}},
}

// checkDualBoundary checks MakeDual's and UnpackDual's rules: each records
// its node, whose backward is the identity (exactly), and gives its result
// its tangent: MakeDual the one given, UnpackDual's primal none. Their
// tangent is no forward rule's J v, so there is no <u, J v> = <Jᵀ u, v> to
// check: for MakeDual it holds trivially (J v = v, Jᵀ u = u), and
// UnpackDual drops the tangent on purpose.
func checkDualBoundary(t *testing.T, name string, op func(x, v *Tensor) *Tensor, r *rand.Rand, dt DType) {
	x, v, u := signedTensor(r, dt, 3, 4), signedTensor(r, dt, 3, 4), signedTensor(r, dt, 3, 4)
	x.SetRequiresGrad(true)
	y := op(x, v)
	if y.GradFn() == nil || y.GradFn().Name() != name {
		t.Fatalf("result's node is %v, want %s", y.GradFn(), name)
	}
	vjp := Grad([]*Tensor{y}, []*Tensor{x}, GradOutputs(u))[0]
	agree(t, "the identity", []*Tensor{vjp}, []*Tensor{u}, 0)
	switch jv := y.Tangent(); {
	case name == "MakeDualBackward0" && jv != v:
		t.Errorf("MakeDual's tangent is %v, want the tangent given", jv)
	case name == "AliasBackward0" && jv != nil:
		t.Errorf("UnpackDual's primal has a tangent: %v", jv)
	}
}

func (d *opDef[P]) checkRules(t *testing.T, c ruleCase, r *rand.Rand, dt DType) {
	var x ins
	var xs []*Tensor // x as a slice, or the inputs of an op of any number
	var p P
	if d.arity == manyInputs {
		var a any
		xs, a = c.list(r, dt)
		p = a.(P)
	} else {
		x = c.inputs(r, dt)
		xs = x[:d.arity]
	}
	for _, xi := range xs {
		if xi != nil {
			xi.SetRequiresGrad(true) // as when the op records: save rules look
		}
	}
	if c.args != nil {
		p = c.args(x).(P)
	}
	if d.prepare != nil {
		p = d.prepare(p, x) // as when the op records
	}
	var out *tensor.Tensor
	if d.forwardN != nil {
		out = d.forwardN(p, xs)
	} else {
		out = d.forward(p, x)
	}
	// the saved tensors as the engine hands them to backward: detached
	var s []*Tensor
	if d.save != nil {
		sv := d.save(x)
		for _, v := range sv[:d.nSaved()] {
			if v != nil {
				v = wrap(v.data)
			}
			s = append(s, v)
		}
	}
	if d.saveOut {
		s = append(s, wrap(out))
	}
	outDT := out.DType()
	tol := 1e-10
	if outDT == Float32 || slices.ContainsFunc(xs, func(xi *Tensor) bool { return xi != nil && xi.DType() == Float32 }) {
		tol = 2e-4
	}

	u := signedTensor(r, outDT, out.Shape()...)
	vjp := d.backward(p, u, s)
	if len(vjp) != len(xs) {
		t.Fatalf("backward returned %d gradients for %d inputs", len(vjp), len(xs))
	}

	if d.shared != nil {
		if bw, _ := d.shared(x, out); bw != nil {
			agree(t, "shared backward", vjp, bw(u, s), tol)
		}
	}
	if d.dataBackward != nil {
		fast := d.dataBackward(p, u, s)
		if fast == nil {
			t.Fatalf("data-only backward declined a gradient of the output's shape and dtype")
		}
		agree(t, "data-only backward", vjp, fast, tol)
	}

	// <u, J v> from the forward-mode rule, on the inputs without grad (rules
	// see values only) and with random tangents v
	var xd ins
	xds := make([]*Tensor, len(xs))
	v := make([]*Tensor, len(xs))
	for i, xi := range xs {
		if xi == nil {
			continue
		}
		xds[i] = wrap(xi.data)
		if xi.DType().IsFloat() {
			v[i] = signedTensor(r, xi.DType(), xi.Shape()...)
			xds[i].writeExtra().tangent = v[i]
		}
	}
	copy(xd[:], xds)
	o := wrap(out)
	var jv *Tensor
	switch {
	case d.jvpN != nil:
		withoutTangents(func() { jv = d.jvpN(p, xds, o) })
	case d.jvp != nil:
		withoutTangents(func() { jv = d.jvp(p, xd, o) })
	}
	jv = fitTangent("TestOpRules", o, jv)
	lhs, scale := dot(u, jv)

	// <Jᵀ u, v> from the backward
	var rhs float64
	for i := range xs {
		if v[i] == nil || vjp[i] == nil {
			continue
		}
		if !sameShape(vjp[i], v[i]) {
			t.Fatalf("input %d: gradient of shape %v for an input of shape %v", i, vjp[i].Shape(), v[i].Shape())
		}
		d, sc := dot(vjp[i], v[i])
		rhs += d
		scale += sc
	}
	if math.Abs(lhs-rhs) > tol*(1+scale) {
		t.Errorf("forward rule and backward disagree: <u, J v> = %.10g (forward), <Jᵀ u, v> = %.10g (backward)", lhs, rhs)
	}
}

// dot returns Σ a·b and Σ |a·b|, in float64.
func dot(a, b *Tensor) (float64, float64) {
	x, y := a.Float64s(), b.Float64s()
	var s, m float64
	for i := range x {
		s += x[i] * y[i]
		m += math.Abs(x[i] * y[i])
	}
	return s, m
}

func sameShape(a, b *Tensor) bool { return shapeIs(a.data, b.data.Shape()) }

// agree fails t unless the gradients got (from the alternative backward
// what) are want's, within tol.
func agree(t *testing.T, what string, want, got []*Tensor, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s returned %d gradients, backward %d", what, len(got), len(want))
	}
	for i := range want {
		if (want[i] == nil) != (got[i] == nil) {
			t.Fatalf("input %d: backward gave %v, %s %v", i, want[i], what, got[i])
		}
		if want[i] == nil {
			continue
		}
		if !sameShape(want[i], got[i]) || want[i].DType() != got[i].DType() {
			t.Fatalf("input %d: backward's gradient is %v %v, %s's %v %v", i, want[i].DType(), want[i].Shape(), what, got[i].DType(), got[i].Shape())
		}
		a, b := want[i].Float64s(), got[i].Float64s()
		for k := range a {
			if math.Abs(a[k]-b[k]) > tol*(1+math.Abs(a[k])) {
				t.Fatalf("input %d, element %d: backward %g, %s %g", i, k, a[k], what, b[k])
			}
		}
	}
}

// TestInlineForwards checks that Add, Sub, Mul and Div, which compute their
// forward inline (ops_arith.go), compute what their table's forward does:
// the same values, bit for bit, dtype and shape, for tensors of one shape,
// broadcast either way, and a Go number either side, in float32 and float64.
func TestInlineForwards(t *testing.T) {
	ops := []struct {
		name string
		f    func(a, b any) *Tensor
		def  *opDef[binArgs]
	}{{"Add", Add, &addOp}, {"Sub", Sub, &subOp}, {"Mul", Mul, &mulOp}, {"Div", Div, &divOp}}
	operands := []struct {
		name string
		make func(r *rand.Rand, dt DType) (any, any)
	}{
		{"same", func(r *rand.Rand, dt DType) (any, any) { return signedTensor(r, dt, 3, 4), signedTensor(r, dt, 3, 4) }},
		{"broadcast", func(r *rand.Rand, dt DType) (any, any) { return signedTensor(r, dt, 3, 4), signedTensor(r, dt, 4) }},
		{"broadcast-first", func(r *rand.Rand, dt DType) (any, any) {
			return signedTensor(r, dt, 3, 1), signedTensor(r, dt, 2, 3, 4)
		}},
		{"number", func(r *rand.Rand, dt DType) (any, any) { return signedTensor(r, dt, 3, 4), 1.7 }},
		{"number-first", func(r *rand.Rand, dt DType) (any, any) { return -0.3, signedTensor(r, dt, 3, 4) }},
	}
	tensorOf := func(v any) *Tensor {
		if x, ok := v.(*Tensor); ok {
			return x
		}
		return nil
	}
	for _, op := range ops {
		for _, o := range operands {
			for _, dt := range []DType{Float32, Float64} {
				t.Run(fmt.Sprintf("%s/%s/%v", op.name, o.name, dt), func(t *testing.T) {
					a, b := o.make(rand.New(rand.NewPCG(2, 3)), dt)
					got := op.f(a, b)
					want := op.def.forward(newBinArgs(a, b), ins{tensorOf(a), tensorOf(b)})
					if got.DType() != want.DType() || !shapeIs(want, got.Shape()) {
						t.Fatalf("inline forward gives %v %v, the table's %v %v", got.DType(), got.Shape(), want.DType(), want.Shape())
					}
					g, w := got.Float64s(), wrap(want).Float64s()
					for i := range w {
						if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
							t.Fatalf("element %d: inline forward %v, the table's %v", i, g[i], w[i])
						}
					}
				})
			}
		}
	}
}
