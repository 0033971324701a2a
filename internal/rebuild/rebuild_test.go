package rebuild

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/notebook"
)

func TestRebuild(t *testing.T) {
	src := nbtest.ReadNB(t, "../nbgrader/testdata/gelu.ipynb")
	for _, tc := range []struct {
		name   string
		edit   func(nb *notebook.Notebook)
		notes  []string // substrings, one per note
		flags  []string // flag kinds
		origin []string // origin per rebuilt cell
	}{
		{"student version", func(nb *notebook.Notebook) {}, nil, nil,
			[]string{FromSource, FromSource, FromSubmission, FromSource, FromSource, FromSubmission, FromSource}},
		{"edited test cell", func(nb *notebook.Notebook) {
			nbtest.CellByID(t, nb, "gelu-forward").Source = "%%\ng := grade.New(\"gelu-forward\")\ng.Check(\"free\", 3, func(c *grade.C) {})\ng.Done()"
		}, []string{"gelu-forward was edited"}, nil, nil},
		{"deleted test cell", func(nb *notebook.Notebook) { nbtest.RemoveCell(t, nb, "quiz-smooth") },
			[]string{"quiz-smooth was deleted; re-added"}, nil, nil},
		{"deleted answer cell", func(nb *notebook.Notebook) { nbtest.RemoveCell(t, nb, "quiz-answer") },
			[]string{"quiz-answer is missing"}, []string{gradebook.FlagMissingAnswer},
			[]string{FromSource, FromSource, FromSubmission, FromSource, FromSource, FromStub, FromSource}},
		{"added cell", func(nb *notebook.Notebook) { nbtest.InsertAfter(t, nb, "gelu-code", "%%\nfmt.Println(1)") }, nil, nil,
			[]string{FromSource, FromSource, FromSubmission, FromStudent, FromSource, FromSource, FromSubmission, FromSource}},
		{"added after a test cell", func(nb *notebook.Notebook) { nbtest.InsertAfter(t, nb, "gelu-forward", "%%\nfmt.Println(1)") }, nil, nil,
			[]string{FromSource, FromSource, FromSubmission, FromSource, FromStudent, FromSource, FromSubmission, FromSource}},
		{"added after an unmarked cell", func(nb *notebook.Notebook) {
			nb.Cells = slices.Insert(nb.Cells, 5, &notebook.Cell{CellType: notebook.Code, Source: "%%\nfmt.Println(1)", Metadata: notebook.Object{}})
		}, nil, nil,
			[]string{FromSource, FromSource, FromSubmission, FromSource, FromSource, FromStudent, FromSubmission, FromSource}},
		{"added before any and after the setup", func(nb *notebook.Notebook) {
			nb.Cells = slices.Insert(nb.Cells, 2, &notebook.Cell{CellType: notebook.Code, Source: "%%\nfmt.Println(2)", Metadata: notebook.Object{}})
			nb.Cells = slices.Insert(nb.Cells, 0, &notebook.Cell{CellType: notebook.Code, Source: "%%\nfmt.Println(1)", Metadata: notebook.Object{}})
		}, nil, nil,
			[]string{FromSource, FromSource, FromStudent, FromStudent, FromSubmission, FromSource, FromSource, FromSubmission, FromSource}},
		{"reordered cells", func(nb *notebook.Notebook) {
			nb.Cells[2], nb.Cells[6] = nb.Cells[6], nb.Cells[2]
		}, nil, nil, []string{FromSource, FromSource, FromSubmission, FromSource, FromSource, FromSubmission, FromSource}},
		{"unknown grade_id", func(nb *notebook.Notebook) {
			nb.Cells = append(nb.Cells, &notebook.Cell{CellType: notebook.Code, Source: "x := 1", Metadata: notebook.Object{
				"nbgrader": json.RawMessage(`{"schema_version":3,"grade":true,"solution":false,"locked":true,"grade_id":"bonus","points":5}`)}})
		}, nil, []string{gradebook.FlagUnknownCell}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := nbtest.Release(t, src)
			tc.edit(sub)
			rb, err := Rebuild(src, sub, nbtest.Counter())
			if err != nil {
				t.Fatal(err)
			}
			if len(rb.Notes) != len(tc.notes) {
				t.Errorf("notes %q, want %q", rb.Notes, tc.notes)
			}
			for i, n := range tc.notes {
				if i < len(rb.Notes) && !strings.Contains(rb.Notes[i], n) {
					t.Errorf("note %q, want one containing %q", rb.Notes[i], n)
				}
			}
			var kinds []string
			for _, f := range rb.Flags {
				kinds = append(kinds, f.Kind)
			}
			if strings.Join(kinds, ",") != strings.Join(tc.flags, ",") {
				t.Errorf("flags %v, want %v", kinds, tc.flags)
			}
			if tc.origin != nil {
				var got []string
				for _, rc := range rb.Cells {
					got = append(got, rc.Origin)
				}
				if strings.Join(got, ",") != strings.Join(tc.origin, ",") {
					t.Errorf("origins %v, want %v", got, tc.origin)
				}
			}
			// Student cells keep their order.
			var printed []string
			for _, rc := range rb.Cells {
				if rc.Origin == FromStudent {
					printed = append(printed, rb.Notebook.Cells[rc.Index].Source)
				}
			}
			if !slices.IsSorted(printed) {
				t.Errorf("student cells out of order: %q", printed)
			}
			// Test cells come from the source, hidden tests included; each
			// gets a nonce, which is never written into any cell.
			fw := nbtest.CellByID(t, rb.Notebook, "gelu-forward")
			if !strings.Contains(fw.Source, `grade.New("gelu-forward")`) || !strings.Contains(fw.Source, "BEGIN HIDDEN TESTS") {
				t.Errorf("gelu-forward not restored:\n%s", fw.Source)
			}
			for _, rc := range rb.Cells {
				if rc.Kind == nbgrader.KindTest && !strings.HasPrefix(rc.Nonce, "nonce") {
					t.Errorf("test cell %s has nonce %q", rc.GradeID, rc.Nonce)
				}
				if c := rb.Notebook.Cells[rc.Index]; strings.Contains(c.Source, "nonce") || strings.Contains(c.Source, ".Nonce(") {
					t.Errorf("cell %d holds a nonce:\n%s", rc.Index, c.Source)
				}
			}
			for _, c := range rb.Notebook.Cells {
				if len(c.Outputs) > 0 || c.ExecutionCount != nil {
					t.Errorf("outputs not cleared: %q", c.Source)
				}
			}
		})
	}
}

