package tensor

import "testing"

func TestGeneratorStateRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		draw func(g *Generator) []float64
	}{
		{"rand", func(g *Generator) []float64 { return g.Rand(Float64, 5).Float64s() }},
		// An odd number of normals leaves a spare value in the state.
		{"randn_odd", func(g *Generator) []float64 { return g.Randn(Float64, 3).Float64s() }},
		{"randint", func(g *Generator) []float64 { return g.Randint(0, 100, 4).Float64s() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGenerator(3)
			g.Randn(Float64, 1) // leave a spare normal behind
			st := g.State()
			a := tc.draw(g)
			a = append(a, g.Randn(Float64, 2).Float64s()...)
			other := NewGenerator(99)
			other.SetState(st)
			g.SetState(st)
			for _, h := range []*Generator{g, other} {
				b := tc.draw(h)
				b = append(b, h.Randn(Float64, 2).Float64s()...)
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("draw %d after SetState: %v, want %v", i, b[i], a[i])
					}
				}
			}
		})
	}
}
