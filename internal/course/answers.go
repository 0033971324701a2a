package course

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strings"

	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// This file finds graded answers that a lesson gives away. An exercise's
// answer is the code between the nbgrader markers `// BEGIN SOLUTION` and
// `// END SOLUTION` of its answer cells. A lesson gives it away when one of
// its code cells contains a distinctive expression of that code, compared
// after normalisation: comments and layout do not count, local names are all
// alike (`gy.Mul(y)` and `g[0].Mul(s)` are the same expression), and only
// method and package names, literals and operators are kept. An expression is
// distinctive when it makes at least MinCalls method calls that compute
// something (bookkeeping such as SaveForBackward or Outputs does not count)
// and no smaller expression inside it does: `g[0].Mul(y).Mul(y.RSub(1))` is,
// `x.MatMul(w.T())` (two calls) is not.

// MinCalls is the number of computing calls that makes an expression of an
// answer distinctive.
const MinCalls = 3

// bookkeeping lists the method names that do not compute anything of the
// answer's mathematics; calls to them do not count towards MinCalls.
var bookkeeping = map[string]bool{
	"SaveForBackward": true, "SavedTensors": true, "Outputs": true, "Apply": true,
	"Set": true, "Get": true, "NeedsInputGrad": true, "MarkDirty": true,
	"MarkNonDifferentiable": true, "Size": true, "Dim": true, "Shape": true,
	"DType": true, "SetRequiresGrad": true, "Detach": true, "Float64s": true,
	"Item": true, "Println": true, "Printf": true, "Sprintf": true,
}

// packages are the package names kept as they are by the normalisation;
// every other name not after a dot becomes "_".
var packages = map[string]bool{
	"agx": true, "math": true, "functions": true, "tensor": true, "nn": true,
	"grade": true, "cudafn": true, "slices": true, "strings": true,
}

// tok is one normalised token and the source offsets it came from.
type tok struct {
	text       string
	start, end int
}

// codeTokens scans Go source (a cell or a fragment of one) into normalised
// tokens. Lines of GoNB special commands (`%%`, `%goflags`, `!cmd`) are
// blanked first; comments are dropped; a local name followed by an index
// with a literal (`g[0]`, `s[1]`) becomes a single "_".
func codeTokens(src string) []tok {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "%") || strings.HasPrefix(t, "!") {
			lines[i] = strings.Repeat(" ", len(l))
		}
	}
	b := []byte(strings.Join(lines, "\n"))
	fset := token.NewFileSet()
	file := fset.AddFile("cell.go", -1, len(b))
	var s scanner.Scanner
	s.Init(file, b, func(token.Position, string) {}, 0)
	var raw []tok
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		off := file.Offset(pos)
		text := t.String()
		switch {
		case t == token.SEMICOLON:
			text = ";"
		case t == token.IDENT:
			text = lit
			if !(len(raw) > 0 && raw[len(raw)-1].text == ".") && !packages[lit] {
				text = "_"
			}
		case t.IsLiteral():
			text = lit
		}
		end := off + len(lit)
		if lit == "" || t == token.SEMICOLON {
			end = off + len(t.String())
		}
		raw = append(raw, tok{text, off, end})
	}
	// Collapse `_ [ LITERAL ]` into `_`.
	var out []tok
	for i := 0; i < len(raw); i++ {
		if raw[i].text == "_" && i+3 < len(raw) && raw[i+1].text == "[" && raw[i+3].text == "]" && isLiteralText(raw[i+2].text) {
			out = append(out, tok{"_", raw[i].start, raw[i+3].end})
			i += 3
			continue
		}
		out = append(out, raw[i])
	}
	return out
}

func isLiteralText(s string) bool {
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '-')
}

// NormalizeCode returns the normalised tokens of Go source, separated by
// single spaces and framed by spaces, for substring search.
func NormalizeCode(src string) string {
	var b strings.Builder
	b.WriteByte(' ')
	for _, t := range codeTokens(src) {
		b.WriteString(t.text)
		b.WriteByte(' ')
	}
	return b.String()
}

