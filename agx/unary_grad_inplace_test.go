package agx

import (
	"fmt"

	"testing"

	"github.com/goagx/agx/tensor"
)

// TestUnaryGradInPlace checks that the first-order backward of Sigmoid and
// Tanh, computed in place on plain tensors, equals bit for bit the recorded
// formula that CreateGraph uses, per dtype.
func TestUnaryGradInPlace(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		for _, c := range []struct {
			name string
			f    func(*Tensor) *Tensor
		}{
			{"sigmoid", (*Tensor).Sigmoid},
			{"tanh", (*Tensor).Tanh},
		} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				gen := tensor.NewGenerator(5)
				x := New(gen.Randn(dt, 3, 50).Mul(3)).SetRequiresGrad(true)
				up := New(gen.Randn(dt, 3, 50))
				plain := Grad([]*Tensor{c.f(x)}, []*Tensor{x}, GradOutputs(up))[0]
				graph := Grad([]*Tensor{c.f(x)}, []*Tensor{x}, GradOutputs(up), CreateGraph(true))[0]
				if plain.RequiresGrad() || !graph.RequiresGrad() {
					t.Fatalf("requires grad: plain %v, graph %v", plain.RequiresGrad(), graph.RequiresGrad())
				}
				if fmt.Sprint(tensor.ToSlice[float64](plain.Data().To(tensor.Float64))) != fmt.Sprint(tensor.ToSlice[float64](graph.Data().To(tensor.Float64))) {
					t.Errorf("in-place grad differs from the recorded formula:\n%v\n%v", plain, graph)
				}
			})
		}
	}
}
