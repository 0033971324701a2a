package gpu

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/goagx/agx/gpu/kernels"
	"github.com/goagx/agx/tensor"
)

// Thread counts per block for the built-in kernels.
const (
	elementwiseThreads = 128
	reduceThreads      = 128 // AGX_REDUCE_THREADS in reduce.cu
	maxBlocks          = 4096
)

// Backend implements tensor.Backend over a Driver. Device work runs under the
// backend's lock, on a goroutine locked to its OS thread for the duration,
// after Driver.Bind has made the device current there (CUDA contexts are per
// thread).
//
// An earlier design ran it all on one device goroutine, locked to its thread
// for good, and sent it closures: two thread wake-ups per call (the git
// history of docs/gpu.md has the measurements).
type Backend struct {
	name  string
	drv   Driver
	mod   Module
	mu    sync.Mutex
	pool  *pool            // under mu, except pool.give
	metas map[string]block // uploaded kernel metadata by content, under mu
}

// Buffer is device memory holding n elements of one dtype.
type Buffer struct {
	ptr Ptr
	n   int
	dt  tensor.DType
}

// Len is the number of elements.
func (b *Buffer) Len() int { return b.n }

// DType is the element type.
func (b *Buffer) DType() tensor.DType { return b.dt }

// Ptr is the device address of element 0.
func (b *Buffer) Ptr() Ptr { return b.ptr }

// NewBackend opens the driver and loads the built-in kernels. name is the
// backend's Name (e.g. "cuda").
func NewBackend(name string, open func() (Driver, error)) (*Backend, error) {
	b := &Backend{name: name, pool: newPool(), metas: map[string]block{}}
	runtime.LockOSThread()
	d, err := open()
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	b.drv = d
	if err := b.loadKernels(); err != nil {
		return nil, fmt.Errorf("gpu: loading the built-in kernels: %w", err)
	}
	return b, nil
}

// loadKernels compiles and loads the built-in kernels. The device errors
// that do raises (binding the device) come back as the error.
func (b *Backend) loadKernels() (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := tensor.AsError(r)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	b.do(func() {
		b.mod, err = b.drv.LoadModule("agx", kernels.Source(), nil)
	})
	if err != nil {
		err = &tensor.Error{Op: "NewBackend", Kind: tensor.ErrDevice, Msg: err.Error()}
	}
	return err
}

// Name identifies the backend.
func (b *Backend) Name() string { return b.name }

// Driver returns the driver the backend runs on.
func (b *Backend) Driver() Driver { return b.drv }

// do runs f with the backend's lock held, on this goroutine locked to its
// thread, with the device bound to the thread.
func (b *Backend) do(f func()) {
	b.mu.Lock()
	runtime.LockOSThread()
	defer func() {
		runtime.UnlockOSThread()
		b.mu.Unlock()
	}()
	check("gpu", b.drv.Bind())
	f()
}

// Do runs f with the device bound to the calling thread and the backend's
// lock held, for code that calls the Driver directly.
func (b *Backend) Do(f func(d Driver)) { b.do(func() { f(b.drv) }) }

func check(op string, err error) {
	if err != nil {
		tensor.Panicf(op, tensor.ErrDevice, "%v", err)
	}
}

// poisonUninit fills uninitialised buffers with NaN (AGX_DEBUG_UNINIT=1, as
// in package tensor), so that a kernel leaving an element unwritten shows.
var poisonUninit = os.Getenv("AGX_DEBUG_UNINIT") == "1"

// alloc returns a buffer from the memory cache (pool.go), zeroed if zero is
// set; otherwise its contents are unspecified. It must run under do. The block goes back to the cache when the collector finds the
// buffer unreachable.
func (b *Backend) alloc(dt tensor.DType, n int, zero bool) *Buffer {
	bl, fresh, err := b.pool.get(b.drv, max(n*dt.Size(), 1))
	check("Alloc", err)
	switch {
	case zero && !fresh: // fresh blocks come zeroed from the driver
		b.fillWords(bl, 0)
	case !zero && poisonUninit && dt == tensor.Float32:
		b.fillWords(bl, 0x7fc000007fc00000)
	case !zero && poisonUninit && dt == tensor.Float64:
		b.fillWords(bl, 0x7ff8000000000000)
	}
	buf := &Buffer{ptr: bl.p, n: n, dt: dt}
	runtime.AddCleanup(buf, func(bl block) { b.pool.give(bl) }, bl)
	return buf
}

