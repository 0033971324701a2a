package course

// Example is one example of the course's sources, by its ID (A1 … E3), with a
// line on what it shows. The IDs follow the list of source examples in the
// project's shared docs, grouped by source: A the article on custom autograd
// Functions, B the course exercise, C the textbook chapter, D the reference
// notes, E the questions and answers. The lines are the course's own summary.
type Example struct {
	ID   string
	What string
}

// Examples is every example ID the notebooks may tag, in ID order. Every ID a
// notebook mentions must be here (go test ./internal/course checks it), and
// the index and the reference notebook list them with where each is shown.
var Examples = []Example{
	{"A1", "a squaring Function: its gradient at [2, 3], then a gradient check in float64"},
	{"A2", "a sigmoid scaled by a second tensor input, keeping a shape on ctx; both inputs get gradients"},
	{"A3", "log-sum-exp over the last dimension with the max-shift trick, against the built-in op"},
	{"A4", "straight-through rounding, and fake quantisation whose gradient passes only inside the range"},
	{"A5", "a linear layer with a Bool mask on its weight: NeedsInputGrad, and nil for the mask"},
	{"A6", "a helper that checks a Function in float64, first and second order"},
	{"A7", "in-place changes: a saved tensor modified before backward, MarkDirty, and a silent bug"},
	{"A8", "what fusing element-wise ops into one Function saves, measured"},
	{"A9", "when a custom Function is not needed: built-in ops give the same gradient"},
	{"A10", "CUDA kernels wrapped in a Function, with fused attention as the motivation"},
	{"B1", "a sigmoid Function that saves its output, checked against the built-in sigmoid"},
	{"B2", "a linear-layer Function y = x·Wᵀ + b with the gradients of all three inputs"},
	{"B3", "a two-layer network built from the two custom Functions"},
	{"B4", "three quiz questions on writing Functions"},
	{"C1", "a template Function with a plain number kept on ctx"},
	{"C2", "one Function traced step by step, forward and backward"},
	{"C3", "gradients flowing through a small graph of two custom Functions and an addition"},
	{"C4", "a scaled sigmoid that saves its output and recovers what it needs from it"},
	{"C5", "the ways of saving for backward in one Function, with NeedsInputGrad"},
	{"C6", "a weighted sum whose gradients are constants, so nothing is saved"},
	{"C7", "sign with a plain straight-through gradient and with a clipped one"},
	{"C8", "one input, three gradients: true derivative against straight-through, as a picture"},
	{"C9", "a second derivative through a backward pass that builds a graph"},
	{"C10", "a Function that can be differentiated once only, and the error the second time"},
	{"C11", "a ReLU capped at 6, its values and gradient"},
	{"C12", "soft thresholding and its gradient"},
	{"C13", "hard Gumbel-softmax and the trick that gives a one-hot forward a soft gradient"},
	{"C14", "a product of two inputs that computes only the gradients asked for"},
	{"C15", "an addition fused with a ReLU that saves one mask for both inputs"},
	{"C16", "a custom GPU kernel pair (forward and backward) as a Function"},
	{"C17", "debugging a Function with a gradient check on a small float64 input"},
	{"C18", "the common errors, each one triggered and explained"},
	{"C19", "debugging tips: shapes in backward, NaN detection, simple inputs first"},
	{"C20", "saving and loading a model and its traced graph"},
	{"C21", "ONNX export of a small model with a batch size left open"},
	{"C22", "int8 quantisation: dynamic, static with calibration, and quantisation-aware training"},
	{"C23", "the ten-question knowledge check"},
	{"C24", "the chapter's exercises: conceptual questions, GELU, SiLU, batch normalisation, soft ranks"},
	{"C25", "the challenge: attention as one Function with a hand-written backward and a mask"},
	{"D1", "ReLU written with clamp and used through a short alias"},
	{"D2", "a quadratic with four tensor inputs, each with its own gradient"},
	{"D3", "a power with an integer exponent that gets no gradient"},
	{"D4", "a flag that chooses between two activations inside one Function"},
	{"D5", "gradient checks of the sigmoid Function, first and second order"},
	{"D6", "a binarising straight-through estimator"},
	{"D7", "a 1-D log-sum-exp that tries to keep a tensor on ctx, agx's refusal, and the right way"},
	{"D8", "an identity whose backward clips the gradient"},
	{"D9", "one input, two outputs, and how their gradients add up"},
	{"D10", "a clamp whose backward can itself be differentiated"},
	{"D11", "smooth L1 as a Function and as a loss module"},
	{"E1", "an exponential Function that saves its output"},
	{"E2", "a Function with two inputs and two outputs, and the gradients they accumulate"},
	{"E3", "a backward that returns a gradient of the wrong shape: agx's error and the fix"},
}