func TestRebuildHelpers(t *testing.T) {
	src := nbtest.ReadNB(t, "../autograde/testdata/double.ipynb")
	sub := nbtest.Release(t, src)
	nbtest.InsertAfter(t, sub, "double-code", "func near(a, b float64) bool { return true }")
	rb, err := Rebuild(src, sub, nbtest.Counter())
	if err != nil {
		t.Fatal(err)
	}
	test := nbtest.CellByID(t, rb.Notebook, "double-test").Source
	if !strings.HasPrefix(test, HelpersHeader+"\n// near reports") || !strings.Contains(test, "math.Abs(a-b) < 1e-9 }\n\n%%\n") {
		t.Errorf("the helper is not declared again in the test cell:\n%s", test)
	}
	var redefined bool
	for _, f := range ScanStudentCells(rb) {
		redefined = redefined || (f.Kind == gradebook.FlagRedefinition && strings.Contains(f.Message, "near"))
	}
	if !redefined {
		t.Error("the redefinition of near is not flagged")
	}
}

// TestRebuildAnswerDefaults: a locked cell's default for a name that an
// answer cell declares (an empty quiz answer, a stub to replace) is not
// declared again in the test cells, and the student's answer is no
// redefinition; the other helpers still are.
func TestRebuildAnswerDefaults(t *testing.T) {
	for _, tc := range []struct {
		source, test string
		answers      []string // must not be restored in test
		helpers      []string // must be
	}{
		{"../../notebooks/exercises/knowledge-check.ipynb", "q1", []string{"var answerQ1 = \"\"", "answerN1 = math.NaN()", "func cubeGrad"}, []string{"type Cube struct"}},
		{"../../notebooks/exercises/knowledge-check.ipynb", "f1", []string{"var answerQ1 = \"\"", "func cubeGrad"}, []string{"type Cube struct"}},
		{"../../notebooks/exercises/sigmoid-linear.ipynb", "quiz-1", []string{"var quiz1 = \"\"", "var quiz3 []string"}, nil},
	} {
		t.Run(tc.source+"/"+tc.test, func(t *testing.T) {
			src := nbtest.ReadNB(t, tc.source)
			rb, err := Rebuild(src, nbtest.Solved(t, src), nbtest.Counter())
			if err != nil {
				t.Fatal(err)
			}
			test := nbtest.CellByID(t, rb.Notebook, tc.test).Source
			for _, a := range tc.answers {
				if strings.Contains(test, a) {
					t.Errorf("test cell %s declares the default %q again, over the student's answer", tc.test, a)
				}
			}
			for _, h := range tc.helpers {
				if !strings.Contains(test, h) {
					t.Errorf("test cell %s lacks the helper %q", tc.test, h)
				}
			}
			for _, f := range ScanStudentCells(rb) {
				t.Errorf("the instructor's answers are flagged: %+v", f)
			}
		})
	}
}

