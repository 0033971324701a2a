package gpu

import (
	"fmt"
	"runtime"
	"slices"
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

// Backend implements tensor.Backend over a Driver. All device work runs on one
// goroutine locked to its OS thread (CUDA contexts are per thread); the
// methods send it closures and wait.
type Backend struct {
	name string
	drv  Driver
	mod  Module
	reqs chan func()
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

// NewBackend starts a device goroutine, opens the driver on it and loads the
// built-in kernels. name is the backend's Name (e.g. "cuda").
func NewBackend(name string, open func() (Driver, error)) (*Backend, error) {
	b := &Backend{name: name, reqs: make(chan func())}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread holds the context
		d, err := open()
		if err != nil {
			errc <- err
			return
		}
		b.drv = d
		errc <- nil
		for f := range b.reqs {
			f()
		}
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	var err error
	b.do(func() {
		b.mod, err = b.drv.LoadModule("agx", kernels.Source(), nil)
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: loading the built-in kernels: %w", err)
	}
	return b, nil
}

// Name identifies the backend.
func (b *Backend) Name() string { return b.name }

// Driver returns the driver the backend runs on.
func (b *Backend) Driver() Driver { return b.drv }

// do runs f on the device goroutine and waits for it.
func (b *Backend) do(f func()) {
	done := make(chan struct{})
	var panicked any
	b.reqs <- func() {
		defer func() {
			panicked = recover()
			close(done)
		}()
		f()
	}
	<-done
	if panicked != nil {
		panic(panicked)
	}
}

// Do runs f on the device goroutine (the thread that owns the CUDA context),
// for code that calls the Driver directly.
func (b *Backend) Do(f func(d Driver)) { b.do(func() { f(b.drv) }) }

func check(op string, err error) {
	if err != nil {
		tensor.Panicf(op, tensor.ErrDevice, "%v", err)
	}
}

// alloc must run on the device goroutine.
func (b *Backend) alloc(dt tensor.DType, n int) *Buffer {
	p, err := b.drv.Alloc(max(n*dt.Size(), 1))
	check("Alloc", err)
	buf := &Buffer{ptr: p, n: n, dt: dt}
	runtime.AddCleanup(buf, func(p Ptr) {
		go b.do(func() { _ = b.drv.Free(p) })
	}, p)
	return buf
}

// Alloc returns a zeroed buffer of n elements.
func (b *Backend) Alloc(dt tensor.DType, n int) tensor.Buffer {
	var buf *Buffer
	b.do(func() { buf = b.alloc(dt, n) })
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
		buf = b.alloc(dt, n)
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

// meta uploads [rank, shape, strides of each view] for an element-wise kernel.
// It must run on the device goroutine; the caller frees the result.
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

func (b *Backend) upload(op string, m []int64) Ptr {
	p, err := b.drv.Alloc(len(m) * 8)
	check(op, err)
	check(op, b.drv.CopyHtoD(p, unsafe.Pointer(unsafe.SliceData(m)), len(m)*8))
	return p
}

// launch runs a built-in kernel and frees the metadata afterwards.
func (b *Backend) launch(op, kernel string, grid, block Dim3, meta Ptr, args ...any) {
	check(op, b.drv.Launch(b.mod, kernel, grid, block, 0, Args(args...)))
	check(op, b.drv.Synchronize())
	if meta != 0 {
		check(op, b.drv.Free(meta))
	}
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
		meta := b.meta(op, dst.Shape, all...)
		args := []any{n, meta}
		for _, v := range all {
			args = append(args, base(op, v))
		}
		args = append(args, extra...)
		b.launch(op, kernel, blocks(n, elementwiseThreads), Dim3{X: elementwiseThreads}, meta, args...)
	})
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
		b.launch("Reduce", kernel, Dim3{X: min(nout, maxBlocks)}, Dim3{X: threads}, meta,
			nout, nred, meta, base("Reduce", dst), base("Reduce", src), int32(op))
	})
}

// MatMul computes dst = a·b over broadcast batch dims: operands are first
// made contiguous, then each batch is one Driver.Gemm.
func (b *Backend) MatMul(dst, a, bv tensor.View) {
	dt := dst.DType()
	if !dt.IsFloat() {
		tensor.Panicf("MatMul", tensor.ErrDType, "MatMul needs a float dtype, got %v", dt)
	}
	r := len(dst.Shape)
	m, n, k := dst.Shape[r-2], dst.Shape[r-1], a.Shape[r-1]
	nb := tensor.NumelOf(dst.Shape[:r-2])
	if tensor.NumelOf(dst.Shape) == 0 {
		return
	}
	if k == 0 {
		b.Fill(dst, 0)
		return
	}
	ac, bc := b.contiguous(a), b.contiguous(bv)
	c := b.Alloc(dt, nb*m*n).(*Buffer)
	sz := dt.Size()
	b.do(func() {
		for i := 0; i < nb; i++ {
			check("MatMul", b.drv.Gemm(dt, m, n, k,
				ac.ptr.Add(i*m*k*sz), bc.ptr.Add(i*k*n*sz), c.ptr.Add(i*m*n*sz)))
		}
	})
	b.Copy(dst, tensor.View{Buf: c, Shape: dst.Shape, Strides: tensor.ContiguousStrides(dst.Shape)})
	runtime.KeepAlive(ac)
	runtime.KeepAlive(bc)
}

// contiguous returns a row-major copy of v.
func (b *Backend) contiguous(v tensor.View) *Buffer {
	out := b.Alloc(v.DType(), tensor.NumelOf(v.Shape)).(*Buffer)
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
		b.launch("Scatter", "scatter_"+suffix[dst.DType()], blocks(n, elementwiseThreads), Dim3{X: elementwiseThreads}, meta,
			n, meta, base("Scatter", dst), base("Scatter", index), base("Scatter", src), int32(dim), accumulate)
	})
}

var _ tensor.Backend = (*Backend)(nil)
