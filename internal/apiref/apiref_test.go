package apiref

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

const (
	root          = "../.."
	referencePath = "notebooks/reference.ipynb"
)

// packages are the import paths' directories a student's code uses, keyed by
// the name it is imported as.
var packages = map[string]string{
	"agx":       "agx",
	"nb":        "agx/nb",
	"grade":     "grade",
	"tensor":    "tensor",
	"functions": "functions",
	"nn":        "nn",
}

// otherQualifiers are the standard packages the reference's examples import.
var otherQualifiers = map[string]bool{"fmt": true, "math": true}

// api is what the agx packages export.
type api struct {
	decls   map[string]bool            // every exported func and method, printed as go doc shows it
	members map[string]map[string]bool // package name -> exported funcs, types, consts and vars
	methods map[string]bool            // names of exported methods, on any type
	funcs   map[string]bool            // names of package agx's exported functions
}

func loadAPI(t *testing.T) *api {
	t.Helper()
	a := &api{decls: map[string]bool{}, members: map[string]map[string]bool{}, methods: map[string]bool{}, funcs: map[string]bool{}}
	fset := token.NewFileSet()
	for name, dir := range packages {
		a.members[name] = map[string]bool{}
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					if d.Recv == nil {
						a.members[name][d.Name.Name] = true
						if name == "agx" {
							a.funcs[d.Name.Name] = true
						}
					} else {
						a.methods[d.Name.Name] = true
					}
					decl := *d
					decl.Doc, decl.Body = nil, nil
					var b bytes.Buffer
					if err := printer.Fprint(&b, fset, &decl); err != nil {
						t.Fatal(err)
					}
					a.decls[normalize(b.String())] = true
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								a.members[name][s.Name.Name] = true
							}
							// Interface methods (Function's Forward, Jvper's Jvp) are methods too.
							if it, ok := s.Type.(*ast.InterfaceType); ok {
								for _, m := range it.Methods.List {
									for _, n := range m.Names {
										a.methods[n.Name] = true
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									a.members[name][n.Name] = true
								}
							}
						}
					}
				}
			}
		}
	}
	return a
}

var space = regexp.MustCompile(`\s+`)

func normalize(s string) string { return strings.TrimSpace(space.ReplaceAllString(s, " ")) }

var (
	declRE      = regexp.MustCompile("`(func [^`]+)`")
	qualifiedRE = regexp.MustCompile(`\b([a-z]+)\.([A-Z]\w*)`)
	callRE      = regexp.MustCompile(`(\w+|\))\.([A-Z]\w*)\(`)
)

func readReference(t *testing.T) *notebook.Notebook {
	t.Helper()
	nb, err := notebook.Read(filepath.Join(root, filepath.FromSlash(referencePath)))
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

// Every declaration the reference shows is one the packages export, exactly.
func TestReferenceDeclarationsExist(t *testing.T) {
	a := loadAPI(t)
	n := 0
	for _, c := range readReference(t).Cells {
		if c.CellType != notebook.Markdown {
			continue
		}
		for _, m := range declRE.FindAllStringSubmatch(c.Source, -1) {
			n++
			if !a.decls[normalize(m[1])] {
				t.Errorf("the reference shows `%s`, which no agx package declares (renamed, or its parameters changed?); copy the declaration that `go doc` prints", m[1])
			}
		}
	}
	if n < 40 {
		t.Errorf("the reference shows %d declarations; expected a few dozen (is the `func ...` form still used?)", n)
	}
}

// Every package member the reference names and every method its examples
// call exists.
func TestReferenceNamesExist(t *testing.T) {
	a := loadAPI(t)
	for i, c := range readReference(t).Cells {
		for _, m := range qualifiedRE.FindAllStringSubmatch(c.Source, -1) {
			members, ok := a.members[m[1]]
			if !ok || otherQualifiers[m[1]] {
				continue
			}
			if !members[m[2]] {
				t.Errorf("cell %d names %s.%s, which package %s does not export", i, m[1], m[2], m[1])
			}
		}
		if c.CellType != notebook.Code {
			continue
		}
		for _, m := range callRE.FindAllStringSubmatch(c.Source, -1) {
			if _, pkg := a.members[m[1]]; pkg || otherQualifiers[m[1]] {
				continue
			}
			if !a.methods[m[2]] {
				t.Errorf("cell %d calls .%s(, which is no exported method of the agx packages", i, m[2])
			}
		}
	}
}

var solutionRE = regexp.MustCompile(`(?s)BEGIN SOLUTION(.*?)END SOLUTION`)

// Every agx function or method that an exercise's solution calls is in the
// reference, so a student who reads it knows the calls the exercise needs.
// The instructor notebooks are not in the students' copy: there the test skips.
func TestReferenceCoversTheExercises(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(root, "notebooks", "exercises", "*.ipynb"))
	if len(paths) == 0 {
		t.Skip("no instructor notebooks under notebooks/exercises (a student's copy)")
	}
	a := loadAPI(t)
	var documented strings.Builder
	for _, c := range readReference(t).Cells {
		if c.CellType == notebook.Markdown {
			for _, m := range declRE.FindAllStringSubmatch(c.Source, -1) {
				documented.WriteString(m[1] + "\n")
			}
		}
	}
	doc := documented.String()
	for _, p := range paths {
		if strings.HasSuffix(p, ".executed.ipynb") {
			continue
		}
		nb, err := notebook.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		var missing []string
		for _, c := range nb.Cells {
			for _, sol := range solutionRE.FindAllStringSubmatch(c.Source, -1) {
				for _, m := range qualifiedRE.FindAllStringSubmatch(sol[1], -1) {
					if m[1] == "agx" && a.funcs[m[2]] && !strings.Contains(doc, " "+m[2]+"(") && !strings.Contains(doc, " "+m[2]+"[") {
						missing = append(missing, "agx."+m[2])
					}
				}
				for _, m := range callRE.FindAllStringSubmatch(sol[1], -1) {
					if _, pkg := a.members[m[1]]; pkg || otherQualifiers[m[1]] || !a.methods[m[2]] {
						continue
					}
					if !strings.Contains(doc, ") "+m[2]+"(") {
						missing = append(missing, "."+m[2])
					}
				}
			}
		}
		slices.Sort(missing)
		if missing = slices.Compact(missing); len(missing) > 0 {
			t.Errorf("%s: its solution calls %s, which %s does not document", filepath.Base(p), strings.Join(missing, ", "), referencePath)
		}
	}
}

// The reference ships: it is not among the paths students never get.
func TestReferenceIsNotInstructorOnly(t *testing.T) {
	list, err := os.ReadFile(filepath.Join(root, "docker", "instructor-only"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(list)) {
		e := strings.TrimSpace(line)
		if e == "" || strings.HasPrefix(e, "#") {
			continue
		}
		if e == referencePath || strings.HasSuffix(e, "/") && strings.HasPrefix(referencePath, e) {
			t.Errorf("docker/instructor-only lists %s, which holds the students' reference %s", e, referencePath)
		}
	}
}
