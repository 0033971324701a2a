package agx

import (
	"reflect"
	"testing"
)

// A pass's node index is cleared for reuse, except after a large pass, whose
// map (maps never shrink) is replaced so that later small passes do not pay
// for clearing its capacity.
func TestPutScratchIndex(t *testing.T) {
	for _, c := range []struct {
		name     string
		nodes    int
		replaced bool
	}{
		{"small", 3, false},
		{"at the bound", maxClearedIndex, false},
		{"large", maxClearedIndex + 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &passScratch{index: make(map[*Node]int32)}
			for i := range c.nodes {
				p.index[&Node{}] = int32(i)
			}
			before := reflect.ValueOf(p.index).UnsafePointer()
			putScratch(p)
			if len(p.index) != 0 {
				t.Fatalf("index has %d entries after putScratch", len(p.index))
			}
			if replaced := reflect.ValueOf(p.index).UnsafePointer() != before; replaced != c.replaced {
				t.Errorf("map replaced: %v, want %v", replaced, c.replaced)
			}
		})
	}
}
