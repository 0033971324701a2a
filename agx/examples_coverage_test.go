package agx_test

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// exampleExempt lists the exported functions and methods of package agx
// that need no Example of their own, each with the reason. Keep it short:
// a name a notebook user calls gets an Example instead.
var exampleExempt = map[string]string{
	// Interface plumbing for fmt and errors: a user prints the value or
	// the error, and the examples that do so show the text.
	"Tensor.String":               stringer,
	"Node.String":                 stringer,
	"Strategy.String":             stringer,
	"GradCheckError.Error":        stringer,
	"FunctionPanicError.Error":    stringer,
	"GradCheckError.AgxError":     agxErrorMarker,
	"FunctionPanicError.AgxError": agxErrorMarker,

	// Func implements Function (and Jvper) by calling its fields; users
	// fill the fields and pass the Func to Apply (ExampleFunc), and the
	// engine calls these methods.
	"Func.Forward":  funcPlumbing,
	"Func.Backward": funcPlumbing,
	"Func.Jvp":      funcPlumbing,
	"Func.Name":     funcPlumbing,

	// Marker methods, implemented by embedding the type in a Function.
	"Once.OnceDifferentiable": "a marker; embedding agx.Once is shown by ExampleOnce",
}

const (
	stringer       = "implements fmt.Stringer or error; the text shows wherever an example prints the value"
	agxErrorMarker = "a marker Try uses to recognise agx's own errors; never called by users"
	funcPlumbing   = "Func's implementation of the Function interface, called by the engine, not by users"
)

// TestExamplesCoverage fails when an exported function or method of package
// agx has neither an Example (ExampleF, ExampleT_M, with an optional _suffix,
// as go doc associates them) nor an entry in exampleExempt, and when an
// exemption names something that no longer needs one.
func TestExamplesCoverage(t *testing.T) {
	names, examples := exportedAndExamples(t)
	covered, missing, exempted := 0, []string{}, 0
	for _, name := range names {
		_, hasExample := examples[name]
		_, isExempt := exampleExempt[name]
		switch {
		case hasExample && isExempt:
			t.Errorf("%s has an Example; drop it from exampleExempt", name)
		case hasExample:
			covered++
		case isExempt:
			exempted++
		default:
			missing = append(missing, name)
		}
	}
	known := map[string]bool{}
	for _, name := range names {
		known[name] = true
	}
	for name := range exampleExempt {
		if !known[name] {
			t.Errorf("exampleExempt names %s, which is not an exported function or method of agx", name)
		}
	}
	for _, name := range missing {
		t.Errorf("%s has no Example: add Example%s, or an exemption with its reason", name, strings.ReplaceAll(name, ".", "_"))
	}
	t.Logf("%d exported functions and methods: %d with an Example, %d exempted, %d missing",
		len(names), covered, exempted, len(missing))
}

// exportedAndExamples parses package agx and its tests as go doc does (the
// files the current build selects) and returns the exported functions and
// methods of exported types, as "F" or "T.M", and the set of those names
// that go/doc attaches an Example to (ExampleF, ExampleT_M, each with an
// optional _suffix), which is where go doc and pkgsite show it.
func exportedAndExamples(t *testing.T) ([]string, map[string]bool) {
	t.Helper()
	bp, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Concat(bp.GoFiles, bp.TestGoFiles, bp.XTestGoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, bp.ImportPath)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	examples := map[string]bool{}
	add := func(name string, ex []*doc.Example) {
		names = append(names, name)
		if len(ex) > 0 {
			examples[name] = true
		}
	}
	for _, f := range pkg.Funcs {
		add(f.Name, f.Examples)
	}
	for _, typ := range pkg.Types {
		for _, f := range typ.Funcs { // constructors, listed under their type
			add(f.Name, f.Examples)
		}
		for _, m := range typ.Methods {
			add(typ.Name+"."+m.Name, m.Examples)
		}
	}
	sort.Strings(names)
	return names, examples
}
