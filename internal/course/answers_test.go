package course

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

// answerKeys are, per graded exercise with a hand-written backward, the key
// formulas of the derivative it asks the student to find, as the exercise
// or a lesson would write them (plain text or LaTeX; NormalizeFormula makes
// the spellings alike). A key starting with "go:" is a Go expression instead:
// a lesson code cell must not compute it as a whole expression (other names
// alike, see NormalizeCode). They live here, not in the exercise notebooks,
// so that the released notebooks do not carry them.
var answerKeys = map[string][]string{
	"sigmoid-linear": {
		// the linear layer's three gradients, as a list
		"∂L/∂x = G·W", "∂L/∂W = Gᵀ·x", "∂L/∂b = the sum of G over the batch",
		// the weight gradient of x·Wᵀ, unmasked
		"go:g.T().MatMul(x)",
		// the same two gradients with a mask on W (lesson 05's A5 once derived them)
		"(Gᵀ·x) ⊙ M", "G·(W ⊙ M)",
	},
	"gelu": {"Φ(x) + x·φ(x)", "Φ(x) + x φ(x)"},
	"silu": {
		"σ(x) + x·σ(x)·(1 − σ(x))", "σ(x)·(1 + x·(1 − σ(x)))", "y + σ(x)·(1 − y)",
	},
	"batchnorm": {
		"N·G − Σ G − x̂ · Σ(G ⊙ x̂)", "x̂·Σ(G ⊙ x̂)", `\hat{x}\sum(G\odot\hat{x})`,
	},
	"soft-rank": {
		"s_ij·(1 − s_ij)/τ", "G_k · Σ_j d_kj − Σ_i G_i · d_ik",
	},
	"logsumexp-jvp": {
		// the tangent of each row's log-sum-exp: the softmax-weighted sum of the row's tangent
		"Σ_j softmax_ij · t_ij", "Σ_j t_ij · softmax_ij", "Σ_j softmax(x)_ij · t_ij",
		"go:t[0].Mul(softmax).Sum(softmax.Dim() - 1)",
	},
	"attention": {
		"P ⊙ (dP − rowsum(dP ⊙ P))", "dK = dSᵀ·Q·scale", "dQ = dS·K·scale",
		// the softmax backward of Hint 2, written with the output y and the upstream g
		"y ⊙ (g − ⟨g, y⟩)", `y \odot (g - \langle g, y\rangle)`,
	},
}

// leak is one place where a lesson gives an exercise's answer away.
type leak struct {
	exercise, lesson string
	cell             int
	what             string
}

func (l leak) String() string {
	return fmt.Sprintf("%s, cell %d, gives away the answer of exercise %s: %s", l.lesson, l.cell, l.exercise, l.what)
}

// findLeaks compares every exercise's answer with every lesson: the
// distinctive expressions of its solution regions against the lessons'
// code cells, and its answer keys against all their cells.
func findLeaks(exercises, lessons map[string]*notebook.Notebook, keys map[string][]string) ([]leak, error) {
	var leaks []leak
	for _, ex := range sortedKeys(exercises) {
		var exprs []string
		for _, r := range SolutionRegions(exercises[ex]) {
			es, err := DistinctiveExprs(r)
			if err != nil {
				return nil, fmt.Errorf("exercise %s: %w", ex, err)
			}
			exprs = append(exprs, es...)
		}
		for _, name := range sortedKeys(lessons) {
			for i, c := range lessons[name].Cells {
				if c.CellType == notebook.Code {
					code := NormalizeCode(c.Source)
					for _, e := range exprs {
						if strings.Contains(code, e) {
							leaks = append(leaks, leak{ex, name, i, "the expression `" + strings.TrimSpace(e) + "` of its solution"})
						}
					}
				}
				text := NormalizeFormula(c.Source)
				for _, k := range keys[ex] {
					if expr, ok := strings.CutPrefix(k, "go:"); ok {
						if c.CellType == notebook.Code && ContainsWholeExpr(NormalizeCode(c.Source), NormalizeCode(expr)) {
							leaks = append(leaks, leak{ex, name, i, "the expression " + expr})
						}
						continue
					}
					if strings.Contains(text, NormalizeFormula(k)) {
						leaks = append(leaks, leak{ex, name, i, "the formula " + k})
					}
				}
			}
		}
	}
	return leaks, nil
}

