package vmath

// Exp sets dst[i] = e^src[i] for i < len(src); dst must be at least as long
// as src.
func Exp(dst, src []float32) {
	dst = dst[:len(src)]
	n := expSIMD(dst, src)
	expGo(dst[n:], src[n:])
}

// Sigmoid sets dst[i] = 1/(1+e^-src[i]) for i < len(src); dst must be at
// least as long as src.
func Sigmoid(dst, src []float32) {
	dst = dst[:len(src)]
	n := sigmoidSIMD(dst, src)
	sigmoidGo(dst[n:], src[n:])
}

// Tanh sets dst[i] = tanh(src[i]) for i < len(src); dst must be at least as
// long as src.
func Tanh(dst, src []float32) {
	dst = dst[:len(src)]
	n := tanhSIMD(dst, src)
	tanhGo(dst[n:], src[n:])
}

// Erf sets dst[i] = erf(src[i]) for i < len(src); dst must be at least as
// long as src.
func Erf(dst, src []float32) {
	dst = dst[:len(src)]
	n := erfSIMD(dst, src)
	erfGo(dst[n:], src[n:])
}

// GELU sets dst[i] = x·((erf(x·c) + 1)·0.5) for x = src[i], i < len(src),
// with c = 1/√2 rounded to float32 and every operation rounded to float32:
// the bits of tensor's GELU composed of its ops (a product, Erf, a sum and
// two products), in one pass. dst must be at least as long as src.
func GELU(dst, src []float32) {
	dst = dst[:len(src)]
	n := geluSIMD(dst, src)
	geluGo(dst[n:], src[n:])
}