func TestDeclarations(t *testing.T) {
	answers := map[string]bool{"ans": true, "T.M": true, "Ty": true}
	for _, tc := range []struct {
		name, src string
		skip      map[string]bool
		want      string
	}{
		{"func and var", "import \"math\"\n\n// f doc\nfunc f() {}\nvar x = 1", nil, "// f doc\nfunc f() {}\n\nvar x = 1"},
		{"answer default left out", "var ans = \"\"\nvar other = 1", answers, "var other = 1"},
		{"answer in a var group", "var (\n\tans = \"\"\n\tother = 1\n)", answers, "var other = 1"},
		{"answer in a const group", "const (\n\tk = iota\n\tans\n)\nconst c = 1", answers, "const c = 1"},
		{"answer type and method", "type Ty int\ntype T int\nfunc (T) M() {}\nfunc (*T) N() {}\nfunc ans() {}", answers, "type T int\n\nfunc (*T) N() {}"},
		{"answer in a multi-name var", "var ans, b = 1, 2", answers, ""},
		{"main part ignored", "const k = 2\n%%\nfmt.Println(k)", nil, "const k = 2"},
		{"magics ignored", "!echo hi\ntype T int", nil, "type T int"},
		{"init skipped", "func init() {}\nfunc g() {}", nil, "func g() {}"},
		{"not Go", "x := 1", nil, ""},
		{"imports only", "import \"github.com/goagx/agx/agx\"", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := declarations(tc.src, tc.skip); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestScanStudentCells(t *testing.T) {
	src := nbtest.ReadNB(t, "../autograde/testdata/double.ipynb")
	for _, tc := range []struct{ name, code, want string }{
		{"clean", "func Double(x float64) float64 { return 2 * x } // os.Exit in a comment", ""},
		{"shell", "!rm -rf /tmp/x", gradebook.FlagMagic},
		{"magic", "%env GOFLAGS=-tags=x", gradebook.FlagMagic},
		{"gonb-shell", "//gonb:!rm -rf /tmp/x", gradebook.FlagMagic},
		{"gonb-magic", "//gonb:%goflags -toolexec=/tmp/tx", gradebook.FlagMagic},
		{"main wrapper is fine", "%%\nfmt.Println(Double(1))", ""},
		{"init", "func init() { println(1) }", gradebook.FlagInit},
		{"gonb init", "func init_x() {}", gradebook.FlagInit},
		{"helper", "func near(a, b float64) bool { return true }", gradebook.FlagRedefinition},
		{"grade package", "var grade = 1", gradebook.FlagRedefinition},
		{"grouped", "var (\n\tnear = 1\n)", gradebook.FlagRedefinition},
		{"exit", "func Double(x float64) float64 { os.Exit(0); return 0 }", gradebook.FlagExit},
		{"unsafe", "import \"unsafe\"", gradebook.FlagUnsafe},
		{"syscall", "func f() { syscall.Kill(1, 9) }", gradebook.FlagExit + "," + gradebook.FlagSyscall},
		{"syscall exit", "func f() { syscall.Exit(0) }", gradebook.FlagExit + "," + gradebook.FlagSyscall},
		{"log.Fatal", "func f() { log.Fatal(\"x\") }", gradebook.FlagExit},
		{"log.Panicf", "func f() { log.Panicf(\"x\") }", gradebook.FlagExit},
		{"logger Fatalf", "func f(l *log.Logger) { l.Fatalf(\"x\") }", gradebook.FlagExit},
		{"own process", "func f() { p, _ := os.FindProcess(os.Getpid()); p.Kill() }", gradebook.FlagExit},
		{"goexit", "func f() { runtime.Goexit() }", gradebook.FlagExit},
		{"start process", "func f() { os.StartProcess(\"/bin/sh\", nil, &os.ProcAttr{}) }", gradebook.FlagExec},
		{"fork exec", "func f() { syscall.ForkExec(\"/bin/sh\", nil, nil) }", gradebook.FlagExec + "," + gradebook.FlagSyscall},
		{"rpc", "func f() { rpc.Dial(\"tcp\", \"x:1\") }", gradebook.FlagNetwork},
		{"cgo", "import \"C\"", gradebook.FlagUnsafe},
		{"cgo grouped", "import (\n\t\"C\"\n\t\"fmt\"\n)", gradebook.FlagUnsafe},
		{"string C is not cgo", "func f() string { return \"C\" }", ""},
		{"linkname", "//go:linkname x runtime.x\nvar x int", gradebook.FlagUnsafe},
		{"reads a file", "func f() { os.ReadFile(\"main.go\") }", gradebook.FlagSelfRead + "," + gradebook.FlagSelfRead},
		{"environment", "func f() string { return os.Getenv(\"GONB_TMP_DIR\") }", gradebook.FlagSelfRead + "," + gradebook.FlagSelfRead},
		{"own binary", "func f() string { return os.Args[0] }", gradebook.FlagSelfRead},
		{"executable", "func f() { os.Executable() }", gradebook.FlagSelfRead},
		{"caller", "func f() { runtime.Caller(0) }", gradebook.FlagSelfRead},
		{"proc", "var p = \"/proc/self/mem\"", gradebook.FlagSelfRead},
		{"initialiser", "var x = steal()\n\nfunc steal() int { return 1 }", gradebook.FlagInitializer},
		{"initialiser literal", "var x = func() int { return 1 }()", gradebook.FlagInitializer},
		{"initialiser method", "var x = agx.Zeros(2).Backward", ""},
		{"initialiser constructor", "var x = agx.FromSlice([]float64{1, 2})\nvar y = math.Sqrt(2)\nvar z = float64(len(\"ab\"))", ""},
		{"initialiser apply", "var x = agx.Apply(myFn{}, agx.Zeros(2))", gradebook.FlagInitializer},
		{"main is not an initialiser", "%%\nx := steal()\nfmt.Println(x)", ""},
		{"exec", "func f() { exec.Command(\"ls\").Run() }", gradebook.FlagExec},
		{"network", "func f() { http.Get(\"http://x\") }", gradebook.FlagNetwork},
		{"net import", "import \"net\"", gradebook.FlagNetwork},
		{"string is not code", "func f() string { return \"os.Exit(1)\" }", ""},
		{"unsafe in a string", "func f() { fmt.Println(\"that cast is unsafe.\") }", ""},
		{"unsafe string", "func f() string { x := \"unsafe\"; return x }", ""},
		{"import in a string", "var s = `import \"unsafe\"`", ""},
		{"C line in a raw string", "var s = `\n\"C\"\n`", ""},
		{"linkname in a string", "var s = \"//go:linkname x runtime.x\"", ""},
		{"linkname mentioned in a comment", "// never write //go:linkname here\nvar x int", ""},
		{"network package in a string", "var s = \"net/http\"", ""},
		{"backquote in a magic line", "!echo `\nimport \"unsafe\"", gradebook.FlagMagic + "," + gradebook.FlagUnsafe},
		{"comment opener in a magic line", "!echo /*\nfunc f(p *int) uintptr { return uintptr(unsafe.Pointer(p)) }", gradebook.FlagMagic + "," + gradebook.FlagUnsafe},
		{"unsafe.Pointer", "func f(p *int) uintptr { return uintptr(unsafe.Pointer(p)) }", gradebook.FlagUnsafe},
		{"unsafe named import", "import (\n\tu \"unsafe\"\n)", gradebook.FlagUnsafe},
		{"unsafe import and use", "import \"unsafe\"\n\nfunc f() uintptr { return unsafe.Sizeof(0) }", gradebook.FlagUnsafe},
		{"linkname after unsafe import", "import _ \"unsafe\"\n\n//go:linkname x runtime.x\nvar x int", gradebook.FlagUnsafe + "," + gradebook.FlagUnsafe},
		{"cgo named", "import c \"C\"", gradebook.FlagUnsafe},
		{"x/sys", "import \"golang.org/x/sys/unix\"", gradebook.FlagSyscall},
		{"os/exec import", "import \"os/exec\"", gradebook.FlagExec},
		{"debug/elf import", "import \"debug/elf\"", gradebook.FlagSelfRead},
		{"net/http import", "import _ \"net/http/pprof\"", gradebook.FlagNetwork},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := nbtest.Release(t, src)
			nbtest.CellByID(t, sub, "double-code").Source = tc.code
			rb, err := Rebuild(src, sub, nbtest.Counter())
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, f := range ScanStudentCells(rb) {
				kinds = append(kinds, f.Kind)
				if f.Cell != "double-code" {
					t.Errorf("flag %+v in the wrong cell", f)
				}
			}
			if got := strings.Join(kinds, ","); got != tc.want {
				t.Errorf("flags %q, want %q", got, tc.want)
			}
		})
	}
}
