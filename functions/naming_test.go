package functions_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// namingWholeWords are the words a file name keeps whole, where splitting at
// the capitals would cut a name PyTorch writes as one word (relu, silu,
// logsumexp). Acronyms in capitals (GELU, STE) are whole words anyway.
var namingWholeWords = []string{"LogSumExp", "ReLU", "SiLU"}

// fileStem is the snake_case file name (without .go) of the Function named
// name (its type name without "Function"): a word is one of namingWholeWords,
// a capital followed by lower-case letters, or a run of capitals (ending
// before a capital that starts such a word); digits belong to the capitals
// they touch.
func fileStem(name string) string {
	var words []string
	for i := 0; i < len(name); {
		j := wordEnd(name, i)
		words = append(words, strings.ToLower(name[i:j]))
		i = j
	}
	return strings.Join(words, "_")
}

// wordEnd returns where the word starting at s[i] ends.
func wordEnd(s string, i int) int {
	for _, w := range namingWholeWords {
		if strings.HasPrefix(s[i:], w) {
			return i + len(w)
		}
	}
	isUpper := func(k int) bool { return k < len(s) && unicode.IsUpper(rune(s[k])) }
	isLower := func(k int) bool { return k < len(s) && unicode.IsLower(rune(s[k])) }
	isDigit := func(k int) bool { return k < len(s) && unicode.IsDigit(rune(s[k])) }
	j := i
	for isDigit(j) {
		j++
	}
	if isUpper(j) && isLower(j+1) {
		for j++; isLower(j); j++ {
		}
		return j
	}
	for isUpper(j) && !isLower(j+1) {
		j++
	}
	for isDigit(j) {
		j++
	}
	if j == i { // a lower-case or other start: up to the next capital
		for j++; j < len(s) && !isUpper(j) && !isDigit(j); j++ {
		}
	}
	return j
}

func TestFileStem(t *testing.T) {
	for name, want := range map[string]string{
		"Square":                    "square",
		"SignClippedSTE":            "sign_clipped_ste",
		"ClippedReLU":               "clipped_relu",
		"ReLUViaClamp":              "relu_via_clamp",
		"DoubleBackwardSquare":      "double_backward_square",
		"GELU":                      "gelu",
		"SiLU":                      "silu",
		"SmoothL1":                  "smooth_l1",
		"StableLogSumExp1D":         "stable_logsumexp_1d",
		"ScaledDotProductAttention": "scaled_dot_product_attention",
		"TwoInTwoOut":               "two_in_two_out",
	} {
		if got := fileStem(name); got != want {
			t.Errorf("fileStem(%q) = %q, want %q", name, got, want)
		}
	}
}

// namingOwnName lists the Functions allowed to implement agx.Named, each
// with the reason its node cannot carry the default name. None needs one.
var namingOwnName = map[string]string{}

// TestFunctionNamingRule enforces the package's naming rule (doc.go) on
// every exported type that implements agx.Function, in functions and in
// functions/solutions: the type is
// <Name>Function, its backward node is agx's default <Name>Backward (it does
// not implement agx.Named), and it is declared in fileStem(<Name>).go with
// its tests in fileStem(<Name>)_test.go.
func TestFunctionNamingRule(t *testing.T) {
	for _, pkg := range []struct{ dir, path string }{
		{".", "github.com/goagx/agx/functions"},
		{"solutions", "github.com/goagx/agx/functions/solutions"},
	} {
		t.Run(pkg.path, func(t *testing.T) { checkNamingRule(t, pkg.dir, pkg.path) })
	}
}

// checkNamingRule checks the naming rule on the package in dir.
func checkNamingRule(t *testing.T, dir, path string) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(path, fset, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	agxPkg := pkgImport(pkg, "github.com/goagx/agx/agx")
	if agxPkg == nil {
		t.Fatalf("%s does not import agx", path)
	}
	function := agxPkg.Scope().Lookup("Function").Type().Underlying().(*types.Interface)
	named := agxPkg.Scope().Lookup("Named").Type().Underlying().(*types.Interface)
	implements := func(typ types.Type, iface *types.Interface) bool {
		return types.Implements(typ, iface) || types.Implements(types.NewPointer(typ), iface)
	}

	count := 0
	for _, id := range pkg.Scope().Names() {
		obj, ok := pkg.Scope().Lookup(id).(*types.TypeName)
		if !ok || !obj.Exported() || !implements(obj.Type(), function) {
			continue
		}
		count++
		name, ok := strings.CutSuffix(id, "Function")
		if !ok || name == "" {
			t.Errorf("%s implements agx.Function: name it <Name>Function", id)
			continue
		}
		if _, ok := namingOwnName[id]; implements(obj.Type(), named) && !ok {
			t.Errorf("%s implements agx.Named: drop its Name method, its node is %sBackward by default", id, name)
		}
		file := filepath.Base(fset.Position(obj.Pos()).Filename)
		if want := fileStem(name) + ".go"; file != want {
			t.Errorf("%s is declared in %s, want %s", id, file, want)
		}
		test := fileStem(name) + "_test.go"
		if _, err := os.Stat(filepath.Join(dir, test)); err != nil {
			t.Errorf("%s has no test file %s", id, test)
		}
	}
	if count == 0 {
		t.Fatal("no Function type found")
	}
	for id := range namingOwnName {
		if obj, _ := pkg.Scope().Lookup(id).(*types.TypeName); obj == nil || !implements(obj.Type(), named) {
			t.Errorf("namingOwnName lists %s, which does not implement agx.Named", id)
		}
	}
}

func pkgImport(pkg *types.Package, path string) *types.Package {
	i := slices.IndexFunc(pkg.Imports(), func(p *types.Package) bool { return p.Path() == path })
	if i < 0 {
		return nil
	}
	return pkg.Imports()[i]
}