// fillWords sets every 8-byte word of a block to bits.
func (b *Backend) fillWords(bl block, bits uint64) {
	words := bl.size / 8
	b.launch("Alloc", "fill_words", blocks(words, elementwiseThreads), Dim3{X: elementwiseThreads}, words, bl.p, bits)
}

// Synchronize waits until the device has run all queued work and reports an
// error a kernel raised (torch.cuda.synchronize). Copies to the host
// (ToSlice, and so Float64s, String, ...) wait on their own.
func (b *Backend) Synchronize() {
	b.do(func() { check("Synchronize", b.drv.Synchronize()) })
}

// Alloc returns a zeroed buffer of n elements.
func (b *Backend) Alloc(dt tensor.DType, n int) tensor.Buffer {
	var buf *Buffer
	b.do(func() { buf = b.alloc(dt, n, true) })
	return buf
}

// AllocUninit returns a buffer of n elements whose contents are unspecified
// (NaN-filled floats with AGX_DEBUG_UNINIT=1), for results that a kernel
// overwrites entirely: a block from the cache needs no zeroing pass.
func (b *Backend) AllocUninit(dt tensor.DType, n int) tensor.Buffer {
	var buf *Buffer
	b.do(func() { buf = b.alloc(dt, n, false) })
	return buf
}

// FromSlice copies a Go slice to a new device buffer.
func (b *Backend) FromSlice(data any) tensor.Buffer {
	var dt tensor.DType
	var p unsafe.Pointer
	var n int
	switch s := data.(type) {
	case []float32:
		dt, n = tensor.Float32, len(s)
		p = unsafe.Pointer(unsafe.SliceData(s))
	case []float64:
		dt, n = tensor.Float64, len(s)
		p = unsafe.Pointer(unsafe.SliceData(s))
	case []int64:
		dt, n = tensor.Int64, len(s)
		p = unsafe.Pointer(unsafe.SliceData(s))
	case []bool:
		dt, n = tensor.Bool, len(s)
		p = unsafe.Pointer(unsafe.SliceData(s))
	default:
		tensor.Panicf("FromSlice", tensor.ErrDType, "unsupported slice type %T", data)
	}
	var buf *Buffer
	b.do(func() {
		buf = b.alloc(dt, n, false)
		if n > 0 {
			check("FromSlice", b.drv.CopyHtoD(buf.ptr, p, n*dt.Size()))
		}
	})
	runtime.KeepAlive(data)
	return buf
}

func buffer(op string, v tensor.View) *Buffer {
	buf, ok := v.Buf.(*Buffer)
	if !ok {
		tensor.PanicHint(op, tensor.ErrDevice, "move tensors with ToBackend first",
			"buffer of type %T is not on the GPU backend", v.Buf)
	}
	return buf
}

// base is the device address of the view's first element.
func base(op string, v tensor.View) Ptr {
	buf := buffer(op, v)
	return buf.ptr.Add(v.Offset * buf.dt.Size())
}

var suffix = map[tensor.DType]string{tensor.Float32: "f32", tensor.Float64: "f64", tensor.Int64: "i64", tensor.Bool: "b8"}

// meta returns the device address of [rank, shape, strides of each view] for
// an element-wise kernel. It must run under do.
func (b *Backend) meta(op string, shape []int, views ...tensor.View) Ptr {
	m := []int64{int64(len(shape))}
	for _, s := range shape {
		m = append(m, int64(s))
	}
	for _, v := range views {
		for _, s := range v.Strides {
			m = append(m, int64(s))
		}
	}
	return b.upload(op, m)
}

// metaCacheMax bounds the number of distinct metadata arrays kept on the device.
const metaCacheMax = 4096

