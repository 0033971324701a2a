package tensor

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// The package doc lists what importing tensor does to the process; each of
// these tests checks that a program can undo one of them without touching
// its environment.

func TestSetHeapFloorMiB(t *testing.T) {
	orig := HeapFloorMiB()
	t.Cleanup(func() { SetHeapFloorMiB(orig) })
	for _, tc := range []struct{ set, wantLen int }{
		{0, 0}, // released
		{2, 2}, // a new floor of another size
		{2, 2}, // the same size again keeps it
		{0, 0},
	} {
		prev := HeapFloorMiB()
		if got := SetHeapFloorMiB(tc.set); got != prev {
			t.Fatalf("SetHeapFloorMiB(%d) returned %d, want the previous %d", tc.set, got, prev)
		}
		if HeapFloorMiB() != tc.set || len(heapFloor)>>20 != tc.wantLen {
			t.Fatalf("after SetHeapFloorMiB(%d): HeapFloorMiB %d, floor holds %d MiB", tc.set, HeapFloorMiB(), len(heapFloor)>>20)
		}
	}
	for _, bad := range []int{-1, 1<<16 + 1} {
		err := try(func() { SetHeapFloorMiB(bad) })
		if !errors.Is(err, ErrArg) {
			t.Errorf("SetHeapFloorMiB(%d): error %v, want ErrArg", bad, err)
		}
	}
}

func TestSetRecycling(t *testing.T) {
	DropRecycled()
	t.Cleanup(func() { SetRecycling(true); DropRecycled() })
	if !Recycling() {
		t.Fatal("recycling is off at start-up")
	}
	if !Recycle(emptyUninit(CPU{}, Float64, 100, 100)) || RecycledBytes() == 0 {
		t.Fatal("recycling on: a recyclable buffer was refused")
	}
	if prev := SetRecycling(false); !prev {
		t.Fatal("SetRecycling(false) returned false, want the previous true")
	}
	if RecycledBytes() != 0 {
		t.Fatalf("recycling off: %d bytes still held", RecycledBytes())
	}
	if Recycle(emptyUninit(CPU{}, Float64, 100, 100)) || RecycledBytes() != 0 {
		t.Fatal("recycling off: Recycle took a buffer")
	}
	// With recycling off the sentinel is not re-armed after a collection.
	deadline := time.Now().Add(5 * time.Second)
	for armed() {
		if time.Now().After(deadline) {
			t.Fatal("the GC sentinel is still armed with recycling off")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	// On again: buffers are taken and aged by a fresh sentinel.
	if prev := SetRecycling(true); prev {
		t.Fatal("SetRecycling(true) returned true, want the previous false")
	}
	if !armed() {
		t.Fatal("SetRecycling(true) did not arm the GC sentinel")
	}
	if !Recycle(emptyUninit(CPU{}, Float64, 100, 100)) {
		t.Fatal("recycling on again: a recyclable buffer was refused")
	}
	for RecycledBytes() != 0 {
		if time.Now().After(deadline.Add(5 * time.Second)) {
			t.Fatalf("%d bytes still free after collections", RecycledBytes())
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

func armed() bool {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	return recycled.armed
}

// UseFastGEMM(false) gives gonum's process-wide BLAS back its own
// implementation, and MatMul still works on it.
func TestUseFastGEMMOffRestoresGonum(t *testing.T) {
	prev32, prev64 := blas32.Implementation(), blas64.Implementation()
	t.Cleanup(func() { blas32.Use(prev32); blas64.Use(prev64) })
	UseFastGEMM(false)
	if _, ok := blas32.Implementation().(gonum.Implementation); !ok {
		t.Errorf("blas32 implementation is %T, want gonum.Implementation", blas32.Implementation())
	}
	if _, ok := blas64.Implementation().(gonum.Implementation); !ok {
		t.Errorf("blas64 implementation is %T, want gonum.Implementation", blas64.Implementation())
	}
	if got := BLAS(); got != "gonum (pure Go)" {
		t.Errorf("BLAS() = %q after UseFastGEMM(false), want gonum's", got)
	}
	for _, dt := range []DType{Float32, Float64} {
		a := Arange(dt, 0, 6, 1).Reshape(2, 3)
		got := MatMul(a, a.T()).Float64s()
		if want := []float64{5, 14, 14, 50}; !equalFloats(got, want) {
			t.Errorf("%v: MatMul on gonum's BLAS = %v, want %v", dt, got, want)
		}
		// A row-major B of 16 rows or more is the case matmulT copies as Bᵀ
		// for gonum's GEMM.
		x := Arange(dt, 0, 32*20, 1).Reshape(32, 20)
		y := Arange(dt, 0, 20*24, 1).Reshape(20, 24)
		want, _ := naiveMatMul(x.Float64s(), x.Shape(), y.Float64s(), y.Shape())
		if got := MatMul(x, y).Float64s(); !equalFloats(got, want) {
			t.Errorf("%v: 32×20 @ 20×24 on gonum's BLAS differs from the naive product", dt)
		}
	}
	// A BLAS the program installs itself is named by its type.
	blas32.Use(ownBLAS{})
	if got, want := BLAS(), "tensor.ownBLAS (installed by the program)"; got != want {
		t.Errorf("BLAS() = %q with the program's own BLAS, want %q", got, want)
	}
}

// ownBLAS stands for a BLAS a program installs with blas32.Use.
type ownBLAS struct{ gonum.Implementation }

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
