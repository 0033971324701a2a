// Package functions is a library of custom autograd Functions: every custom
// operation that the course sources define, written against agx's Function
// interface with a hand-written Forward and Backward. The reference solutions
// of the graded exercises the sources set are in the subpackage solutions,
// which students never get (docs/grading.md).
//
// # Overview
//
// Each Function lives in its own file together with its doc comment (the math
// and the gradient) and a comment naming the source example it reproduces
// (for example "// example A3"), so that the notebooks, the tests and the
// sources can be cross-referenced.
//
// Naming: the Function type is <Name>Function and its non-tensor parameters
// (a scale, a clip value, qmin/qmax, a flag) are exported fields of that type;
// the convenience function <Name> applies it. So
//
//	y := functions.Square(x)
//
// is the same as
//
//	y := agx.Apply(functions.SquareFunction{}, x)
//
// Backward nodes carry agx's default name, <Name>Backward (SquareBackward):
// agx drops the trailing "Function" of the type name, so the node is named
// after the Function, as PyTorch names the node of a class Square. No type
// here implements agx.Named. Each Function lives in the file named after it:
// <Name> in snake_case, with ReLU, SiLU and LogSumExp kept whole (acronyms in
// capitals, such as GELU and STE, are whole words anyway) and digits kept with
// the capitals that follow them (SignClippedSTEFunction in sign_clipped_ste.go,
// ClippedReLUFunction in clipped_relu.go, StableLogSumExp1DFunction in
// stable_logsumexp_1d.go), its tests in the _test.go file beside it.
// TestFunctionNamingRule enforces both rules. Functions with several outputs
// have helpers that return them as separate values.
//
// From the PyTorch article (000):
//   - SquareFunction / Square: x², example A1.
//   - ScaledSigmoidFunction / ScaledSigmoid: scale·σ(x) with a tensor scale, example A2.
//   - StableLogSumExpFunction / StableLogSumExp: max-shifted log-sum-exp over the last dim, example A3.
//   - StraightThroughRoundFunction / StraightThroughRound: round with a straight-through gradient, example A4.
//   - FakeQuantizeFunction / FakeQuantize: int8-style fake quantisation with a clipped straight-through gradient, example A4.
//   - MaskedLinearFunction / MaskedLinear: x·(W⊙mask)ᵀ with a Bool mask, example A5.
//   - VerifyCustomFunction: GradCheck then GradGradCheck in float64, example A6.
//   - Examples A7 (in-place safety), A8 (fusion) and A9 (composite ops instead of
//     a Function) live in the notebooks; A9's comparison is what every test in
//     this package does: each Function is checked against the same computation
//     composed from agx built-ins.
//
// From the course exercise (001):
//   - Examples B1-B3 (sigmoid, linear) are the graded sigmoid-linear exercise:
//     functions/solutions.
//
// From the textbook chapter (002):
//   - TemplateSquareFunction / TemplateSquare: x² with a non-tensor ctx value, example C1.
//   - ScaledSigmoidOutFunction / ScaledSigmoidOut: scale·σ(x) saving its output, example C4.
//   - SavePatternsFunction / SavePatterns: alpha·x + y (with optional ReLU), NeedsInputGrad, example C5.
//   - WeightedSumFunction / WeightedSum: w1·x1 + w2·x2, example C6.
//   - SignSTEFunction / SignSTE and SignClippedSTEFunction / SignClippedSTE: sign with
//     straight-through gradients, examples C7 and C8.
//   - DoubleBackwardSquareFunction / DoubleBackwardSquare: x² with a differentiable backward, example C9.
//   - OnceSquareFunction / OnceSquare: a once-differentiable Function, example C10.
//   - ClippedReLUFunction / ClippedReLU: min(max(x, 0), clip), example C11.
//   - SoftThresholdFunction / SoftThreshold: sign(x)·max(|x| - t, 0), example C12.
//   - GumbelSoftmaxFunction / GumbelSoftmax: seeded Gumbel-softmax, soft or hard, example C13.
//   - ProductNeedsGradFunction / ProductNeedsGrad: x·y computing only the needed gradients, example C14.
//   - FusedAddReLUFunction / FusedAddReLU: relu(x + y) with one saved mask, example C15.
//   - The exercises C24 and C25 (GELU, SiLU, batch norm, soft ranks, attention)
//     are graded: their reference solutions are in functions/solutions, which
//     stays on the instructor's side.
//
// From the reference notes (003):
//   - ReLUViaClampFunction / ReLUViaClamp: max(x, 0) by clamping, example D1.
//   - QuadraticFunction / Quadratic: a·x² + b·x + c with four tensor inputs, example D2.
//   - PowerFunction / Power: xⁿ for an integer n, example D3.
//   - ScaledActivationFunction / ScaledActivation: scale·relu(x) or scale·tanh(x), example D4.
//   - Example D5 (a sigmoid saving its output) is the graded sigmoid-linear
//     exercise: functions/solutions.
//   - BinarizeSTEFunction / BinarizeSTE: 1[x > 0] with a straight-through gradient, example D6.
//   - StableLogSumExp1DFunction / StableLogSumExp1D: log-sum-exp of a whole tensor, example D7.
//   - ClipGradientFunction / ClipGradient: identity forward, clamped gradient, example D8.
//   - SplitAndTransformFunction / SplitAndTransform: (relu(x), relu(-x)), example D9.
//   - DifferentiableClampFunction / DifferentiableClamp: clamp whose backward is differentiable, example D10.
//   - SmoothL1Function / SmoothL1, and SmoothL1Loss: Huber-style loss with a beta, example D11.
//
// From the Q&A (004):
//   - MyExpFunction / MyExp: eˣ, example E1.
//   - TwoInTwoOutFunction / TwoInTwoOut: (x² + y², x·y), example E2.
//   - PositiveSumFunction / PositiveSum: Σ max(x, 0), the corrected form of example E3.
//
// # Gradients
//
// Every Backward is written with agx ops, so under agx.CreateGraph it records a
// graph of its own and second derivatives work, unless the Function embeds
// agx.Once. Two Functions do: StableLogSumExp and StableLogSumExp1D save the
// softmax (or the shifted exponentials) computed in Forward, which the graph
// sees as constants, so their Backward is correct for first derivatives only;
// agx refuses to differentiate them twice instead of returning wrong second
// derivatives. Where a source saves an intermediate that would make double
// backward silently wrong (ScaledSigmoid, MaskedLinear), the Function saves its
// inputs instead and recomputes the intermediate in Backward; the doc comment
// of each Function says what it saves.
//
// Straight-through estimators (StraightThroughRound, FakeQuantize,
// BinarizeSTE) and ClipGradient deliberately return a gradient that is not the
// derivative of their forward pass, so GradCheck reports a Jacobian mismatch
// for them; their tests check the gradient the estimator defines instead.
//
// Backward returns one gradient per tensor input, nil for inputs that need
// none (a Bool mask) or when ctx.NeedsInputGrad says the input does not
// require grad.
//
// # Errors
//
// The Functions panic with agx's typed errors (*tensor.Error) on misuse: shapes
// that do not broadcast or multiply, a Bool or Int64 tensor where a float one
// is needed, an invalid parameter (a negative beta, qmin > qmax, a clip value
// below zero, min > max). VerifyCustomFunction returns an error rather than
// panicking: the first failing check, GradCheck's or GradGradCheck's
// *agx.GradCheckError.
package functions
