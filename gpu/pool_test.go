package gpu

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// fakeDriver is device memory in Go byte slices with a capacity, counting
// calls. It runs fill_words and records every other launch and Gemm.
type fakeDriver struct {
	capacity, used int
	mem            map[Ptr][]byte
	next           Ptr
	launches       []string
	gemms          [][3]Ptr
}

func newFake(capacity int) *fakeDriver {
	return &fakeDriver{capacity: capacity, mem: map[Ptr][]byte{}, next: 1 << 20}
}

func (d *fakeDriver) Name() string { return "fake" }

func (d *fakeDriver) Bind() error { return nil }

func (d *fakeDriver) Alloc(bytes int) (Ptr, error) {
	if d.used+bytes > d.capacity {
		return 0, errors.New("CUDA_ERROR_OUT_OF_MEMORY")
	}
	p := d.next
	d.next += Ptr(bytes+4095) &^ 4095
	d.mem[p] = make([]byte, bytes)
	d.used += bytes
	return p, nil
}

func (d *fakeDriver) Free(p Ptr) error {
	m, ok := d.mem[p]
	if !ok {
		return fmt.Errorf("free of %#x: not allocated", p)
	}
	d.used -= len(m)
	delete(d.mem, p)
	return nil
}

// at returns the bytes at p (a block's base address only).
func (d *fakeDriver) at(p Ptr, bytes int) []byte {
	m, ok := d.mem[p]
	if !ok || bytes > len(m) {
		panic(fmt.Sprintf("fake: %d bytes at %#x: not a block", bytes, p))
	}
	return m[:bytes]
}

func (d *fakeDriver) CopyHtoD(dst Ptr, src unsafe.Pointer, bytes int) error {
	copy(d.at(dst, bytes), unsafe.Slice((*byte)(src), bytes))
	return nil
}

func (d *fakeDriver) CopyDtoH(dst unsafe.Pointer, src Ptr, bytes int) error {
	copy(unsafe.Slice((*byte)(dst), bytes), d.at(src, bytes))
	return nil
}

func (d *fakeDriver) CopyDtoD(dst, src Ptr, bytes int) error {
	copy(d.at(dst, bytes), d.at(src, bytes))
	return nil
}

func (d *fakeDriver) LoadModule(name, source string, kernels []string) (Module, error) {
	return name, nil
}

func (d *fakeDriver) Launch(m Module, kernel string, grid, block Dim3, sharedBytes int, args []uint64) error {
	d.launches = append(d.launches, kernel)
	if kernel == "fill_words" {
		w := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(d.at(Ptr(args[1]), int(args[0])*8)))), args[0])
		for i := range w {
			w[i] = args[2]
		}
	}
	return nil
}

func (d *fakeDriver) Gemm(dt tensor.DType, m, n, k int, a, b, c Ptr) error {
	d.gemms = append(d.gemms, [3]Ptr{a, b, c})
	return nil
}

func (d *fakeDriver) Synchronize() error { return nil }

func fakeBackend(t *testing.T, capacity int) (*Backend, *fakeDriver) {
	t.Helper()
	d := newFake(capacity)
	be, err := NewBackend("fake", func() (Driver, error) { return d, nil })
	if err != nil {
		t.Fatal(err)
	}
	return be, d
}

