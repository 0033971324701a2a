// Package agx is automatic differentiation for the tensor package, in the
// model of PyTorch's autograd: tensors that require gradients record the ops
// applied to them, and Backward or Grad walks that record in reverse.
//
// # Overview
//
// A leaf is a tensor the user created; SetRequiresGrad(true) asks for its
// gradient. Every built-in op on tensors that require gradients records a
// backward Node (its GradFn, named as PyTorch names it: MulBackward0,
// SumBackward0, ...). Backward on a scalar result computes the gradient of
// that scalar with respect to every leaf that requires grad and accumulates it
// into the leaf's Grad(). Grad computes gradients of chosen outputs with
// respect to chosen inputs and returns them instead.
//
// Beyond the element-wise, reduction, shape, index and matrix ops (methods
// of Tensor and functions such as MatMul and Where), agx has the losses
// CrossEntropy and MSELoss and BatchNorm, training-mode batch normalisation
// with vectorised CPU kernels (one op, as PyTorch's native batch_norm).
//
// Custom operations implement Function (Forward and Backward over tensors, with
// a Ctx for saving what Backward needs) and are applied with Apply or ApplyN; a
// Function named Square gets the backward node SquareBackward. Func is the
// closure form for quick notebook cells.
//
// # Gradients
//
// The contract follows PyTorch:
//   - An op records a node iff some input requires grad (and no NoGrad scope is
//     open in the calling goroutine). Inside a Function's Forward the inputs are seen detached, so
//     nothing records; inside a backward pass ops record only with CreateGraph.
//   - Backward returns exactly one gradient per input of Forward (nil for
//     none; extra trailing nils are dropped). A gradient whose shape broadcasting reduces to the input's shape is
//     summed down; any other shape is an error ("returned an invalid gradient at
//     index i"). Its dtype is cast to the input's.
//   - Every built-in backward is written with agx ops, so double and higher
//     derivatives work (CreateGraph). BatchNorm's first-order backward is a
//     fused kernel; under CreateGraph (or with dual inputs) it runs as ops. Functions that embed Once are
//     once-differentiable: differentiating their gradients fails clearly.
//   - Saved tensors are version-checked: modifying one in place before backward
//     fails with "has been modified by an inplace operation". Without
//     RetainGraph, a pass frees the saved tensors, and a second pass through
//     the same nodes fails with "Trying to backward through the graph a second
//     time".
//   - Gradients of broadcast operands are summed back to their shapes.
//   - Without CreateGraph, a pass recycles the buffers of intermediate
//     gradients (tensor.Recycle) once their last consumer, a built-in
//     backward, has run: later results of the same size reuse them while
//     they are in cache. Gradients that other code can see are never
//     recycled: leaves' Grad, retained grads, Grad's results, and whatever
//     hooks and custom Functions receive or return.
//
// GradCheck and GradGradCheck compare analytical gradients with central
// finite differences in float64.
//
// # Forward mode
//
// MakeDual attaches a tangent v to a tensor; every built-in op on dual
// inputs gives its result the tangent J·v, computed by a forward rule
// declared with the op's backward, so one forward pass yields a function's
// value and its directional derivative (UnpackDual or Tangent reads it).
// There is no dual level: tangents live on the tensors. A custom Function
// takes part through an optional Jvp method (Jvper), which sees what
// SaveForBackward saved; one without Jvp that meets a dual input panics with
// ErrForwardAD. Saved tensors keep their tangents in backward, so the
// gradient of a function of a dual input carries H·v (forward-over-reverse).
// GradCheck's CheckForwardAD option compares the forward-mode Jacobian with
// the numerical one and the backward's. Costs and limits: see the PyTorch
// mapping (docs/pytorch-mapping.md).
//
// # Functional API and checkpointing
//
// VJP, JVP, Jacobian, Hessian, VHP and HVP compute derivatives of a function
// of tensors with torch.autograd.functional's semantics (CreateGraph keeps
// the results differentiable, Strict turns independence into an error): VJP
// is one backward pass, JVP and HVP use the double-backward trick (about
// twice that), Jacobian runs one backward per output element and Hessian
// one double backward per input element. JacobianStrategy(ForwardMode)
// builds the Jacobian column by column instead, one forward pass with a dual
// input per input element (the cheaper choice for a tall Jacobian), and
// OuterJacobianStrategy(ForwardMode) makes Hessian forward over reverse.
//
// Checkpoint(fn, inputs...) trades compute for memory as PyTorch's
// non-reentrant torch.utils.checkpoint: the saved tensors of fn's ops are
// dropped after the forward and recomputed by calling fn again (with the
// random generators restored) when a backward pass first needs them. The
// memory held between forward and backward shrinks to fn's inputs and
// outputs; each backward pass pays one more forward of fn. fn must record
// the same ops on each call (checked). `agx bench -mem` measures the saving
// on a deep MLP.
//
// # Errors
//
// Misuse panics with a *tensor.Error naming the op (or node) and what was
// wrong, wrapping one of ErrGraph, ErrInplace, ErrGradient,
// ErrOnceDifferentiable, ErrAnomaly, ErrForwardAD or a tensor sentinel; Try converts such a
// panic into an error. GradCheck returns a *GradCheckError (errors.Is
// ErrGradCheck); MustGradCheck panics with it.
//
// # Invariants
//
// Ops never modify their operands; methods ending in InPlace do, bump the
// version counter shared by all views of the storage, and rebase the tensor's
// history. Detach shares data and version with the original. The engine is
// iterative (no recursion), so graphs of any depth run; independent graphs may
// be differentiated concurrently. NoGrad is per goroutine (a goroutine started
// inside NoGrad does not inherit it); SetDetectAnomaly is process-wide.
//
// # Exported names, and why
//
// Every name agx exports is listed here with what a notebook uses it for
// (TestExportsHaveReasons fails on one that is not). Tensor methods are
// listed by their names.
//
//   - Making tensors, the values a cell computes with (torch.tensor,
//     torch.zeros, ...): Tensor, New (wraps a tensor.Tensor, sharing its
//     data), Scalar, FromSlice, FromNested, Zeros, ZerosLike, Ones, OnesLike,
//     Full, Eye, Arange, Linspace, Rand, Randn, Randint, OneHot; ManualSeed
//     for reproducible cells. DType, Float32, Float64, Int64 and Bool are
//     tensor's, so that a cell needs one import.
//   - Reading a tensor, to print and check a result: Shape, Size, Dim, Numel,
//     DType, Item, Float64s, String, Name and SetName (labels in graph
//     drawings), To (a dtype cast), Clone, Contiguous, Data (the tensor
//     package's value, for kernels of one's own); MaxAbsDiff compares two.
//   - Element-wise math, each op differentiable twice and with a forward
//     rule, as methods as in PyTorch (x.Exp()): Abs, Add, Sub, RSub, Mul,
//     Div, Pow, Neg, Exp, Expm1, Log, Log1p, Sqrt, Rsqrt, Sin, Cos, Tanh,
//     Sigmoid, Relu, SiLU, GELU, GELUTanh, Erf, Sign, Round, Floor, Ceil,
//     Clamp, ClampMin, ClampMax, Maximum, Minimum; and as functions, whose
//     operands may be Go numbers (Mul(2, x)): Add, Sub, Mul, Div, Pow,
//     Maximum, Minimum, Where.
//   - Comparisons and masks, for Where, MaskedFill and the straight-through
//     estimators: Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor,
//     LogicalNot, MaskedFill.
//   - Reductions, for losses and normalisations (the Keep forms keep the
//     reduced dimension, PyTorch's keepdim=True): Sum, SumKeep, Mean,
//     MeanKeep, Var, VarKeep, Std, Max, Min, MaxDim, MinDim, Amax, AmaxKeep,
//     Amin, AminKeep, ArgMax, ArgMin, LogSumExp, LogSumExpKeep, Softmax,
//     LogSoftmax.
//   - Shapes, indexing and products, for batches and attention: Reshape,
//     View, Flatten, Squeeze, Unsqueeze, Transpose, Permute, T, MT, Expand,
//     BroadcastTo, Narrow, Slice, Select, Gather, Scatter, ScatterAdd,
//     IndexSelect, Cat, Stack, MatMul (a method and a function).
//   - The losses and the layer the course builds on: CrossEntropy, MSELoss,
//     BatchNorm.
//   - In-place ops (PyTorch's x.add_()), with the version counter whose
//     checks lesson 07 shows: AddInPlace, SubInPlace, MulInPlace,
//     DivInPlace, ExpInPlace, ClampInPlace, FillInPlace, ZeroInPlace,
//     Version, BumpVersion (for data changed behind agx's back).
//   - Reverse mode: RequiresGrad, SetRequiresGrad, Backward, Grad (the
//     method, a leaf's gradient), SetGrad, ZeroGrad, BorrowGrad (the
//     gradient without a copy, for optimisers), RetainGrad, IsLeaf, GradFn,
//     OutputNr, Detach, RegisterHook and HookHandle with Remove; Grad and
//     Grad1, the functions (torch.autograd.grad); BackwardOption with
//     GradOutputs, Gradient, RetainGraph, CreateGraph, AllowUnused.
//   - Grad mode (torch.no_grad, torch.enable_grad): NoGrad, EnableGrad,
//     IsGradEnabled.
//   - Custom Functions, the course's subject (torch.autograd.Function):
//     Function, Apply, ApplyN, Outputs (the return of Forward and Backward
//     in one word); Ctx with SaveForBackward, SavedTensors, NeedsInputGrad,
//     MarkDirty, MarkNonDifferentiable, SetMaterializeGrads, Set, Get and
//     FunctionName, and CtxValue, a typed Get; Func with Forward, Backward,
//     Jvp and Name, the closure form for cells; Named (a Function's node
//     name) and FunctionName; Once and OnceDifferentiable, for Functions
//     that can be differentiated once only; Jvper, a Function's forward
//     rule.
//   - Straight-through estimators (lesson 04): StraightThrough, SignSTE,
//     SignClippedSTE, RoundSTE, QuantizeSTE, BinarizeSTE, ClipGradientSTE.
//   - The graph, as the drawings show it and hooks and anomaly traces walk it: Node with
//     Name, Function, NextFunctions, NumOutputs, OutputShape, SavedValues,
//     RegisterHook, RegisterPreHook, Variable and String; Edge; GraphDOT.
//   - Checking gradients (torch.autograd.gradcheck): GradCheck,
//     GradGradCheck, MustGradCheck, MustGradGradCheck; GradCheckOption with
//     Atol, Rtol, Eps, NondetTol, AllowFloat32, CheckForwardAD,
//     CheckGradScaling, CheckSeed, CheckUndefinedGrad, FastMode and
//     GradGradOutputs; GradCheckError.
//   - Forward mode (torch.autograd.forward_ad): MakeDual, UnpackDual,
//     Tangent, IsDual.
//   - The functional API (torch.autograd.functional): VJP, JVP, Jacobian,
//     Hessian, HVP, VHP; FunctionalOption with JacobianStrategy,
//     OuterJacobianStrategy and Strict; Strategy with ReverseMode and
//     ForwardMode.
//   - Checkpointing (torch.utils.checkpoint): Checkpoint, CheckpointN,
//     CheckpointWith; CheckpointOption with PreserveRNG and
//     CheckpointGenerators.
//   - Errors, for errors.Is in cells and tests: Try; ErrGraph, ErrInplace,
//     ErrGradient, ErrOnceDifferentiable, ErrAnomaly, ErrForwardAD,
//     ErrFunctionPanic, ErrGradCheck; FunctionPanicError and GradCheckError
//     with Error, Unwrap, Is and AgxError (the mark tensor.AsError looks
//     for).
//   - Anomaly detection (torch.autograd.detect_anomaly): DetectAnomaly,
//     SetDetectAnomaly.
//
// # Side effects of importing
//
// agx itself changes nothing in the process when it is imported: it starts
// no goroutines, installs nothing and sets no mode (NoGrad and anomaly
// detection start off). It imports package tensor, though, which at
// initialisation installs agx's GEMM (OpenBLAS with the openblas tag) as
// gonum's process-wide BLAS, holds a heap floor (4 MiB on one core, 64
// on more) and keeps a free list of recycled buffers, which the backward
// passes of this package feed.
// The tensor package docs ("Side effects of importing") describe each; a
// program turns them off with tensor.UseFastGEMM(false),
// tensor.SetHeapFloorMiB(0) and tensor.SetRecycling(false), and agx works
// the same without them.
package agx
