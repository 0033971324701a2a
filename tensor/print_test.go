package tensor_test

import (
	"math"
	"testing"

	"github.com/goagx/agx/tensor"
)

var (
	tidxNaN = math.NaN()
	tidxInf = math.Inf(1)
)

// The expected strings were produced by PyTorch 1.13's repr on the same values
// (with "torch.float64" written "float64").
func TestString(t *testing.T) {
	cases := []struct {
		name string
		x    *tensor.Tensor
		want string
	}{
		{"float ints", tensor.FromSlice([]float64{1, 2, 3}).Reshape(3).To(tensor.Float32),
			"tensor([1., 2., 3.])"},
		{"float matrix", tensor.FromSlice([]float64{1, -2.5, 3, 4}).Reshape(2, 2).To(tensor.Float32),
			"tensor([[ 1.0000, -2.5000],\n        [ 3.0000,  4.0000]])"},
		{"int64", tensor.FromSlice([]float64{1, 2, 3}).Reshape(3).To(tensor.Int64),
			"tensor([1, 2, 3])"},
		{"bool", tensor.FromSlice([]bool{true, false}).Reshape(2),
			"tensor([ True, False])"},
		{"scalar", tensor.FromSlice([]float64{3.5}).Reshape().To(tensor.Float32),
			"tensor(3.5000)"},
		{"scalar int", tensor.FromSlice([]float64{-4}).Reshape().To(tensor.Int64),
			"tensor(-4)"},
		{"float64 dtype", tensor.FromSlice([]float64{1.5, 2, 3}).Reshape(3).To(tensor.Float64),
			"tensor([1.5000, 2.0000, 3.0000], dtype=float64)"},
		{"sci small", tensor.FromSlice([]float64{1e-05, 1, 2}).Reshape(3).To(tensor.Float32),
			"tensor([1.0000e-05, 1.0000e+00, 2.0000e+00])"},
		{"sci large", tensor.FromSlice([]float64{1000000000.0, 1, 2}).Reshape(3).To(tensor.Float32),
			"tensor([1.0000e+09, 1.0000e+00, 2.0000e+00])"},
		{"sci ratio", tensor.FromSlice([]float64{12345.678, 0.5, 2}).Reshape(3).To(tensor.Float32),
			"tensor([1.2346e+04, 5.0000e-01, 2.0000e+00])"},
		{"sci mixed sign", tensor.FromSlice([]float64{-1e-05, 0.002, -3.5, 1000.0}).Reshape(4).To(tensor.Float32),
			"tensor([-1.0000e-05,  2.0000e-03, -3.5000e+00,  1.0000e+03])"},
		{"int-valued above 1e8", tensor.FromSlice([]float64{100000000.0, 1}).Reshape(2).To(tensor.Float32),
			"tensor([1.0000e+08, 1.0000e+00])"},
		{"nonfinite", tensor.FromSlice([]float64{tidxNaN, tidxInf, -tidxInf, 1.5}).Reshape(4).To(tensor.Float32),
			"tensor([   nan,    inf,   -inf, 1.5000])"},
		{"nonfinite int mode", tensor.FromSlice([]float64{tidxNaN, tidxInf, -tidxInf, 1}).Reshape(4).To(tensor.Float32),
			"tensor([nan, inf, -inf, 1.])"},
		{"all zero", tensor.FromSlice([]float64{0, 0, 0}).Reshape(3).To(tensor.Float32),
			"tensor([0., 0., 0.])"},
		{"negative zero", tensor.FromSlice([]float64{math.Copysign(0, -1), 1.0, 2.0}).Reshape(3).To(tensor.Float32),
			"tensor([-0., 1., 2.])"},
		{"float32 rounding", tensor.FromSlice([]float64{0.1, 0.2, 0.3}).Reshape(3).To(tensor.Float32),
			"tensor([0.1000, 0.2000, 0.3000])"},
		{"min 1e-4 not sci", tensor.FromSlice([]float64{0.0001, 0.001, 0.5}).Reshape(3).To(tensor.Float32),
			"tensor([1.0000e-04, 1.0000e-03, 5.0000e-01])"},
		{"3-d", tensor.FromSlice([]float64{-10.25, -9.25, -8.25, -7.25, -6.25, -5.25, -4.25, -3.25, -2.25, -1.25, -0.25, 0.75, 1.75, 2.75, 3.75, 4.75, 5.75, 6.75, 7.75, 8.75, 9.75, 10.75, 11.75, 12.75}).Reshape(2, 3, 4).To(tensor.Float32),
			"tensor([[[-10.2500,  -9.2500,  -8.2500,  -7.2500],\n         [ -6.2500,  -5.2500,  -4.2500,  -3.2500],\n         [ -2.2500,  -1.2500,  -0.2500,   0.7500]],\n\n        [[  1.7500,   2.7500,   3.7500,   4.7500],\n         [  5.7500,   6.7500,   7.7500,   8.7500],\n         [  9.7500,  10.7500,  11.7500,  12.7500]]])"},
		{"keepdims", tensor.FromSlice([]float64{7}).Reshape(1, 1, 1).To(tensor.Float32),
			"tensor([[[7.]]])"},
		{"bool matrix", tensor.FromSlice([]bool{true, false, false, true}).Reshape(2, 2),
			"tensor([[ True, False],\n        [False,  True]])"},
		{"float64 huge ratio", tensor.FromSlice([]float64{1e+100, -1e-100, 3, 4}).Reshape(2, 2).To(tensor.Float64),
			"tensor([[ 1.0000e+100, -1.0000e-100],\n        [  3.0000e+00,   4.0000e+00]], dtype=float64)"},
		{"empty 2-d", tensor.FromSlice([]float64{}).Reshape(2, 0).To(tensor.Float32),
			"tensor([], size=(2, 0))"},
		{"empty int64", tensor.FromSlice([]float64{}).Reshape(0).To(tensor.Int64),
			"tensor([], dtype=int64)"},
		{"empty float64", tensor.FromSlice([]float64{}).Reshape(0).To(tensor.Float64),
			"tensor([], dtype=float64)"},
		{"empty float32", tensor.FromSlice([]float64{}).Reshape(0).To(tensor.Float32),
			"tensor([])"},
		{"summarised vector", tensor.Arange(tensor.Float32, 0, 2000, 1),
			"tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])"},
		{"summarised matrix", tensor.Arange(tensor.Float32, 0, 800, 0.5).Reshape(40, 40),
			"tensor([[0.0000e+00, 5.0000e-01, 1.0000e+00,  ..., 1.8500e+01, 1.9000e+01,\n         1.9500e+01],\n        [2.0000e+01, 2.0500e+01, 2.1000e+01,  ..., 3.8500e+01, 3.9000e+01,\n         3.9500e+01],\n        [4.0000e+01, 4.0500e+01, 4.1000e+01,  ..., 5.8500e+01, 5.9000e+01,\n         5.9500e+01],\n        ...,\n        [7.4000e+02, 7.4050e+02, 7.4100e+02,  ..., 7.5850e+02, 7.5900e+02,\n         7.5950e+02],\n        [7.6000e+02, 7.6050e+02, 7.6100e+02,  ..., 7.7850e+02, 7.7900e+02,\n         7.7950e+02],\n        [7.8000e+02, 7.8050e+02, 7.8100e+02,  ..., 7.9850e+02, 7.9900e+02,\n         7.9950e+02]])"},
		{"summarised ints wrap", tensor.Arange(tensor.Int64, 0, 3600, 1).Mul(1000003).Reshape(3, 1200),
			"tensor([[         0,    1000003,    2000006,  ..., 1197003591, 1198003594,\n         1199003597],\n        [1200003600, 1201003603, 1202003606,  ..., 2397007191, 2398007194,\n         2399007197],\n        [2400007200, 2401007203, 2402007206,  ..., 3597010791, 3598010794,\n         3599010797]])"},
		{"summarised 4-d", tensor.Arange(tensor.Int64, 0, 1024, 1).Reshape(8, 8, 8, 2),
			"tensor([[[[   0,    1],\n          [   2,    3],\n          [   4,    5],\n          ...,\n          [  10,   11],\n          [  12,   13],\n          [  14,   15]],\n\n         [[  16,   17],\n          [  18,   19],\n          [  20,   21],\n          ...,\n          [  26,   27],\n          [  28,   29],\n          [  30,   31]],\n\n         [[  32,   33],\n          [  34,   35],\n          [  36,   37],\n          ...,\n          [  42,   43],\n          [  44,   45],\n          [  46,   47]],\n\n         ...,\n\n         [[  80,   81],\n          [  82,   83],\n          [  84,   85],\n          ...,\n          [  90,   91],\n          [  92,   93],\n          [  94,   95]],\n\n         [[  96,   97],\n          [  98,   99],\n          [ 100,  101],\n          ...,\n          [ 106,  107],\n          [ 108,  109],\n          [ 110,  111]],\n\n         [[ 112,  113],\n          [ 114,  115],\n          [ 116,  117],\n          ...,\n          [ 122,  123],\n          [ 124,  125],\n          [ 126,  127]]],\n\n\n        [[[ 128,  129],\n          [ 130,  131],\n          [ 132,  133],\n          ...,\n          [ 138,  139],\n          [ 140,  141],\n          [ 142,  143]],\n\n         [[ 144,  145],\n          [ 146,  147],\n          [ 148,  149],\n          ...,\n          [ 154,  155],\n          [ 156,  157],\n          [ 158,  159]],\n\n         [[ 160,  161],\n          [ 162,  163],\n          [ 164,  165],\n          ...,\n          [ 170,  171],\n          [ 172,  173],\n          [ 174,  175]],\n\n         ...,\n\n         [[ 208,  209],\n          [ 210,  211],\n          [ 212,  213],\n          ...,\n          [ 218,  219],\n          [ 220,  221],\n          [ 222,  223]],\n\n         [[ 224,  225],\n          [ 226,  227],\n          [ 228,  229],\n          ...,\n          [ 234,  235],\n          [ 236,  237],\n          [ 238,  239]],\n\n         [[ 240,  241],\n          [ 242,  243],\n          [ 244,  245],\n          ...,\n          [ 250,  251],\n          [ 252,  253],\n          [ 254,  255]]],\n\n\n        [[[ 256,  257],\n          [ 258,  259],\n          [ 260,  261],\n          ...,\n          [ 266,  267],\n          [ 268,  269],\n          [ 270,  271]],\n\n         [[ 272,  273],\n          [ 274,  275],\n          [ 276,  277],\n          ...,\n          [ 282,  283],\n          [ 284,  285],\n          [ 286,  287]],\n\n         [[ 288,  289],\n          [ 290,  291],\n          [ 292,  293],\n          ...,\n          [ 298,  299],\n          [ 300,  301],\n          [ 302,  303]],\n\n         ...,\n\n         [[ 336,  337],\n          [ 338,  339],\n          [ 340,  341],\n          ...,\n          [ 346,  347],\n          [ 348,  349],\n          [ 350,  351]],\n\n         [[ 352,  353],\n          [ 354,  355],\n          [ 356,  357],\n          ...,\n          [ 362,  363],\n          [ 364,  365],\n          [ 366,  367]],\n\n         [[ 368,  369],\n          [ 370,  371],\n          [ 372,  373],\n          ...,\n          [ 378,  379],\n          [ 380,  381],\n          [ 382,  383]]],\n\n\n        ...,\n\n\n        [[[ 640,  641],\n          [ 642,  643],\n          [ 644,  645],\n          ...,\n          [ 650,  651],\n          [ 652,  653],\n          [ 654,  655]],\n\n         [[ 656,  657],\n          [ 658,  659],\n          [ 660,  661],\n          ...,\n          [ 666,  667],\n          [ 668,  669],\n          [ 670,  671]],\n\n         [[ 672,  673],\n          [ 674,  675],\n          [ 676,  677],\n          ...,\n          [ 682,  683],\n          [ 684,  685],\n          [ 686,  687]],\n\n         ...,\n\n         [[ 720,  721],\n          [ 722,  723],\n          [ 724,  725],\n          ...,\n          [ 730,  731],\n          [ 732,  733],\n          [ 734,  735]],\n\n         [[ 736,  737],\n          [ 738,  739],\n          [ 740,  741],\n          ...,\n          [ 746,  747],\n          [ 748,  749],\n          [ 750,  751]],\n\n         [[ 752,  753],\n          [ 754,  755],\n          [ 756,  757],\n          ...,\n          [ 762,  763],\n          [ 764,  765],\n          [ 766,  767]]],\n\n\n        [[[ 768,  769],\n          [ 770,  771],\n          [ 772,  773],\n          ...,\n          [ 778,  779],\n          [ 780,  781],\n          [ 782,  783]],\n\n         [[ 784,  785],\n          [ 786,  787],\n          [ 788,  789],\n          ...,\n          [ 794,  795],\n          [ 796,  797],\n          [ 798,  799]],\n\n         [[ 800,  801],\n          [ 802,  803],\n          [ 804,  805],\n          ...,\n          [ 810,  811],\n          [ 812,  813],\n          [ 814,  815]],\n\n         ...,\n\n         [[ 848,  849],\n          [ 850,  851],\n          [ 852,  853],\n          ...,\n          [ 858,  859],\n          [ 860,  861],\n          [ 862,  863]],\n\n         [[ 864,  865],\n          [ 866,  867],\n          [ 868,  869],\n          ...,\n          [ 874,  875],\n          [ 876,  877],\n          [ 878,  879]],\n\n         [[ 880,  881],\n          [ 882,  883],\n          [ 884,  885],\n          ...,\n          [ 890,  891],\n          [ 892,  893],\n          [ 894,  895]]],\n\n\n        [[[ 896,  897],\n          [ 898,  899],\n          [ 900,  901],\n          ...,\n          [ 906,  907],\n          [ 908,  909],\n          [ 910,  911]],\n\n         [[ 912,  913],\n          [ 914,  915],\n          [ 916,  917],\n          ...,\n          [ 922,  923],\n          [ 924,  925],\n          [ 926,  927]],\n\n         [[ 928,  929],\n          [ 930,  931],\n          [ 932,  933],\n          ...,\n          [ 938,  939],\n          [ 940,  941],\n          [ 942,  943]],\n\n         ...,\n\n         [[ 976,  977],\n          [ 978,  979],\n          [ 980,  981],\n          ...,\n          [ 986,  987],\n          [ 988,  989],\n          [ 990,  991]],\n\n         [[ 992,  993],\n          [ 994,  995],\n          [ 996,  997],\n          ...,\n          [1002, 1003],\n          [1004, 1005],\n          [1006, 1007]],\n\n         [[1008, 1009],\n          [1010, 1011],\n          [1012, 1013],\n          ...,\n          [1018, 1019],\n          [1020, 1021],\n          [1022, 1023]]]])"},
		{"wrapped rows", tensor.Arange(tensor.Float64, -5, 5.5, 0.5).Reshape(3, 7).Mul(1.25).Reshape(1, 21),
			"tensor([[-6.2500, -5.6250, -5.0000, -4.3750, -3.7500, -3.1250, -2.5000, -1.8750,\n         -1.2500, -0.6250,  0.0000,  0.6250,  1.2500,  1.8750,  2.5000,  3.1250,\n          3.7500,  4.3750,  5.0000,  5.6250,  6.2500]], dtype=float64)"},
		{"wrapped sci", tensor.Arange(tensor.Float64, 0, 15, 1).Mul(1e5).Add(0.5),
			"tensor([5.0000e-01, 1.0000e+05, 2.0000e+05, 3.0000e+05, 4.0000e+05, 5.0000e+05,\n        6.0000e+05, 7.0000e+05, 8.0000e+05, 9.0000e+05, 1.0000e+06, 1.1000e+06,\n        1.2000e+06, 1.3000e+06, 1.4000e+06], dtype=float64)"},
		{"transposed view", tensor.Arange(tensor.Float32, 0, 6, 1).Reshape(2, 3).T(),
			"tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]])"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.x.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestStringWith(t *testing.T) {
	cases := []struct {
		name   string
		x      *tensor.Tensor
		extras []string
		want   string
	}{
		{"grad_fn", tensor.FromSlice([]float64{2, 4}), []string{"grad_fn=<MulBackward0>"},
			"tensor([2., 4.], dtype=float64, grad_fn=<MulBackward0>)"},
		{"requires_grad", tensor.FromSlice([]float32{1.5}), []string{"requires_grad=True"},
			"tensor([1.5000], requires_grad=True)"},
		{"wraps to a new line", tensor.Arange(tensor.Float64, 0, 21, 3), []string{"grad_fn=<MulBackward0>"},
			"tensor([ 0.,  3.,  6.,  9., 12., 15., 18.], dtype=float64,\n       grad_fn=<MulBackward0>)"},
		{"no extras", tensor.Scalar(int64(3)), nil, "tensor(3)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.x.StringWith(tc.extras...); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSetPrintOptions(t *testing.T) {
	x := tensor.FromSlice([]float32{1.23456, 2, 3, 4, 5, 6, 7, 8})
	cases := []struct {
		name string
		o    tensor.PrintOptions
		want string
	}{
		{"precision 2", tensor.PrintOptions{Precision: 2, Threshold: 1000, EdgeItems: 3, LineWidth: 80},
			"tensor([1.23, 2.00, 3.00, 4.00, 5.00, 6.00, 7.00, 8.00])"},
		{"threshold and edge items", tensor.PrintOptions{Precision: 4, Threshold: 4, EdgeItems: 2, LineWidth: 80},
			"tensor([1.2346, 2.0000,  ..., 7.0000, 8.0000])"},
		{"line width", tensor.PrintOptions{Precision: 1, Threshold: 1000, EdgeItems: 3, LineWidth: 30},
			"tensor([1.2, 2.0, 3.0, 4.0,\n        5.0, 6.0, 7.0, 8.0])"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prev := tensor.SetPrintOptions(tc.o)
			defer tensor.SetPrintOptions(prev)
			if got := x.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	t.Run("negative", func(t *testing.T) {
		err := recoverError(func() { tensor.SetPrintOptions(tensor.PrintOptions{Precision: -1}) })
		if err == nil {
			t.Fatal("no error")
		}
	})
	if got := tensor.SetPrintOptions(tensor.DefaultPrintOptions()); got != tensor.DefaultPrintOptions() {
		t.Errorf("options not restored: %+v", got)
	}
}
