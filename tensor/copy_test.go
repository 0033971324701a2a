package tensor

import (
	"slices"
	"testing"
	"unsafe"
)

// TestCopyCached checks copyCached against copy for every element size,
// at lengths on each side of its two bounds and between them (where it
// copies in pieces, the last one short), and on overlapping slices in
// both directions, which must keep memmove's result.
func TestCopyCached(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testCopyCached(t, func(i int) float32 { return float32(i) + 0.5 }) })
	t.Run("float64", func(t *testing.T) { testCopyCached(t, func(i int) float64 { return float64(i) - 0.25 }) })
	t.Run("int64", func(t *testing.T) { testCopyCached(t, func(i int) int64 { return int64(i) * 3 }) })
	t.Run("bool", func(t *testing.T) { testCopyCached(t, func(i int) bool { return i%3 == 1 }) })
}

func testCopyCached[T comparable](t *testing.T, val func(int) T) {
	var z T
	size := int(unsafe.Sizeof(z))
	mib := (1 << 20) / size
	for _, n := range []int{0, 1000, mib - 1, mib, mib + 1, copyPiece/size*3 + 7, cachedCopyMax / size, cachedCopyMax/size + 1} {
		s := make([]T, n)
		for i := range s {
			s[i] = val(i)
		}
		d := make([]T, n)
		copyCached(d, s)
		if !slices.Equal(d, s) {
			t.Fatalf("%d elements: the copy differs", n)
		}
	}
	n := 3*mib/2 + 5
	for _, shift := range []int{1, -1, copyPiece / size, -copyPiece / size} {
		buf := make([]T, n+copyPiece/size)
		for i := range buf {
			buf[i] = val(i)
		}
		want := slices.Clone(buf)
		lo := copyPiece / size // d starts at lo+shift, s at lo
		copy(want[lo+shift:lo+shift+n-copyPiece/size], want[lo:lo+n-copyPiece/size])
		m := n - copyPiece/size
		copyCached(buf[lo+shift:lo+shift+m], buf[lo:lo+m])
		if !slices.Equal(buf, want) {
			t.Fatalf("overlap shifted by %d: the copy differs from memmove's", shift)
		}
	}
}
