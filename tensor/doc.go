// Package tensor provides agx's dense n-dimensional arrays: dtypes, shapes and
// strided views, broadcasting, element-wise operations, and the Backend
// interface that devices implement. It knows nothing of gradients; autograd is
// built on top of it in package agx.
//
// # Overview
//
// A Tensor is a strided view of a Buffer owned by a Backend: a shape, strides
// (in elements, never negative) and an offset into the buffer. Tensors are made
// with FromSlice (copying a Go slice, 1-D unless a shape is given), Scalar (a
// 0-d tensor) and Empty / EmptyOn (zeroed). Operations follow PyTorch's names
// and semantics: Add, Mul, Maximum, Eq, Where, MaskedFill, Exp, Clamp, ... as
// functions and methods, with broadcasting and type promotion. Operands of the
// element-wise functions may be tensors or Go numbers:
//
//	x := tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
//	y := x.Mul(2).Add(tensor.FromSlice([]float32{10, 20})) // [[12 24] [16 28]]
//
// Values come back with Float64s, ToSlice[T], Item, or Data[T] (which aliases).
//
// # DTypes and promotion
//
// The dtypes are Float32, Float64, Bool and Int64; a tensor's dtype follows its
// Go data ([]float64 is Float64, []int and []int64 are Int64). Between tensors,
// binary ops promote along bool < int64 < float32 < float64, so Float32 with
// Float64 gives Float64 and Int64 with Float32 gives Float32. Go numbers are
// weak: they take the tensor operand's dtype (x.Mul(2) keeps Float32), except
// that a Go float with an Int64 or Bool tensor gives Float32 and a Go integer
// with a Bool tensor gives Int64. A Go bool operand is a Bool tensor. When every
// operand is a Go number the result is Int64, or Float64 if any is a float.
//
// Div is true division: Int64 and Bool operands give Float32. Other arithmetic
// on Bool operands gives Int64. Comparisons (Eq, Ne, Lt, Le, Gt, Ge) compare at
// the promoted dtype and return Bool; the logical ops convert their operands
// with "!= 0" and return Bool. Unary ops that only make sense for floats (Exp,
// Expm1, Log, Log1p, Sqrt, Rsqrt, Sigmoid, Tanh, Erf, Sin, Cos, Pow with a
// fractional exponent) turn Int64 input into Float32; Neg, Abs, Sign, Round,
// Floor, Ceil, Relu, Clamp and Pow with an integral exponent keep Int64. Unary
// ops other than LogicalNot panic on Bool input.
//
// Conversions (To, CopyFrom, ToSlice[T]) truncate floats toward zero when going
// to Int64, map non-zero to true when going to Bool, and Bool to 0 or 1.
//
// # Views and storage
//
// Transpose, T, MT, Permute, View, Expand, BroadcastTo, Narrow, Slice, Select,
// Squeeze and Unsqueeze return views: new shape and strides over the same
// storage, with no copy. View panics when the layout cannot be expressed
// without a copy (for example flattening a transposed matrix); Reshape and
// Flatten return a view when one exists and a contiguous copy otherwise.
// Contiguous returns the tensor itself when it is already contiguous, and Clone
// always copies. SameStorage reports whether two tensors share a buffer.
//
// # Broadcasting
//
// Shapes broadcast as in NumPy and PyTorch: aligned from the right, each pair
// of sizes must be equal or one of them 1, and missing leading dims count as 1.
// BroadcastShapes computes the result shape (or panics with ErrShape naming the
// op); Expand and BroadcastTo make broadcast views, in which the repeated dims
// have stride 0. Binary ops, comparisons and Where broadcast all their operands;
// MaskedFill broadcasts the mask to the tensor's shape and CopyFrom the source
// to the destination's shape, but neither grows the destination.
//
// # Backends
//
// A Backend implements a small set of primitives over Views (buffer, shape,
// strides, offset): Alloc, FromSlice, ToSlice, Fill, Copy, Unary, Binary,
// Where, Reduce, MatMul, Gather and Scatter. Everything else is composed from
// them, so a new backend gets it for free. Element-wise primitives receive
// operands already broadcast to the destination's shape (stride 0 where
// broadcast), and a destination never overlaps a source unless the two views
// are identical.
//
// The pure-Go CPU backend ("cpu") is the default; SetDefault changes the
// backend new tensors are created on (the gpu package plugs in this way). Operands of one op must live on the same backend
// (ToBackend moves a tensor). Embedding NotImplemented lets a backend under
// construction compile while primitives are missing, and package tensortest
// holds the conformance suite every backend runs. The CPU kernels split large
// element-wise work, reductions and matrix products across GOMAXPROCS
// workers: the calling goroutine and resident helpers, which poll for work
// for 200 µs after their last part (so back-to-back kernels find them awake)
// and then park.
//
// # Errors
//
// Misuse (mismatched shapes, wrong dtypes, out-of-range dims or indices, bad
// arguments, mixed backends) panics with an *Error: Op names the operation,
// Kind is one of the sentinels ErrShape, ErrDType, ErrIndex, ErrArg,
// ErrDevice or ErrAlloc, Msg gives the shapes or values involved, and an
// optional Hint says how to fix it. The message reads
//
//	agx: View: view size [6] is not compatible with input of shape [3 2] and strides [1 3] (hint: use Reshape, which copies when it must, or call Contiguous first)
//
// Shapes are checked wherever they are made or changed (constructors, FromSlice,
// Reshape, View, Expand, broadcasting): a negative dim, or an element count
// that does not fit in an int, is an ErrShape error rather than a count that
// wraps around. A new tensor larger than MaxAlloc bytes (by default the
// machine's physical memory; SetMaxAlloc changes it) is refused with ErrAlloc
// before anything is allocated, where Go would end the process.
//
// agx.Try runs a function and returns such a panic as an error, which matches
// its sentinel with errors.Is; any other panic (a runtime error, another
// library's) passes through unchanged. AsError is the test it applies to a
// recovered value, for code that recovers by itself. Panicf and PanicHint let
// packages built on tensor raise errors of the same type.
//
// # In-place operations
//
// AddInPlace, SubInPlace, MulInPlace, DivInPlace, ClampInPlace, Fill, CopyFrom,
// BinaryTo and UnaryTo write into an existing tensor and return it. In-place
// arithmetic refuses a result dtype that does not cast safely to the
// destination's (a float result into an Int64 tensor, anything but Bool into a
// Bool tensor), as PyTorch does. In-place arithmetic, UnaryTo and CopyFrom also
// refuse a destination with broadcast (stride-0) dims, whose elements alias, and
// a source that shares the destination's storage in another layout and overlaps
// it (x.AddInPlace(x.T())): Clone the source first. Disjoint parts of one
// storage may be combined freely.
//
// # Memory and the garbage collector
//
// CPU tensors live in ordinary Go memory, freed by the garbage collector
// when no tensor refers to it. Because training steps allocate many large,
// short-lived results while their live heap is often small, the package
// holds an untouched allocation, the heap floor, that keeps the collector
// from running on every step: 4 MiB when GOMAXPROCS is 1 at start-up
// (a larger floor spreads fresh results over more memory than the cache
// holds), 64 MiB when it is more, where each collection costs more (it
// costs address space, not resident memory; see heapfloor.go for the
// measurements). Set
// AGX_HEAP_FLOOR_MB before the program starts to change it (0 turns it
// off); HeapFloorMiB reports the size in use. Programs that idle between
// steps (a notebook between cells, a server between requests) also gain
// from GODEBUG=madvdontneed=0 in their environment: freed memory is then
// returned to the OS with MADV_FREE and reused without page faults. Heap
// profiling samples about one allocation per runtime.MemProfileRate bytes
// (512 KiB by default), so most results of 512 KiB or more pay for a stack
// walk and a profile record; runtime.MemProfileRate = 0 at the start of
// main, or GODEBUG=memprofilerate=0, turns that off (2-6 % on the
// project's course workloads, more on some; docs/performance.md). The notebook kernel sets both in GODEBUG; the
// package does neither, as the runtime reads madvdontneed only at start-up
// and the profile rate belongs to the program.
//
// Results that their kernel overwrites entirely (element-wise ops, Where,
// MatMul, Clone, Contiguous and To) are allocated without zeroing when they
// are float tensors of more than 64 elements, as torch.empty does; Empty,
// Zeros and everything else still return zeroed memory. Setting
// AGX_DEBUG_UNINIT=1 fills such results with NaN before the kernel runs,
// so that a kernel that left an element unwritten would show up at once
// (make test runs the tensor, agx, functions and nn tests that way too).
// An autograd engine may also hand such a buffer back once it is dead
// (Recycle): results of the same dtype and size then reuse it, newest
// first, up to 32 MiB of free buffers (RecycledBytes, DropRecycled).
//
// # Side effects of importing
//
// Importing tensor (and so agx, nn and the rest) does three things to the
// whole process at initialisation. Each can be undone by the program:
//
//   - It installs agx's GEMM as gonum's process-wide float32 and float64
//     BLAS (blas32.Use, blas64.Use), so every gonum BLAS call of the
//     program, not only MatMul, runs on it; with the openblas build tag it
//     installs OpenBLAS instead (through cgo, in package
//     tensor/internal/openblas; this package has none). UseFastGEMM(false)
//     puts gonum's own implementation back; a program that calls blas32.Use
//     or blas64.Use itself (in main or its own init, which run after this
//     package's) wins.
//   - It allocates the heap floor described above (4 or 64 MiB) and holds it for
//     the life of the process. SetHeapFloorMiB(0) releases it,
//     SetHeapFloorMiB(n) sets another size, and AGX_HEAP_FLOOR_MB does the
//     same from the environment.
//   - It keeps a free list of recycled result buffers (up to 32 MiB) and a
//     finalizer that runs after every garbage collection to age them.
//     SetRecycling(false) drops the free list, makes Recycle refuse every
//     buffer and lets the finalizer lapse at the next collection;
//     SetRecycling(true) turns both back on.
//
// Nothing else leaves the package: no goroutines are started at import (the
// helper goroutines of parallel kernels start with the first kernel large
// enough to split, and park when idle), no files are opened and no signal
// handlers installed. The environment variables the package
// reads at start-up are AGX_HEAP_FLOOR_MB and AGX_DEBUG_UNINIT (and, with
// the openblas tag, OpenBLAS's own OPENBLAS_NUM_THREADS and
// OPENBLAS_CORETYPE).
//
// # Invariants
//
//   - Ordinary ops never modify their operands. They return new storage, except
//     that To (to the same dtype), Contiguous (of a contiguous tensor), T (of a
//     tensor with fewer than 2 dims) and ToBackend (to the same backend) may
//     return the receiver itself.
//   - Views alias: a write through a tensor is visible through every view of
//     the same storage. A broadcast view maps many elements to one, so writing
//     through it writes that element repeatedly.
//   - FromSlice copies its input, and Float64s and ToSlice return fresh
//     slices; Data returns the tensor's own memory (contiguous CPU tensors
//     only), and Raw the backend view of it.
//   - Each storage has a version counter, shared by all its views. Every
//     in-place operation above bumps it once; code that writes through Data
//     or a backend primitive calls BumpVersion. Out-of-place ops, views and
//     reads never change it. Autograd uses it to detect tensors that were
//     modified after being saved for backward.
//   - Shape and Strides return copies. Reading a tensor from several
//     goroutines is safe; writing while others read or write is a data race, as
//     for a Go slice.
package tensor
