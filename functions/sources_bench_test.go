package functions_test

import (
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
)

// BenchmarkSources times forward plus backward of every source Function on
// its test inputs (float32), with fixed upstream gradients.
func BenchmarkSources(b *testing.B) {
	for _, f := range srcFunctions {
		b.Run(f.name+"/f32", func(b *testing.B) {
			inputs := f.inputs(agx.Float32)
			b.ReportAllocs()
			for b.Loop() {
				fntest.Gradients(f.fn, inputs, 3)
			}
		})
	}
}