// upload returns the device address of a copy of m. Metadata depends only on
// shapes and strides, which repeat from one step to the next, so each array
// is copied once and kept (never written again): a copy from host memory
// waits for every queued kernel, which would otherwise make each operation
// wait for the previous one. It must run under do.
func (b *Backend) upload(op string, m []int64) Ptr {
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(m))), len(m)*8)
	if bl, ok := b.metas[string(raw)]; ok {
		return bl.p
	}
	if len(b.metas) >= metaCacheMax {
		// Kernels still queued may read these blocks; work that reuses
		// them is queued after those kernels.
		for _, bl := range b.metas {
			b.pool.put(bl)
		}
		clear(b.metas)
	}
	bl, _, err := b.pool.get(b.drv, len(raw))
	check(op, err)
	if err := b.drv.CopyHtoD(bl.p, unsafe.Pointer(unsafe.SliceData(m)), len(raw)); err != nil {
		b.pool.put(bl)
		check(op, err)
	}
	b.metas[string(raw)] = bl
	return bl.p
}

// syncEach makes every launch wait for its kernel (AGX_GPU_SYNC=1), so that
// an error in a kernel is reported by the operation that launched it, as
// CUDA_LAUNCH_BLOCKING=1 does for PyTorch.
var syncEach = os.Getenv("AGX_GPU_SYNC") == "1"

// launch queues a built-in kernel. It must run under do.
//
// Launches do not wait: all device work goes to the one default stream, in
// order, so a kernel queued later (or a copy, or a cuBLAS call) sees what an
// earlier one wrote, and a block given back to the cache while a queued
// kernel still uses it is only written by work queued after that kernel.
// Copies to the host wait for the queue (ToSlice); so does Synchronize.
func (b *Backend) launch(op, kernel string, grid, threads Dim3, args ...any) {
	err := b.drv.Launch(b.mod, kernel, grid, threads, 0, Args(args...))
	if err == nil && syncEach {
		err = b.drv.Synchronize()
	}
	check(op, err)
}

func blocks(n, threads int) Dim3 {
	return Dim3{X: min((n+threads-1)/threads, maxBlocks)}
}

// elementwise launches kernel over dst's shape with the views' strides; the
// arguments are n, meta, then the views' base pointers, then extra.
func (b *Backend) elementwise(op, kernel string, dst tensor.View, views []tensor.View, extra ...any) {
	n := tensor.NumelOf(dst.Shape)
	if n == 0 {
		return
	}
	b.do(func() {
		all := append([]tensor.View{dst}, views...)
		var meta Ptr
		if op != "Gather" && allDense(dst.Shape, all) {
			meta = b.upload(op, []int64{-1}) // agx_offsets: every offset is the flat index
		} else {
			meta = b.meta(op, dst.Shape, all...)
		}
		args := []any{n, meta}
		for _, v := range all {
			args = append(args, base(op, v))
		}
		args = append(args, extra...)
		b.launch(op, kernel, blocks(n, elementwiseThreads), Dim3{X: elementwiseThreads}, args...)
	})
}

// allDense reports whether every view is row-major contiguous over shape
// (strides of dims of size 1 do not matter).
func allDense(shape []int, views []tensor.View) bool {
	for _, v := range views {
		stride := 1
		for d := len(shape) - 1; d >= 0; d-- {
			if shape[d] != 1 && v.Strides[d] != stride {
				return false
			}
			stride *= shape[d]
		}
	}
	return true
}

// ToSlice copies the view, row-major, into a new Go slice.
func (b *Backend) ToSlice(src tensor.View) any {
	n := tensor.NumelOf(src.Shape)
	dt := src.DType()
	var out any
	var p unsafe.Pointer
	switch dt {
	case tensor.Float32:
		s := make([]float32, n)
		out, p = s, unsafe.Pointer(unsafe.SliceData(s))
	case tensor.Float64:
		s := make([]float64, n)
		out, p = s, unsafe.Pointer(unsafe.SliceData(s))
	case tensor.Int64:
		s := make([]int64, n)
		out, p = s, unsafe.Pointer(unsafe.SliceData(s))
	case tensor.Bool:
		s := make([]bool, n)
		out, p = s, unsafe.Pointer(unsafe.SliceData(s))
	}
	if n == 0 {
		return out
	}
	if slices.Equal(src.Strides, tensor.ContiguousStrides(src.Shape)) {
		b.do(func() { check("ToSlice", b.drv.CopyDtoH(p, base("ToSlice", src), n*dt.Size())) })
		return out
	}
	tmp := b.Alloc(dt, n).(*Buffer)
	dst := tensor.View{Buf: tmp, Shape: src.Shape, Strides: tensor.ContiguousStrides(src.Shape)}
	b.Copy(dst, src)
	b.do(func() { check("ToSlice", b.drv.CopyDtoH(p, tmp.ptr, n*dt.Size())) })
	runtime.KeepAlive(tmp)
	return out
}

