package tensor

import (
	"math"
	"math/bits"
	"sync"
)

// Generator is a seeded pseudo-random number generator: xoshiro256** (Blackman and
// Vigna) with its state expanded from the seed by SplitMix64. A given seed yields
// the same stream on every platform: uniform, integer and permutation draws are
// bit-identical everywhere; normal draws (Box-Muller through math.Log and
// math.Sincos) are identical from run to run and agree across architectures to
// within the last bit or so of those functions. Float32 results are drawn as
// float64 and rounded, so both float dtypes consume the stream identically. A
// Generator is safe for concurrent use (each call holds its lock).
type Generator struct {
	mu    sync.Mutex
	s     [4]uint64
	spare float64 // second normal of the last Box-Muller pair
	has   bool
}

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed uint64) *Generator {
	g := &Generator{}
	g.seed(seed)
	return g
}

// Seed resets the generator to the start of seed's stream.
func (g *Generator) Seed(seed uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seed(seed)
}

func (g *Generator) seed(seed uint64) {
	x := seed
	for i := range g.s {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		g.s[i] = z ^ (z >> 31)
	}
	g.has = false
}

// next is one xoshiro256** step. The caller holds g.mu.
func (g *Generator) next() uint64 {
	s := &g.s
	r := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return r
}

// float64 is uniform on [0, 1) with 53 random bits. The caller holds g.mu.
func (g *Generator) float64() float64 { return float64(g.next()>>11) * 0x1p-53 }

// normal is a standard normal by the Box-Muller transform, using both values of
// each pair. The caller holds g.mu.
func (g *Generator) normal() float64 {
	if g.has {
		g.has = false
		return g.spare
	}
	u1 := 1 - g.float64() // (0, 1], so the log is finite
	u2 := g.float64()
	r := math.Sqrt(-2 * math.Log(u1))
	s, c := math.Sincos(2 * math.Pi * u2)
	g.spare, g.has = r*s, true
	return r * c
}

// uint64n is uniform on [0, n) without modulo bias (Lemire's method). The caller
// holds g.mu.
func (g *Generator) uint64n(n uint64) uint64 {
	hi, lo := bits.Mul64(g.next(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.next(), n)
		}
	}
	return hi
}

// Uint64 returns 64 uniformly random bits.
func (g *Generator) Uint64() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.next()
}

// Float64 returns a uniform value in [0, 1).
func (g *Generator) Float64() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.float64()
}

// NormFloat64 returns a standard normal value.
func (g *Generator) NormFloat64() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.normal()
}

// fill draws one float64 per element from draw and returns a tensor of dtype dt
// (Float32 or Float64). below, when not NaN, is an exclusive upper bound that
// float32 rounding must not reach.
func (g *Generator) fill(op string, dt DType, shape []int, below float64, draw func() float64) *Tensor {
	if !dt.IsFloat() {
		PanicHint(op, ErrDType, "use Randint for integers", "%s needs a float dtype, got %v", op, dt)
	}
	n := checkAlloc(op, dt, shape)
	g.mu.Lock()
	defer g.mu.Unlock()
	if dt == Float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = draw()
		}
		return FromSlice(out, n).Reshape(shape...)
	}
	out := make([]float32, n)
	clamp := !math.IsNaN(below)
	for i := range out {
		v := float32(draw())
		for clamp && float64(v) >= below {
			v = math.Nextafter32(v, float32(math.Inf(-1)))
		}
		out[i] = v
	}
	return FromSlice(out, n).Reshape(shape...)
}

// Rand returns a tensor of uniform values in [0, 1) (Float32 or Float64).
func (g *Generator) Rand(dt DType, shape ...int) *Tensor {
	return g.fill("Rand", dt, shape, 1, g.float64)
}

// Randn returns a tensor of standard normal values (Float32 or Float64).
func (g *Generator) Randn(dt DType, shape ...int) *Tensor {
	return g.fill("Randn", dt, shape, math.NaN(), g.normal)
}

// Uniform returns a tensor of uniform values in [lo, hi) (Float32 or Float64).
func (g *Generator) Uniform(dt DType, lo, hi float64, shape ...int) *Tensor {
	if !(lo <= hi) {
		Panicf("Uniform", ErrArg, "expects lo <= hi, got lo=%v, hi=%v", lo, hi)
	}
	below := hi
	if lo == hi {
		below = math.NaN()
	}
	// The explicit conversion stops the compiler fusing the multiply-add, which
	// would change the results on some architectures.
	return g.fill("Uniform", dt, shape, below, func() float64 { return lo + float64((hi-lo)*g.float64()) })
}

// Normal returns a tensor of normal values with the given mean and standard
// deviation (Float32 or Float64). std must be non-negative.
func (g *Generator) Normal(dt DType, mean, std float64, shape ...int) *Tensor {
	if !(std >= 0) {
		Panicf("Normal", ErrArg, "expects std >= 0.0, got %v", std)
	}
	return g.fill("Normal", dt, shape, math.NaN(), func() float64 { return mean + float64(std*g.normal()) })
}

// Randint returns an Int64 tensor of uniform integers in [lo, hi).
func (g *Generator) Randint(lo, hi int64, shape ...int) *Tensor {
	if lo >= hi {
		Panicf("Randint", ErrArg, "random_ expects 'from' to be less than 'to', but got from=%d >= to=%d", lo, hi)
	}
	n := checkAlloc("Randint", Int64, shape)
	span := uint64(hi - lo)
	out := make([]int64, n)
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range out {
		out[i] = lo + int64(g.uint64n(span))
	}
	return FromSlice(out, n).Reshape(shape...)
}

// Perm returns a random permutation of 0..n-1 as an Int64 tensor (torch.randperm),
// by a Fisher-Yates shuffle.
func (g *Generator) Perm(n int) *Tensor {
	if n < 0 {
		Panicf("RandPerm", ErrArg, "n must be non-negative, got %d", n)
	}
	checkAlloc("RandPerm", Int64, []int{n})
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := n - 1; i > 0; i-- {
		j := g.uint64n(uint64(i + 1))
		out[i], out[j] = out[j], out[i]
	}
	return FromSlice(out)
}

// defaultSeed is the seed of the default generator until ManualSeed is called
// (PyTorch's default seed).
const defaultSeed = 67280421310721

var defaultGen = NewGenerator(defaultSeed)

// DefaultGenerator returns the generator behind the package-level Rand, Randn,
// Randint and RandPerm.
func DefaultGenerator() *Generator { return defaultGen }

// ManualSeed reseeds the default generator, making later package-level random
// calls reproducible.
func ManualSeed(seed uint64) { defaultGen.Seed(seed) }

// Rand returns uniform values in [0, 1) from the default generator.
func Rand(dt DType, shape ...int) *Tensor { return defaultGen.Rand(dt, shape...) }

// Randn returns standard normal values from the default generator.
func Randn(dt DType, shape ...int) *Tensor { return defaultGen.Randn(dt, shape...) }

// Randint returns Int64 values uniform in [lo, hi) from the default generator.
func Randint(lo, hi int64, shape ...int) *Tensor { return defaultGen.Randint(lo, hi, shape...) }

// RandPerm returns a random permutation of 0..n-1 (Int64) from the default generator.
func RandPerm(n int) *Tensor { return defaultGen.Perm(n) }