// collect runs the collector until the backend has cached at least bytes.
func collect(t *testing.T, be *Backend, bytes int64) MemStats {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		s := be.MemStats()
		if s.Cached >= bytes {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("dead buffers never came back to the cache: %v", s)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSizeClass(t *testing.T) {
	cases := []struct{ in, want int }{
		{1, 512}, {512, 512}, {513, 1024}, {4096, 4096}, {4097, 4608},
		{1 << 20, 1 << 20}, {1<<20 + 1, 1<<20 + 1<<17}, {3 << 20, 3 << 20},
	}
	for _, c := range cases {
		if got := sizeClass(c.in); got != c.want {
			t.Errorf("sizeClass(%d) = %d, want %d", c.in, got, c.want)
		}
	}
	for n := 1; n < 1<<22; n = n*3/2 + 1 {
		c := sizeClass(n)
		if c < n || c%512 != 0 || float64(c) > 1.125*float64(n)+512 {
			t.Fatalf("sizeClass(%d) = %d: not a 512-byte multiple within 12.5 %% above", n, c)
		}
	}
}

func TestCacheReusesDeadBuffers(t *testing.T) {
	be, _ := fakeBackend(t, 1<<30)
	const n = 1 << 18 // 1 MiB of float32
	buf := be.FromSlice(make([]float32, n))
	before := be.MemStats()
	runtime.KeepAlive(buf)
	buf = nil
	collect(t, be, 1<<20)
	x := be.Alloc(tensor.Float32, n)
	after := be.MemStats()
	if after.DriverAllocs != before.DriverAllocs || after.Reuses != before.Reuses+1 {
		t.Fatalf("a block of a dead buffer was not reused: before %v, after %v", before, after)
	}
	runtime.KeepAlive(x)
}

func TestCacheZeroesReusedBlocks(t *testing.T) {
	be, _ := fakeBackend(t, 1<<30)
	const n = 1000
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	buf := be.FromSlice(ones)
	runtime.KeepAlive(buf)
	buf = nil
	before := collect(t, be, 8*n)
	x := be.Alloc(tensor.Float64, n).(*Buffer)
	if be.MemStats().Reuses != before.Reuses+1 {
		t.Fatal("the block was not reused")
	}
	got := be.ToSlice(tensor.View{Buf: x, Shape: []int{n}, Strides: []int{1}}).([]float64)
	for i, v := range got {
		if v != 0 {
			t.Fatalf("reused block: element %d = %v, want 0", i, v)
		}
	}
}

// A loop making large tensors and no Go garbage to speak of must not fill the
// device: the backend starts collections itself, and collects on a failed
// driver allocation.
func TestLoopDoesNotRunOutOfMemory(t *testing.T) {
	for _, c := range []struct {
		name     string
		capacity int
		oom      bool
	}{
		{"growth-collections", 4 << 30, false}, // never out of memory: gcMinBytes starts collections
		{"out-of-memory-collections", 64 << 20, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			be, d := fakeBackend(t, c.capacity)
			const n = 1 << 21 // 8 MiB of float32
			for range 200 {
				be.AllocUninit(tensor.Float32, n)
			}
			s := be.MemStats()
			// The growth collections run in the background, so how many
			// blocks come back in time depends on the scheduler.
			if (!c.oom && s.GCs == 0) || (c.oom && s.OOMGCs == 0) || s.DriverAllocs == 200 {
				t.Fatalf("200 dead 8 MiB buffers: %v", s)
			}
			var used int
			be.Do(func(Driver) { used = d.used })
			if used > c.capacity {
				t.Fatalf("%d bytes in use on a device of %d", used, c.capacity)
			}
			t.Log(s)
		})
	}
}

func TestOutOfMemoryError(t *testing.T) {
	be, _ := fakeBackend(t, 16<<20)
	var keep []tensor.Buffer
	err := agx.Try(func() {
		for range 3 {
			keep = append(keep, be.Alloc(tensor.Float64, 1<<20)) // 8 MiB each
		}
	})
	if !errors.Is(err, tensor.ErrDevice) || !strings.Contains(err.Error(), "out of device memory") ||
		!strings.Contains(err.Error(), "CUDA_ERROR_OUT_OF_MEMORY") {
		t.Fatalf("third 8 MiB buffer on a 16 MiB device: error %v", err)
	}
	if len(keep) != 2 {
		t.Fatalf("%d buffers allocated, want 2", len(keep))
	}
}

func TestEmptyCache(t *testing.T) {
	be, d := fakeBackend(t, 1<<30)
	for range 4 {
		be.Alloc(tensor.Float32, 1<<16)
	}
	collect(t, be, 4<<18)
	be.EmptyCache()
	s := be.MemStats()
	if s.Cached != 0 || s.DriverFrees < 4 {
		t.Fatalf("after EmptyCache: %v", s)
	}
	var blocks int
	be.Do(func(Driver) { blocks = len(d.mem) })
	if int64(blocks) != s.DriverAllocs-s.DriverFrees {
		t.Fatalf("%d blocks on the device, want %d", blocks, s.DriverAllocs-s.DriverFrees)
	}
}

// MatMul hands row-major operands, batch-broadcast ones included, to Gemm
// where they are, and copies only operands it must.
func TestMatMulOperandsInPlace(t *testing.T) {
	be, d := fakeBackend(t, 1<<30)
	const m, k, n = 3, 4, 5
	f32 := tensor.Float32
	a := be.AllocUninit(f32, 2*m*k).(*Buffer)
	bm := be.AllocUninit(f32, k*n).(*Buffer)
	c := be.AllocUninit(f32, 2*m*n).(*Buffer)
	view := func(buf *Buffer, shape, strides []int) tensor.View {
		return tensor.View{Buf: buf, Shape: shape, Strides: strides}
	}
	cases := []struct {
		name  string
		a, b  tensor.View
		casts int
		gemms [][3]Ptr
	}{
		{"batch-broadcast-b", view(a, []int{2, m, k}, []int{m * k, k, 1}), view(bm, []int{2, k, n}, []int{0, n, 1}), 0,
			[][3]Ptr{{a.ptr, bm.ptr, c.ptr}, {a.ptr + 4*m*k, bm.ptr, c.ptr + 4*m*n}}},
		{"transposed-a", view(a, []int{2, m, k}, []int{m * k, 1, m}), view(bm, []int{2, k, n}, []int{0, n, 1}), 1, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			be.Do(func(Driver) { d.launches, d.gemms = nil, nil })
			be.MatMul(view(c, []int{2, m, n}, []int{m * n, n, 1}), tc.a, tc.b)
			var casts int
			var gemms [][3]Ptr
			be.Do(func(Driver) {
				for _, l := range d.launches {
					if strings.HasPrefix(l, "cast_") {
						casts++
					}
				}
				gemms = d.gemms
			})
			if casts != tc.casts || len(gemms) != 2 {
				t.Fatalf("%d copies and %d Gemm calls, want %d and 2", casts, len(gemms), tc.casts)
			}
			if tc.gemms != nil && fmt.Sprint(gemms) != fmt.Sprint(tc.gemms) {
				t.Fatalf("Gemm operands %x, want %x", gemms, tc.gemms)
			}
		})
	}
}

