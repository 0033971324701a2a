//go:build !amd64

package gemm

var (
	kernelsF32 = []*kernel[float32]{genericF32}
	kernelsF64 = []*kernel[float64]{genericF64}
)

func available() []bool { return []bool{true} }

// asmPack is packGo: there is no packing assembly on this architecture.
var asmPack = packGo

func packings() []packing { return []packing{packGo} }

func packStridedAsm[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) bool {
	return false
}

func packContigAsm[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) bool {
	return false
}