// No lesson contains a graded exercise's answer: neither a distinctive
// expression of its solution code nor a key formula of its derivative.
// Teach a technique on another function than the graded one.
func TestLessonsDoNotGiveAnswersAway(t *testing.T) {
	exercises := readAll(t, "notebooks/exercises/*.ipynb")
	lessons := readAll(t, "notebooks/*.ipynb")
	leaks, err := findLeaks(exercises, lessons, answerKeys)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Error(l)
	}
	// Every exercise with a hand-written backward has answer keys, and
	// every key names an exercise that exists.
	for name, nb := range exercises {
		for _, c := range nb.Cells {
			if strings.Contains(c.Source, ") Backward(") && strings.Contains(c.Source, "BEGIN SOLUTION") && len(answerKeys[name]) == 0 {
				t.Errorf("exercise %s has a graded Backward but no answerKeys entry: list the key formulas of its derivative", name)
				break
			}
		}
	}
	for name := range answerKeys {
		if exercises[name] == nil {
			t.Errorf("answerKeys names %s, which is no exercise", name)
		}
	}
}

// The detector itself: it finds an answer under other names, other layout
// and LaTeX, and does not flag expressions that are too common to give
// anything away.
func TestFindLeaks(t *testing.T) {
	exercise := &notebook.Notebook{Cells: []*notebook.Cell{{CellType: notebook.Code, Source: `type F struct{}

func (F) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	// BEGIN SOLUTION
	out := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(out).Mul(out.RSub(1)))
	// END SOLUTION
}`}}}
	keys := map[string][]string{"ex": {"σ(x)·(1 − σ(x))", "go:g.T().MatMul(x)"}}
	for _, tc := range []struct {
		name, cell string
		markdown   bool
		want       int
	}{
		{"same code", "return agx.Outputs(g[0].Mul(out).Mul(out.RSub(1)))", false, 1},
		{"other names, comments, layout", "%%\ngx := grad.Mul(out). // the local slope\n\tMul(out.RSub(1))\nfmt.Println(gx)", false, 1},
		{"inside a larger expression", "r := a.Add(b[1].Mul(s).Mul(s.RSub(1)).Sum())", false, 1},
		{"another function", "return agx.Outputs(g[0].Mul(y.Mul(y).RSub(1)))", false, 0},
		{"two calls only", "g[0].Mul(y).Mul(y)", false, 0},
		{"key formula in LaTeX", `$\sigma'(x) = \sigma(x)\,(1-\sigma(x))$`, true, 1},
		{"key formula in a comment", "// slope σ(x) (1 − σ(x))\nfmt.Println(1)", false, 1},
		{"an unrelated formula", `$\tanh'(x) = 1 - \tanh^2(x)$`, true, 0},
		{"code key as a whole expression", "gw := grad[0].T().MatMul(inp) // (out,N)·(N,in)\n", false, 1},
		{"code key as an argument", "return agx.Outputs(a, b.T().MatMul(c))", false, 1},
		{"code key inside a larger expression", "gw = g[0].T().MatMul(x).Mul(mask)", false, 0},
		{"code key in markdown", "gw := g.T().MatMul(x)", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &notebook.Cell{CellType: notebook.Code, Source: tc.cell}
			if tc.markdown {
				c.CellType = notebook.Markdown
			}
			lesson := &notebook.Notebook{Cells: []*notebook.Cell{c}}
			leaks, err := findLeaks(map[string]*notebook.Notebook{"ex": exercise}, map[string]*notebook.Notebook{"lesson": lesson}, keys)
			if err != nil {
				t.Fatal(err)
			}
			if len(leaks) != tc.want {
				t.Errorf("found %d leaks, want %d: %v", len(leaks), tc.want, leaks)
			}
		})
	}
}

func TestDistinctiveExprs(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"three calls", "return agx.Outputs(g[0].Mul(y).Mul(y.RSub(1)))", []string{" _ . Mul ( _ ) . Mul ( _ . RSub ( 1 ) ) "}},
		{"only the smallest", "z := a.Exp().Add(1).Log().Neg().Sqrt()", []string{" _ . Exp ( ) . Add ( 1 ) . Log ( ) "}},
		{"bookkeeping does not count", "ctx.SaveForBackward(x.Detach(), y)\nreturn agx.Outputs(x.MatMul(w.T()))", nil},
		{"top-level declarations", "var quiz1 = \"a\"", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DistinctiveExprs(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("DistinctiveExprs = %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := DistinctiveExprs("x := ((("); err == nil {
		t.Error("a region that does not parse gave no error")
	}
}
