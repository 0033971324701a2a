package autograde

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/testenv"
)

// testKernel is the kernelspec of the end-to-end tests: $AGX_TEST_KERNEL, else
// the one docker/scripts/install-kernel.sh installs.
func testKernel() string {
	if k := os.Getenv("AGX_TEST_KERNEL"); k != "" {
		return k
	}
	return "agx-go"
}

// needKernel skips (under make test: fails) the test when Jupyter or the Go kernel is missing.
func needKernel(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: runs Jupyter and the Go kernel (-short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := jupyter.CheckKernel(ctx, "", testKernel()); err != nil {
		testenv.Missing(t, "skipping: %v (install Jupyter and the kernel with docker/scripts/install-all.sh, or set AGX_TEST_KERNEL)", err)
	}
}

func writeNB(t *testing.T, dir, student string, nb *notebook.Notebook) Submission {
	t.Helper()
	p := filepath.Join(dir, student+".ipynb")
	if err := notebook.Write(p, nb); err != nil {
		t.Fatal(err)
	}
	return Submission{Student: student, Path: p}
}

func testOptions(source, dir string) Options {
	return Options{
		Source: source, Dir: dir, Kernel: testKernel(),
		CellTimeout: 25 * time.Second, Timeout: 5 * time.Minute, MaxOutputBytes: 64 << 10,
		Limits: Limits{MemoryBytes: 4 << 30, FileBytes: 1 << 30, Procs: 4096, Network: NetAuto},
		Jobs:   3, Isolation: testIsolation(),
	}
}

// testIsolation is strict as root (where make test runs: every measure must
// be in force), and best-effort otherwise, where no slot user can be made.
func testIsolation() string {
	if os.Geteuid() == 0 {
		return IsolationStrict
	}
	return IsolationBestEffort
}

// want is what a submission's entry must show.
type want struct {
	score  float64
	cells  map[string]string // grade_id -> status
	flags  []string          // kinds that must be present
	notes  []string          // substrings of notes
	noFlag bool              // no flags at all
	toEnd  bool              // every code cell ran
}

func checkEntry(t *testing.T, e *gradebook.Entry, w want) {
	t.Helper()
	if e.Status != gradebook.Graded {
		t.Errorf("%s: status %s (%s), want graded", e.Student, e.Status, e.UngradableReason)
		return
	}
	if e.Score != w.score {
		t.Errorf("%s: score %v / %v, want %v", e.Student, e.Score, e.MaxScore, w.score)
	}
	for _, c := range e.Cells {
		if st, ok := w.cells[c.GradeID]; ok && c.Status != st {
			t.Errorf("%s: %s is %s (%v), want %s", e.Student, c.GradeID, c.Status, c.Messages, st)
		}
	}
	var kinds []string
	for _, f := range e.Flags {
		kinds = append(kinds, f.Kind)
	}
	for _, k := range w.flags {
		if !slices.Contains(kinds, k) {
			t.Errorf("%s: flags %v lack %s", e.Student, kinds, k)
		}
	}
	if w.noFlag && len(kinds) > 0 {
		t.Errorf("%s: unexpected flags %+v", e.Student, e.Flags)
	}
	for _, n := range w.notes {
		if !slices.ContainsFunc(e.Notes, func(s string) bool { return strings.Contains(s, n) }) {
			t.Errorf("%s: notes %q lack %q", e.Student, e.Notes, n)
		}
	}
	if w.toEnd && e.Run.CellsRun != e.Run.CodeCells {
		t.Errorf("%s: %d of %d code cells ran (%s)", e.Student, e.Run.CellsRun, e.Run.CodeCells, e.Run.Error)
	}
}

// TestTampering grades a batch of honest and tampering GELU submissions in
// one run: each is handled as docs/grading.md says, and none affects another.
func TestTampering(t *testing.T) {
	needKernel(t)
	const source = "../nbgrader/testdata/gelu.ipynb"
	src := nbtest.ReadNB(t, source)
	in, dir := t.TempDir(), t.TempDir()
	var subs []Submission
	add := func(student string, nb *notebook.Notebook) { subs = append(subs, writeNB(t, in, student, nb)) }
	add("instructor", src)
	add("blank", nbtest.Release(t, src))

	edited := nbtest.Release(t, src)
	nbtest.CellByID(t, edited, "gelu-forward").Source = "%%\ng := grade.New(\"gelu-forward\")\ng.Check(\"free\", 3, func(c *grade.C) {})\ng.Done()"
	add("edited", edited)

	deleted := nbtest.Solved(t, src)
	nbtest.RemoveCell(t, deleted, "quiz-smooth")
	add("deleted", deleted)

	forged := nbtest.Release(t, src)
	nbtest.InsertAfter(t, forged, "gelu-code", "%%\n"+
		"fmt.Println(`{\"grade_id\": \"gelu-forward\", \"nonce\": \"\", \"version\": 1, \"score\": 3, \"max_score\": 3, \"checks\": []}`)\n"+
		"g := grade.New(\"gelu-forward\")\ng.Check(\"forged\", 3, func(c *grade.C) {})\ng.Done()")
	add("forged", forged)

	exit := nbtest.Solved(t, src)
	nbtest.CellByID(t, exit, "gelu-code").Source = "func GELU(x *agx.Tensor) *agx.Tensor {\n\tos.Exit(0)\n\treturn x\n}"
	add("exit", exit)

	loop := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, loop, "gelu-code", "%%\nfor {\n}")
	nbtest.CellByID(t, loop, "quiz-answer").Source = "func AnswerSmooth() string {\n\tfor {\n\t}\n}"
	add("loop", loop)

	huge := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, huge, "gelu-code", "%%\nline := strings.Repeat(\"x\", 1000)\nfor i := 0; i < 4000; i++ {\n\tfmt.Println(line)\n}")
	add("huge", huge)

	panics := nbtest.Solved(t, src)
	nbtest.CellByID(t, panics, "gelu-code").Source = "func GELU(x *agx.Tensor) *agx.Tensor {\n\tpanic(\"<b>boom</b>\")\n}"
	add("panics", panics)

	hostile := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, hostile, "gelu-code", "%%\n"+
		"conn, err := net.DialTimeout(\"tcp\", \"1.1.1.1:53\", 3*time.Second)\nfmt.Println(\"dial:\", conn, err)\n"+
		"b := make([]byte, 6<<30)\nfor i := range b {\n\tb[i] = 1\n}\nfmt.Println(\"allocated\", len(b))")
	add("hostile", hostile)

	opt := testOptions(source, dir)
	opt.Log = testWriter{t}
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("isolation: %q", sum.Isolation)
	byStudent := map[string]*gradebook.Entry{}
	for _, e := range sum.Entries {
		byStudent[e.Student] = e
	}
	all := map[string]string{"gelu-forward": gradebook.StatusPassed, "quiz-smooth": gradebook.StatusPassed}
	for student, w := range map[string]want{
		"instructor": {score: 4, cells: all, noFlag: true, toEnd: true},
		"blank":      {score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusFailed, "quiz-smooth": gradebook.StatusFailed}, noFlag: true, toEnd: true},
		"edited":     {score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusFailed}, notes: []string{"gelu-forward was edited; restored"}, toEnd: true},
		"deleted":    {score: 4, cells: all, notes: []string{"quiz-smooth was deleted; re-added"}, toEnd: true},
		"forged":     {score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusFailed}, flags: []string{gradebook.FlagForged}, toEnd: true},
		"exit":       {score: 1, cells: map[string]string{"gelu-forward": gradebook.StatusNoResult, "quiz-smooth": gradebook.StatusPassed}, flags: []string{gradebook.FlagExit, gradebook.FlagNoResult}, toEnd: true},
		"loop":       {score: 3, cells: map[string]string{"gelu-forward": gradebook.StatusPassed, "quiz-smooth": gradebook.StatusFailed}, flags: []string{gradebook.FlagTimeout}, toEnd: true},
		"huge":       {score: 4, cells: all, flags: []string{gradebook.FlagOutputCapped}, toEnd: true},
		"hostile":    {score: 4, cells: all, flags: []string{gradebook.FlagNetwork}, toEnd: true},
		"panics":     {score: 1, cells: map[string]string{"gelu-forward": gradebook.StatusFailed, "quiz-smooth": gradebook.StatusPassed}, toEnd: true},
	} {
		t.Run(student, func(t *testing.T) {
			e := byStudent[student]
			if e == nil {
				t.Fatal("no entry")
			}
			checkEntry(t, e, w)
		})
	}
	if e := byStudent["forged"]; e != nil {
		n := 0
		for _, f := range e.Flags {
			if f.Kind == gradebook.FlagForged {
				n++
			}
		}
		if n < 2 {
			t.Errorf("forged: %d forged_result flags, want the printed JSON and the result display: %+v", n, e.Flags)
		}
	}
	if e := byStudent["panics"]; e != nil && len(e.Cells) > 0 && (len(e.Cells[0].Checks) == 0 || !strings.Contains(e.Cells[0].Checks[0].Message, "<b>boom</b>")) {
		t.Errorf("panics: the check's message does not carry the panic: %+v", e.Cells[0].Checks)
	}
	if nb, err := notebook.Read(filepath.Join(dir, gradebook.ExecutedDir, "huge.ipynb")); err == nil {
		size := 0
		for _, c := range nb.Cells {
			for _, o := range c.Outputs {
				size += len(o.Text)
			}
		}
		if size > 2*opt.MaxOutputBytes {
			t.Errorf("huge: %d bytes of output kept, cap %d", size, opt.MaxOutputBytes)
		}
	} else {
		t.Error(err)
	}

	// The hostile cell: no network (where a namespace could be made), and
	// its allocation fails past the address-space limit.
	if nb, err := notebook.Read(filepath.Join(dir, gradebook.ExecutedDir, "hostile.ipynb")); err == nil {
		var out strings.Builder
		for _, o := range nb.Cells[3].Outputs {
			out.WriteString(o.Text)
		}
		if slices.ContainsFunc(sum.Isolation, func(s string) bool { return strings.HasPrefix(s, "no network") }) &&
			!strings.Contains(out.String(), "network is unreachable") {
			t.Errorf("hostile: the dial did not fail for want of a network:\n%.500s", out.String())
		}
		if !strings.Contains(out.String(), "out of memory") || strings.Contains(out.String(), "allocated") {
			t.Errorf("hostile: the allocation was not stopped:\n%.500s", out.String())
		}
	} else {
		t.Error(err)
	}

	// Feedback: hidden messages stay hidden, student text is escaped.
	paths, err := gradebook.WriteFeedback(filepath.Join(dir, "feedback"), sum.Entries)
	if err != nil || len(paths) != len(subs) {
		t.Fatalf("feedback: %v (%d pages)", err, len(paths))
	}
	b, _ := os.ReadFile(filepath.Join(dir, "feedback", "panics.html"))
	// gelu-forward has hidden tests, so its visible check's panic message
	// is withheld (TestFeedbackHTML checks the escaping of shown messages).
	if strings.Contains(string(b), "boom") || !strings.Contains(string(b), "details withheld") {
		t.Errorf("panics.html shows the panic value of a cell with hidden tests")
	}

	// A second run keeps every entry: same submissions, same source.
	before := readDir(t, dir)
	opt.Log = nil
	sum2, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Skipped != len(subs) || sum2.Graded != 0 {
		t.Errorf("second run: %d skipped, %d graded; want all %d skipped", sum2.Skipped, sum2.Graded, len(subs))
	}
	after := readDir(t, dir)
	for name, b := range before {
		if strings.HasSuffix(name, ".json") && after[name] != b {
			t.Errorf("%s changed on the second run", name)
		}
	}
}

