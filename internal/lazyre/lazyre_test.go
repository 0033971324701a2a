package lazyre

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	re := New(`^a+b$`)
	if re() != re() {
		t.Error("two calls returned different regexps")
	}
	for _, c := range []struct {
		in   string
		want bool
	}{{"ab", true}, {"aaab", true}, {"b", false}, {"abc", false}} {
		if got := re().MatchString(c.in); got != c.want {
			t.Errorf("MatchString(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestNewPanicsOnFirstUse(t *testing.T) {
	re := New(`a(`) // must not panic here
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic on first use")
		}
	}()
	re()
}

// TestModulePatterns compiles every pattern that the module passes to New as
// a string literal, since a bad one would otherwise panic only when a code
// path first uses it.
func TestModulePatterns(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "New" {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "lazyre" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: lazyre.New with a pattern that is not a string literal", fset.Position(call.Pos()))
				return true
			}
			expr, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
				return true
			}
			if _, err := regexp.Compile(expr); err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
			}
			n++
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 40 {
		t.Errorf("found %d patterns passed to lazyre.New, want at least 40 (the module's patterns when this test was written)", n)
	}
}
