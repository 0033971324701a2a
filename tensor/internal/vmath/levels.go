package vmath

// Instruction sets of the kernels, best last.
const (
	levelGo = iota
	levelAVX2
	levelAVX512
)

var levelNames = [...]string{levelGo: "go", levelAVX2: "avx2", levelAVX512: "avx512"}

// level is the best instruction set this CPU runs (detect is per
// architecture); tests lower it to exercise the others.
var level = detect()