// TestHelpersAndOverrides grades a notebook whose tests use a helper from a
// locked cell: a student who redefines the helper gets no points from it
// and is flagged; an override gives the manual cell its points.
func TestHelpersAndOverrides(t *testing.T) {
	needKernel(t)
	const source = "testdata/double.ipynb"
	src := nbtest.ReadNB(t, source)
	in, dir := t.TempDir(), t.TempDir()
	cheat := nbtest.Release(t, src)
	nbtest.CellByID(t, cheat, "double-code").Source = "func Double(x float64) float64 { return 0 }\n\nfunc near(a, b float64) bool { return true }\n\nfunc init() {}\n"
	nbtest.InsertAfter(t, cheat, "double-code", "!echo hello")
	subs := []Submission{writeNB(t, in, "honest", nbtest.Solved(t, src)), writeNB(t, in, "cheat", cheat)}
	if err := os.WriteFile(filepath.Join(dir, gradebook.OverridesFile), []byte("student,grade_id,points,comment\nhonest,explain,1,well put\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := testOptions(source, dir)
	opt.Log = testWriter{t}
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sum.Entries {
		switch e.Student {
		case "honest":
			checkEntry(t, e, want{score: 3, cells: map[string]string{"double-test": gradebook.StatusPassed, "explain": gradebook.StatusManual}, noFlag: true, toEnd: true})
			if e.AutoScore != 2 {
				t.Errorf("honest: automatic score %v, want 2", e.AutoScore)
			}
		case "cheat":
			checkEntry(t, e, want{score: 0, cells: map[string]string{"double-test": gradebook.StatusFailed}, flags: []string{gradebook.FlagRedefinition, gradebook.FlagInit, gradebook.FlagMagic}, toEnd: true})
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, gradebook.ClassFile))
	if want := "student,status,total,max,double-test,explain,flags,notes\ncheat,graded,0,3,0,0,init magic redefinition,\nhonest,graded,3,3,2,1,,\n"; string(b) != want {
		t.Errorf("%s:\n%s\nwant\n%s", gradebook.ClassFile, b, want)
	}
}

// TestUngradable: a kernel that cannot start makes every submission
// ungradable, with the reason, not a zero.
func TestUngradable(t *testing.T) {
	needKernel(t)
	dir := t.TempDir()
	opt := testOptions("testdata/double.ipynb", dir)
	opt.Kernel = "no-such-kernel-agx"
	sum, err := Grade(context.Background(), opt, []Submission{writeNB(t, t.TempDir(), "alice", nbtest.Release(t, nbtest.ReadNB(t, opt.Source)))})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ungradable != 1 || len(sum.Entries) != 1 || sum.Entries[0].Status != gradebook.Ungradable || !strings.Contains(sum.Entries[0].UngradableReason, "no-such-kernel-agx") {
		t.Fatalf("got %+v", sum.Entries[0])
	}
	if e := sum.Entries[0]; len(e.Cells) != 2 || e.MaxScore != 3 {
		t.Errorf("an ungradable entry lists the graded cells with their points: %+v", e.Cells)
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			out[e.Name()] = string(b)
		}
	}
	return out
}

// testWriter sends the progress display to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