// DistinctiveExprs returns the normalised distinctive expressions (see
// MinCalls) of a fragment of Go statements, such as a solution region.
func DistinctiveExprs(fragment string) ([]string, error) {
	const prefix = "package p\nfunc _() {\n"
	src := prefix + fragment + "\n}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "answer.go", src, 0)
	if err != nil {
		// Top-level declarations (a helper function, `var quiz1 = ...`).
		src = "package p\n" + fragment + "\n"
		f, err = parser.ParseFile(fset, "answer.go", src, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot parse the solution region: %w", err)
		}
	}
	toks := codeTokens(src)
	calls := map[ast.Expr]int{}
	var count func(e ast.Node) int
	count = func(n ast.Node) int {
		total := 0
		ast.Inspect(n, func(m ast.Node) bool {
			if c, ok := m.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && !bookkeeping[sel.Sel.Name] {
					total++
				}
			}
			return true
		})
		return total
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok {
			calls[e] = count(e)
		}
		return true
	})
	var exprs []string
	seen := map[string]bool{}
	for e, n := range calls {
		if n < MinCalls {
			continue
		}
		minimal := true
		ast.Inspect(e, func(m ast.Node) bool {
			if sub, ok := m.(ast.Expr); ok && sub != e && calls[sub] >= MinCalls {
				minimal = false
			}
			return minimal
		})
		if !minimal {
			continue
		}
		start, end := fset.Position(e.Pos()).Offset, fset.Position(e.End()).Offset
		var parts []string
		for _, t := range toks {
			if t.start >= start && t.end <= end {
				parts = append(parts, t.text)
			}
		}
		s := " " + strings.Join(parts, " ") + " "
		if !seen[s] {
			seen[s] = true
			exprs = append(exprs, s)
		}
	}
	slices.Sort(exprs)
	return exprs, nil
}

// SolutionRegions returns the code between the solution markers of every
// answer cell of an exercise notebook, one string per region.
func SolutionRegions(nb *notebook.Notebook) []string {
	var regions []string
	for _, c := range nb.Cells {
		if c.CellType != notebook.Code {
			continue
		}
		var cur []string
		in := false
		for _, l := range strings.Split(c.Source, "\n") {
			t := strings.TrimSpace(l)
			switch {
			case strings.HasPrefix(t, "//") && strings.Contains(t, nbgrader.BeginSolution):
				in, cur = true, nil
			case strings.HasPrefix(t, "//") && strings.Contains(t, nbgrader.EndSolution):
				if in {
					regions = append(regions, strings.Join(cur, "\n"))
				}
				in = false
			case in:
				cur = append(cur, l)
			}
		}
	}
	return regions
}

// latex maps the LaTeX spellings used in the notebooks' markdown to the
// characters of the plain-text formulas, so both compare alike.
var latex = strings.NewReplacer(
	`\sigma`, "σ", `\Phi`, "Φ", `\phi`, "φ", `\tau`, "τ", `\odot`, "⊙", `\mu`, "μ",
	`\varepsilon`, "ε", `\epsilon`, "ε", `\sum`, "Σ", `\pi`, "π", `\sqrt`, "√",
	`\top`, "ᵀ", `\hat`, "", `\mathrm`, "", `\operatorname`, "", `\text`, "",
	`\left`, "", `\right`, "", `\cdot`, "", `\times`, "", `\,`, "", `\;`, "", `\!`, "",
	`\ `, "", "−", "-", "·", "", "⋅", "", "*", "", "$", "", "{", "", "}", "", "`", "",
	"^T", "ᵀ", "^", "",
)

// NormalizeFormula makes formulas written in markdown, LaTeX or code
// comments comparable: LaTeX commands become their characters, and spaces,
// multiplication dots, braces and dollar signs are dropped.
func NormalizeFormula(s string) string {
	s = latex.Replace(s)
	return strings.Join(strings.Fields(s), "")
}

// ContainsWholeExpr reports whether the normalised code holds the normalised
// expression expr as a whole expression: after an assignment, an opening
// parenthesis, a comma or `return`, and before the end of the statement, a
// comma or a closing parenthesis. `g.T().MatMul(x)` is whole in
// `gw := g.T().MatMul(x)` and not in `gw := g.T().MatMul(x).Mul(m)`.
func ContainsWholeExpr(code, expr string) bool {
	body := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(expr), ";"))
	if body == "" {
		return false
	}
	for rest := code; ; {
		i := strings.Index(rest, " "+body+" ")
		if i < 0 {
			return false
		}
		before := strings.Fields(rest[:i+1])
		after := strings.Fields(rest[i+len(body)+1:])
		okBefore := len(before) == 0 || slices.Contains([]string{"=", ":=", "(", ",", "return", ";", "{"}, before[len(before)-1])
		okAfter := len(after) == 0 || slices.Contains([]string{";", ",", ")", "}"}, after[0])
		if okBefore && okAfter {
			return true
		}
		rest = rest[i+1:]
	}
}