// Fill sets every element of dst to v.
func (b *Backend) Fill(dst tensor.View, v float64) {
	b.elementwise("Fill", "fill_"+suffix[dst.DType()], dst, nil, v)
}

// Copy copies src into dst, converting the dtype.
func (b *Backend) Copy(dst, src tensor.View) {
	b.elementwise("Copy", "cast_"+suffix[src.DType()]+"_"+suffix[dst.DType()], dst, []tensor.View{src})
}

// Unary applies op element-wise.
func (b *Backend) Unary(op tensor.UnaryOp, dst, src tensor.View, args ...float64) {
	var a0, a1 float64
	if len(args) > 0 {
		a0 = args[0]
	}
	if len(args) > 1 {
		a1 = args[1]
	}
	b.elementwise("Unary", "unary_"+suffix[dst.DType()], dst, []tensor.View{src}, int32(op), a0, a1)
}

// Binary applies op element-wise; comparisons write Bool.
func (b *Backend) Binary(op tensor.BinaryOp, dst, x, y tensor.View) {
	kernel := "binary_"
	if op.IsCompare() {
		kernel = "compare_"
	}
	b.elementwise("Binary", kernel+suffix[x.DType()], dst, []tensor.View{x, y}, int32(op))
}

// Where sets dst = cond ? x : y.
func (b *Backend) Where(dst, cond, x, y tensor.View) {
	b.elementwise("Where", "where_"+suffix[dst.DType()], dst, []tensor.View{cond, x, y})
}

// Reduce reduces src over dims into dst (size 1 on those dims).
func (b *Backend) Reduce(op tensor.ReduceOp, dst, src tensor.View, dims []int) {
	dt := src.DType()
	if dt == tensor.Bool {
		tensor.Panicf("Reduce", tensor.ErrDType, "Bool reductions are not supported by backend %q", b.name)
	}
	red := make([]bool, len(src.Shape))
	for _, d := range dims {
		red[d] = true
	}
	var oshape, odst, osrc, rshape, rsrc []int64
	for d, s := range src.Shape {
		if red[d] {
			rshape = append(rshape, int64(s))
			rsrc = append(rsrc, int64(src.Strides[d]))
		} else {
			oshape = append(oshape, int64(s))
			odst = append(odst, int64(dst.Strides[d]))
			osrc = append(osrc, int64(src.Strides[d]))
		}
	}
	m := []int64{int64(len(oshape))}
	m = append(append(append(append(m, oshape...), odst...), osrc...), int64(len(rshape)))
	m = append(append(m, rshape...), rsrc...)
	nout := tensor.NumelOf(dst.Shape)
	nred := 1
	for _, s := range rshape {
		nred *= int(s)
	}
	if nout == 0 {
		return
	}
	kernel := "reduce_" + suffix[dt]
	if op == tensor.OpArgMax || op == tensor.OpArgMin {
		kernel = "argreduce_" + suffix[dt]
	}
	threads := 32
	for threads < min(nred, reduceThreads) {
		threads *= 2
	}
	b.do(func() {
		meta := b.upload("Reduce", m)
		b.launch("Reduce", kernel, Dim3{X: min(nout, maxBlocks)}, Dim3{X: threads},
			nout, nred, meta, base("Reduce", dst), base("Reduce", src), int32(op))
	})
}

