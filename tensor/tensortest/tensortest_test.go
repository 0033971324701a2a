package tensortest_test

import (
	"slices"
	"testing"

	"github.com/goagx/agx/tensor"
	"github.com/goagx/agx/tensor/tensortest"
)

func TestGroups(t *testing.T) {
	want := []string{"Alloc", "FromSlice", "Fill", "Copy", "Unary", "Binary", "Where", "Reduce", "MatMul", "Gather", "Scatter"}
	if got := tensortest.Groups(); !slices.Equal(got, want) {
		t.Fatalf("Groups() = %v, want %v", got, want)
	}
}

// A backend that only has the element-wise primitives skips the rest.
func TestSkip(t *testing.T) {
	tensortest.RunAll(t, tensor.CPU{}, tensortest.Skip("Reduce", "MatMul", "Gather", "Scatter"))
}

// wip is a backend under construction: it implements only the storage
// primitives (borrowed from the CPU backend) and embeds NotImplemented for the
// rest, whose groups it skips.
type wip struct {
	tensor.NotImplemented
	cpu tensor.CPU
}

func (w wip) Alloc(dt tensor.DType, n int) tensor.Buffer { return w.cpu.Alloc(dt, n) }
func (w wip) FromSlice(d any) tensor.Buffer              { return w.cpu.FromSlice(d) }
func (w wip) ToSlice(v tensor.View) any                  { return w.cpu.ToSlice(v) }
func (w wip) Fill(v tensor.View, x float64)              { w.cpu.Fill(v, x) }
func (w wip) Copy(d, s tensor.View)                      { w.cpu.Copy(d, s) }

func TestPartialBackend(t *testing.T) {
	be := wip{NotImplemented: tensor.NotImplemented{BackendName: "wip"}}
	tensortest.RunAll(t, be, tensortest.Skip("Unary", "Binary", "Where", "Reduce", "MatMul", "Gather", "Scatter"))
}
