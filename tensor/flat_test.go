package tensor_test

import (
	"slices"
	"testing"

	"github.com/goagx/agx/tensor"
)

// Small dense operands take the CPU backend's flat path; views at an offset,
// single-element operands on either side and the non-basic ops must give the
// same values as the general path.
func TestBinaryFlatPath(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			x := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3).To(dt)
			row1 := x.Select(0, 1)              // [4 5 6] at offset 3
			last := row1.Select(0, 2)           // 0-d 6 at offset 5
			col := x.Narrow(1, 1, 1).Squeeze(1) // [2 5], strided: general path
			for _, tc := range []struct {
				name string
				got  *tensor.Tensor
				want []float64
			}{
				{"offset_views", tensor.Add(row1, x.Select(0, 0)), []float64{5, 7, 9}},
				{"scalar_left", tensor.Sub(2.0, row1), []float64{-2, -3, -4}},
				{"scalar_right", tensor.Div(row1, 2), []float64{2, 2.5, 3}},
				{"0d_view_left", tensor.Mul(last, row1), []float64{24, 30, 36}},
				{"0d_view_right", tensor.Sub(row1, last), []float64{-2, -1, 0}},
				{"pow_scalar_base", tensor.Binary(tensor.OpPow, 2.0, row1), []float64{16, 32, 64}},
				{"maximum_0d", tensor.Binary(tensor.OpMaximum, last.Sub(1), row1), []float64{5, 5, 6}},
				{"strided", tensor.Add(col, 1), []float64{3, 6}},
			} {
				if got := tc.got.Float64s(); !slices.Equal(got, tc.want) || tc.got.DType() != dt {
					t.Errorf("%s: got %v %v, want %v %v", tc.name, got, tc.got.DType(), tc.want, dt)
				}
			}
		})
	}
}
