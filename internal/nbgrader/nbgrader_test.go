package nbgrader

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestPyFloatRepr(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {1, "1.0"}, {2.5, "2.5"}, {-3, "-3.0"}, {0.1, "0.1"}, {1e-4, "0.0001"},
		{1e-5, "1e-05"}, {1.5e-7, "1.5e-07"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"},
		{123456789.125, "123456789.125"}, {1.0 / 3, "0.3333333333333333"},
	} {
		if got := pyFloatRepr(tc.f); got != tc.want {
			t.Errorf("pyFloatRepr(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// checksumCells are the fixed vector: cells of every kind.
func checksumCells() []*notebook.Cell {
	meta := func(s string) notebook.Object { return notebook.Object{"nbgrader": json.RawMessage(s)} }
	return []*notebook.Cell{
		{CellType: notebook.Code, Source: "%%\ng := grade.New(\"t1\")\ng.Done()", Metadata: meta(`{"schema_version":3,"grade":true,"solution":false,"locked":true,"grade_id":"t1","points":2}`)},
		{CellType: notebook.Code, Source: "func f() {\n\t// YOUR CODE HERE\n}\n", Metadata: meta(`{"schema_version":3,"grade":false,"solution":true,"locked":false,"grade_id":"s1"}`)},
		{CellType: notebook.Markdown, Source: "Ünïcode — text", Metadata: meta(`{"schema_version":3,"grade":false,"solution":false,"locked":true,"grade_id":"ro"}`)},
		{CellType: notebook.Code, Source: "x", Metadata: meta(`{"schema_version":3,"grade":true,"solution":true,"locked":false,"grade_id":"m1","points":0.5}`)},
		{CellType: notebook.Code, Source: "y", Metadata: meta(`{"schema_version":3,"grade":true,"solution":false,"locked":true,"grade_id":"tiny","points":1e-05}`)},
	}
}

// nbgraderChecksum re-implements nbgrader.utils.compute_checksum in Python.
const nbgraderChecksum = `
import hashlib, json, sys
def is_grade(c): return c["metadata"].get("nbgrader", {}).get("grade", False)
def is_solution(c): return c["metadata"].get("nbgrader", {}).get("solution", False)
def is_locked(c):
    if "nbgrader" not in c["metadata"]: return False
    if is_solution(c): return False
    if is_grade(c): return True
    return c["metadata"]["nbgrader"].get("locked", False)
def checksum(c):
    m = hashlib.md5()
    src = c["source"]
    if isinstance(src, list): src = "".join(src)
    m.update(src.encode("utf-8"))
    m.update(c["cell_type"].encode("utf-8"))
    m.update(str(is_grade(c)).encode("utf-8"))
    m.update(str(is_solution(c)).encode("utf-8"))
    m.update(str(is_locked(c)).encode("utf-8"))
    m.update(c["metadata"]["nbgrader"]["grade_id"].encode("utf-8"))
    if is_grade(c):
        m.update(str(float(c["metadata"]["nbgrader"]["points"])).encode("utf-8"))
    return m.hexdigest()
for c in json.load(sys.stdin):
    print(checksum(c))
`

func TestChecksum(t *testing.T) {
	cells := checksumCells()
	// Computed once with the Python re-implementation; fixed here so that the
	// test runs without Python too.
	want := []string{
		"66e671cc73b897079492c340694ec6b8",
		"8369da3313332fb78a43bdd3e9a48eec",
		"3d012b8b3fda6b646cc11078f7ac1c13",
		"173437e9eddc1734d1be3af3b7582329",
		"397e68e1f2c610139f2a9296434c4e7c",
	}
	var got []string
	for i, c := range cells {
		m, err := Get(c)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, Checksum(c, m))
		if got[i] != want[i] {
			t.Errorf("cell %d: checksum %s, want %s", i, got[i], want[i])
		}
	}

	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		testenv.Missing(t, "skipping the Python comparison: %s is missing", py)
	}
	in, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", nbgraderChecksum)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	pyGot := strings.Fields(string(out))
	for i := range cells {
		if i >= len(pyGot) || pyGot[i] != got[i] {
			t.Errorf("cell %d: Go %s, Python %v", i, got[i], pyGot)
		}
	}
}

func TestRelease(t *testing.T) {
	src, err := notebook.Read("testdata/gelu.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := src.Marshal()
	student, entries, err := Release(src)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := src.Marshal(); string(after) != string(before) {
		t.Error("Release modified its input")
	}
	got, err := student.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "gelu.student.ipynb")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("student version differs from %s (run with -update and review the diff):\n%s", golden, got)
	}
	s := string(got)
	for _, leaked := range []string{"Erf()", "matches the built-in", `return "b"`, "old output", "BEGIN"} {
		if strings.Contains(s, leaked) {
			t.Errorf("student version contains %q", leaked)
		}
	}
	wantKinds := map[string]string{"intro": KindReadOnly, "gelu-code": KindSolution, "gelu-forward": KindTest, "quiz-answer": KindSolution, "quiz-smooth": KindTest}
	for id, kind := range wantKinds {
		e, ok := entries[id]
		if !ok || e.Kind != kind || e.Checksum == "" {
			t.Errorf("entry %s: %+v, want kind %s with a checksum", id, e, kind)
		}
	}
	if e := entries["gelu-forward"]; e.Points != 3 || e.Checksum == e.SourceChecksum {
		t.Errorf("gelu-forward: %+v, want 3 points and a source checksum that differs (hidden tests)", e)
	}
	// The checksum in the student copy is that of the released cell.
	for _, c := range student.Cells {
		m, _ := Get(c)
		if m != nil && m.Checksum != Checksum(c, m) {
			t.Errorf("%s: stored checksum %s, computed %s", m.GradeID, m.Checksum, Checksum(c, m))
		}
	}
}

func TestValidate(t *testing.T) {
	cell := func(src, meta string) *notebook.Cell {
		c := &notebook.Cell{CellType: notebook.Code, Source: src}
		if meta != "" {
			c.Metadata = notebook.Object{"nbgrader": json.RawMessage(meta)}
		}
		return c
	}
	const test = `{"schema_version":3,"grade":true,"solution":false,"locked":true,"grade_id":"t","points":1}`
	const sol = `{"schema_version":3,"grade":false,"solution":true,"locked":false,"grade_id":"s"}`
	okTest := "g := grade.New(\"t\")\ng.Done()"
	for _, tc := range []struct {
		name  string
		cells []*notebook.Cell
		want  string // "" for valid
	}{
		{"valid", []*notebook.Cell{cell("func f() {\n// BEGIN SOLUTION\n// END SOLUTION\n}", sol), cell(okTest, test)}, ""},
		{"duplicate id", []*notebook.Cell{cell(okTest, test), cell(okTest, test)}, "cell 1 (t): grade_id \"t\" is also used by cell 0"},
		{"bad id", []*notebook.Cell{cell("", `{"schema_version":3,"grade":false,"solution":true,"locked":false,"grade_id":"a b"}`)}, "cell 0 (a b): grade_id \"a b\" may only hold"},
		{"no id", []*notebook.Cell{cell("", `{"schema_version":3,"grade":false,"solution":true,"locked":false}`)}, "cell 0: no grade_id"},
		{"points on solution", []*notebook.Cell{cell("", `{"schema_version":3,"grade":false,"solution":true,"locked":false,"grade_id":"s","points":2}`)}, "points on a cell that is not graded"},
		{"unlocked test", []*notebook.Cell{cell(okTest, `{"schema_version":3,"grade":true,"solution":false,"locked":false,"grade_id":"t","points":1}`)}, "test cell is not locked"},
		{"missing key", []*notebook.Cell{cell(okTest, `{"schema_version":3,"grade":true,"solution":false,"grade_id":"t","points":1}`)}, `lacks "locked"`},
		{"unbalanced", []*notebook.Cell{cell("// BEGIN SOLUTION\n", sol)}, "cell 0 (s): line 1: BEGIN SOLUTION without END SOLUTION"},
		{"solution marker in test", []*notebook.Cell{cell(okTest+"\n// BEGIN SOLUTION\n// END SOLUTION", test)}, "solution markers in a cell that is not a solution cell"},
		{"hidden marker in solution", []*notebook.Cell{cell("// BEGIN HIDDEN TESTS\n// END HIDDEN TESTS", sol)}, "hidden-test markers in a cell that is not a test cell"},
		{"markers without metadata", []*notebook.Cell{cell("// BEGIN SOLUTION\n// END SOLUTION", "")}, "cell 0: has solution or hidden-test markers but no nbgrader metadata"},
		{"other grade id", []*notebook.Cell{cell("g := grade.New(\"u\")\ng.Done()", test)}, `calls grade.New("u"): a test cell must use its own grade_id`},
		{"no grade.New", []*notebook.Cell{cell("fmt.Println(1)", test)}, `calls grade.New("t") 0 times`},
		{"own nonce", []*notebook.Cell{cell("g := grade.New(\"t\").Nonce(\"x\")", test)}, "sets a nonce itself"},
		{"schema", []*notebook.Cell{cell(okTest, `{"schema_version":1,"grade":true,"solution":false,"locked":true,"grade_id":"t","points":1}`)}, "schema_version 1, want 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(&notebook.Notebook{Nbformat: 4, Cells: tc.cells})
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