func TestUninitPoison(t *testing.T) {
	be, _ := fakeBackend(t, 1<<30)
	poisonUninit = true
	defer func() { poisonUninit = false }()
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		buf := be.AllocUninit(dt, 100).(*Buffer)
		var got []float64
		switch s := be.ToSlice(tensor.View{Buf: buf, Shape: []int{100}, Strides: []int{1}}).(type) {
		case []float32:
			for _, x := range s {
				got = append(got, float64(x))
			}
		case []float64:
			got = s
		}
		if len(got) != 100 {
			t.Fatalf("%v: %d values back", dt, len(got))
		}
		for i, v := range got {
			if !math.IsNaN(v) {
				t.Fatalf("%v: element %d = %v, want NaN under AGX_DEBUG_UNINIT", dt, i, v)
			}
		}
	}
}

func TestAllDense(t *testing.T) {
	v := func(strides ...int) tensor.View { return tensor.View{Strides: strides} }
	cases := []struct {
		name  string
		shape []int
		views []tensor.View
		want  bool
	}{
		{"contiguous", []int{2, 3}, []tensor.View{v(3, 1), v(3, 1)}, true},
		{"size-1 dim, any stride", []int{2, 1, 3}, []tensor.View{v(3, 99, 1)}, true},
		{"broadcast", []int{2, 3}, []tensor.View{v(3, 1), v(0, 1)}, false},
		{"transposed", []int{2, 3}, []tensor.View{v(1, 2)}, false},
		{"row gap", []int{2, 3}, []tensor.View{v(4, 1)}, false},
		{"0-d", nil, []tensor.View{v(), v()}, true},
	}
	for _, c := range cases {
		if got := allDense(c.shape, c.views); got != c.want {
			t.Errorf("%s: allDense = %v, want %v", c.name, got, c.want)
		}
	}
}
