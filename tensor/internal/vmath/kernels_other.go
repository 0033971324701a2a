//go:build !amd64

package vmath

func detect() int { return levelGo }

func expSIMD(dst, src []float32) int     { return 0 }
func sigmoidSIMD(dst, src []float32) int { return 0 }
func tanhSIMD(dst, src []float32) int    { return 0 }
func erfSIMD(dst, src []float32) int     { return 0 }
func geluSIMD(dst, src []float32) int    { return 0 }
func log32SIMD(dst, src []float32) int   { return 0 }

func trigSIMD(dst, src []float64, q0 uint64) (int, bool) { return 0, false }

func tanh64SIMD(dst, src []float64) int { return 0 }

func erf64SIMD(dst, src []float64) int { return 0 }

func exp64SIMD(dst, src []float64) int { return 0 }

func mathExpSIMD(dst, src []float64) int { return 0 }

func log64SIMD(dst, src []float64) int { return 0 }

func trig32SIMD(dst, src []float32, q0 uint32) (int, bool) { return 0, false }
