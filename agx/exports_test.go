package agx_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestExportsHaveReasons checks that every exported name of package agx
// (functions, types, variables, constants, and methods of exported types) is
// listed in the package docs' "Exported names, and why", so that a new
// export comes with its reason.
func TestExportsHaveReasons(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := pkgs["agx"]
	if !ok {
		t.Fatal("no package agx here")
	}
	var files []*ast.File
	for _, f := range p.Files {
		files = append(files, f)
	}
	d, err := doc.NewFromFiles(fset, files, "github.com/goagx/agx/agx")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(d.Doc, "Exported names, and why")
	if !ok {
		t.Fatal(`the package docs have no section "Exported names, and why"`)
	}
	section, _, _ = strings.Cut(section, "\n# ") // up to the next heading
	listed := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*`).FindAllString(section, -1) {
		listed[w] = true
	}
	var missing []string
	check := func(name string) {
		if ast.IsExported(name) && !listed[name] {
			missing = append(missing, name)
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				check(n)
			}
		}
	}
	values(d.Consts)
	values(d.Vars)
	for _, f := range d.Funcs {
		check(f.Name)
	}
	for _, ty := range d.Types {
		check(ty.Name)
		values(ty.Consts)
		values(ty.Vars)
		for _, f := range ty.Funcs {
			check(f.Name)
		}
		for _, m := range ty.Methods {
			check(m.Name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("exported but not listed, with a reason, in the package docs (doc.go, \"Exported names, and why\"): %s", strings.Join(missing, ", "))
	}
}