// MatMul computes dst = a·b over broadcast batch dims, one Driver.Gemm per
// batch. An operand whose matrices are row-major (strides [cols, 1]; the
// batch dims may have any strides, broadcast ones included) is used where it
// is; others are first copied into a contiguous buffer. dst is written
// directly when its matrices are row-major, through a temporary otherwise.
func (b *Backend) MatMul(dst, a, bv tensor.View) {
	dt := dst.DType()
	if !dt.IsFloat() {
		tensor.Panicf("MatMul", tensor.ErrDType, "MatMul needs a float dtype, got %v", dt)
	}
	r := len(dst.Shape)
	m, n, k := dst.Shape[r-2], dst.Shape[r-1], a.Shape[r-1]
	if tensor.NumelOf(dst.Shape) == 0 {
		return
	}
	if k == 0 {
		b.Fill(dst, 0)
		return
	}
	batch := dst.Shape[:r-2]
	ab, aoff := b.gemmOperand(a, batch)
	bb, boff := b.gemmOperand(bv, batch)
	var tmp *Buffer
	cb, coff := buffer("MatMul", dst), batchOffsets(dst, batch)
	if !rowMajor(dst) {
		tmp = b.AllocUninit(dt, tensor.NumelOf(dst.Shape)).(*Buffer)
		cb, coff = tmp, denseOffsets(batch, m*n)
	}
	sz := dt.Size()
	b.do(func() {
		for i := range coff {
			check("MatMul", b.drv.Gemm(dt, m, n, k, ab.ptr.Add(aoff[i]*sz), bb.ptr.Add(boff[i]*sz), cb.ptr.Add(coff[i]*sz)))
		}
		if syncEach {
			check("MatMul", b.drv.Synchronize())
		}
	})
	if tmp != nil {
		b.Copy(dst, tensor.View{Buf: tmp, Shape: dst.Shape, Strides: tensor.ContiguousStrides(dst.Shape)})
	}
	runtime.KeepAlive(ab)
	runtime.KeepAlive(bb)
	runtime.KeepAlive(tmp)
}

// rowMajor reports whether the matrices (last two dims) of v are row-major
// with no gaps between rows, as Driver.Gemm takes them.
func rowMajor(v tensor.View) bool {
	r := len(v.Shape)
	rows, cols := v.Shape[r-2], v.Shape[r-1]
	return (cols == 1 || v.Strides[r-1] == 1) && (rows == 1 || v.Strides[r-2] == cols)
}

// batchOffsets returns the element offset of each matrix of v, batch index
// in row-major order over batch.
func batchOffsets(v tensor.View, batch []int) []int {
	offs := make([]int, tensor.NumelOf(batch))
	idx := make([]int, len(batch))
	for i := range offs {
		o := v.Offset
		for d, x := range idx {
			o += x * v.Strides[d]
		}
		offs[i] = o
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < batch[d] {
				break
			}
			idx[d] = 0
		}
	}
	return offs
}

// denseOffsets are the matrix offsets of a contiguous batch of size-elem matrices.
func denseOffsets(batch []int, size int) []int {
	offs := make([]int, tensor.NumelOf(batch))
	for i := range offs {
		offs[i] = i * size
	}
	return offs
}

// gemmOperand returns v's buffer and matrix offsets if its matrices are
// row-major, else those of a contiguous copy.
func (b *Backend) gemmOperand(v tensor.View, batch []int) (*Buffer, []int) {
	if rowMajor(v) {
		return buffer("MatMul", v), batchOffsets(v, batch)
	}
	r := len(v.Shape)
	return b.contiguous(v), denseOffsets(batch, v.Shape[r-2]*v.Shape[r-1])
}

// contiguous returns a row-major copy of v.
func (b *Backend) contiguous(v tensor.View) *Buffer {
	out := b.AllocUninit(v.DType(), tensor.NumelOf(v.Shape)).(*Buffer)
	b.Copy(tensor.View{Buf: out, Shape: v.Shape, Strides: tensor.ContiguousStrides(v.Shape)}, v)
	return out
}

// Gather sets dst = src[..., index, ...] along dim.
func (b *Backend) Gather(dst, src, index tensor.View, dim int) {
	b.elementwise("Gather", "gather_"+suffix[dst.DType()], dst, []tensor.View{src, index}, int32(dim))
}

// Scatter writes (or with accumulate adds) src into dst at index along dim.
func (b *Backend) Scatter(dst, index, src tensor.View, dim int, accumulate bool) {
	n := tensor.NumelOf(index.Shape)
	if n == 0 {
		return
	}
	b.do(func() {
		meta := b.meta("Scatter", index.Shape, dst, index, src)
		b.launch("Scatter", "scatter_"+suffix[dst.DType()], blocks(n, elementwiseThreads), Dim3{X: elementwiseThreads},
			n, meta, base("Scatter", dst), base("Scatter", index), base("Scatter", src), int32(dim), accumulate)
	})
}

var _ tensor.Backend = (*Backend)(nil)
