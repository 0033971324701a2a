package tensor

import (
	"runtime"
	"testing"
	"time"
)

func TestRecycleReusesBuffers(t *testing.T) {
	DropRecycled()
	t.Cleanup(DropRecycled)
	for _, dt := range []DType{Float32, Float64} {
		a := emptyUninit(CPU{}, dt, 64, 80)
		id := a.AllocID()
		if id == 0 || id > AllocSeq() {
			t.Fatalf("%v: AllocID %d, AllocSeq %d", dt, id, AllocSeq())
		}
		if v := a.Reshape(80, 64); v.AllocID() != id {
			t.Fatalf("%v: a view has AllocID %d, want %d", dt, v.AllocID(), id)
		}
		if !Recycle(a) {
			t.Fatalf("%v: a recyclable buffer was refused", dt)
		}
		if Recycle(a) {
			t.Fatalf("%v: the same buffer was taken twice", dt)
		}
		if got, want := RecycledBytes(), 64*80*dt.Size(); got != want {
			t.Fatalf("%v: RecycledBytes %d, want %d", dt, got, want)
		}
		// Another size does not take it; the same size does, under a new number.
		if b := emptyUninit(CPU{}, dt, 64, 81); b.st.buf == a.st.buf {
			t.Fatalf("%v: a buffer of another size was reused", dt)
		}
		b := emptyUninit(CPU{}, dt, 80, 64)
		if b.st.buf != a.st.buf {
			t.Fatalf("%v: the free buffer was not reused", dt)
		}
		if b.AllocID() <= id || RecycledBytes() != 0 {
			t.Fatalf("%v: AllocID %d after %d, %d bytes still free", dt, b.AllocID(), id, RecycledBytes())
		}
	}
	// Small, zeroed, integer and user-made tensors are not recyclable.
	for _, x := range []*Tensor{
		emptyUninit(CPU{}, Float32, recycleMin-1),
		Zeros(Float32, 100, 100),
		emptyUninit(CPU{}, Int64, 100, 100),
		FromSlice(make([]float64, 10000)),
	} {
		if x.AllocID() != 0 || Recycle(x) {
			t.Fatalf("%v %v: AllocID %d, recycled", x.DType(), x.Shape(), x.AllocID())
		}
	}
}

func TestRecycleBounded(t *testing.T) {
	DropRecycled()
	t.Cleanup(DropRecycled)
	n := 1 << 20 // 4 MiB of float32
	var ts []*Tensor
	for i := 0; i < recycleMaxBytes/(4*n)+3; i++ {
		ts = append(ts, emptyUninit(CPU{}, Float32, n))
	}
	taken := 0
	for _, x := range ts {
		if Recycle(x) {
			taken++
		}
	}
	if taken != recycleMaxBytes/(4*n) || RecycledBytes() != recycleMaxBytes {
		t.Fatalf("took %d buffers, %d bytes free; the bound is %d bytes", taken, RecycledBytes(), recycleMaxBytes)
	}
}

// A free buffer that no result reuses for a whole collection cycle goes.
func TestRecycleDropsUnusedAfterGC(t *testing.T) {
	DropRecycled()
	t.Cleanup(DropRecycled)
	Recycle(emptyUninit(CPU{}, Float64, 100, 100))
	if RecycledBytes() == 0 {
		t.Fatal("nothing recycled")
	}
	deadline := time.Now().Add(5 * time.Second)
	for RecycledBytes() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still free after collections", RecycledBytes())
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// With AGX_DEBUG_UNINIT=1, Recycle poisons the buffer at once.
func TestRecyclePoisons(t *testing.T) {
	withPoison(t)
	DropRecycled()
	t.Cleanup(DropRecycled)
	a := emptyUninit(CPU{}, Float32, 100, 100)
	for i, s := 0, Data[float32](a); i < len(s); i++ {
		s[i] = 1
	}
	view := a.Reshape(10000)
	Recycle(a)
	if v := view.Float64s()[1234]; v == v {
		t.Fatalf("a recycled buffer reads %v, want NaN", v)
	}
}
