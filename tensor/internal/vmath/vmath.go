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
