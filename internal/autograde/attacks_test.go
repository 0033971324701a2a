package autograde

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/notebook"
)

// forgeCode emits full-marks results under the real check names of the
// GELU exercise (the hidden one too) for grade_id id with nonce.
const forgeCode = `
func agxForge(id, nonce string) {
	g := grade.New(id).Nonce(nonce)
	if id == "gelu-forward" {
		g.Check("zero at zero", 1, func(c *grade.C) {})
		g.Hidden()
		g.Check("matches the built-in, gradients too", 2, func(c *grade.C) {})
	} else {
		g.Check("answer", 1, func(c *grade.C) {})
	}
	g.Done()
}
`

// stealCode is the instructor's finding: a package-level initialiser that,
// in a test cell's program, reads the program source GoNB wrote (and any
// other place the secret could be: the secret file, what a helper process
// saved), emits forged results with what it found and then runs END (for
// example os.Exit(0), so that the real checks never report).
const stealCode = `var agxStolen = agxSteal()

func agxSteal() string {
	var src []byte
	dirs := []string{os.Getenv("GONB_TMP_DIR"), filepath.Dir(os.Args[0])}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(d, "*.go"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			src = append(src, b...)
		}
	}
	m := regexp.MustCompile(` + "`" + `grade\.New\("([\w-]+)"\)(\.Nonce\("(\w*)"\))?` + "`" + `).FindSubmatch(src)
	if m == nil {
		return "" // not a test cell
	}
	id, nonce := string(m[1]), string(m[3])
	for _, p := range []string{os.Getenv("AGX_GRADE_SECRET"), filepath.Join(os.Getenv("HOME"), "stolen")} {
		if b, err := os.ReadFile(p); nonce == "" && err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == id {
					nonce = f[1]
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "agx-attack: %s nonce %q\n", id, nonce)
	agxForge(id, nonce)
	END
	return nonce
}
` + forgeCode

// plantCell writes a package into GoNB's scratch module and a file that
// imports it: the package's init would run before the grade kit's (Go
// initialises packages in import-path order as their dependencies allow)
// and copy the secret file for stealCode's initialiser.
const plantCell = `%%
dir := os.Getenv("GONB_TMP_DIR")
if dir == "" {
	dir = filepath.Dir(os.Args[0])
}
gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
module := strings.Fields(string(gomod))[1]
os.MkdirAll(filepath.Join(dir, "evil"), 0o755)
err1 := os.WriteFile(filepath.Join(dir, "evil", "evil.go"), []byte(plantedPackage), 0o644)
err2 := os.WriteFile(filepath.Join(dir, "zz_evil.go"), []byte("package main\n\nimport _ \""+module+"/evil\"\n"), 0o644)
fmt.Println("planted:", module, err1, err2)
`

// plantedPackage needs only package syscall, so that it is ready to
// initialise before the grade kit.
const plantedPackage = `package evil

import "syscall"

func init() {
	path, ok := syscall.Getenv("AGX_GRADE_SECRET")
	if !ok {
		return
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return
	}
	buf := make([]byte, 256)
	n, _ := syscall.Read(fd, buf)
	syscall.Close(fd)
	home, _ := syscall.Getenv("HOME")
	out, err := syscall.Open(home+"/stolen", syscall.O_WRONLY|syscall.O_CREAT|syscall.O_APPEND, 0o600)
	if err == nil {
		syscall.Write(out, append(buf[:n], 10))
		syscall.Close(out)
	}
}
`

// interceptCode reroutes the test cell program's display channel through a
// FIFO of its own and rewrites the grade result passing through it.
const interceptCode = `import "github.com/janpfeifer/gonb/gonbui/protocol"

var agxIntercepted = agxIntercept()

func agxIntercept() int {
	real := os.Getenv("GONB_PIPE")
	if real == "" {
		return 0
	}
	fake := filepath.Join(os.TempDir(), fmt.Sprintf("agx-fifo-%d", os.Getpid()))
	if err := syscall.Mkfifo(fake, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "agx-attack: mkfifo:", err)
		return 0
	}
	os.Setenv("GONB_PIPE", fake)
	re := regexp.MustCompile(` + "`" + `"points":0,"max":([0-9.]+),"passed":false,"status":"\w+"` + "`" + `)
	go func() {
		in, err := os.OpenFile(fake, os.O_RDONLY, 0)
		if err != nil {
			return
		}
		out, err := os.OpenFile(real, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		dec, enc := gob.NewDecoder(in), gob.NewEncoder(out)
		for {
			var d protocol.DisplayData
			if dec.Decode(&d) != nil {
				return
			}
			if s, ok := d.Data["application/vnd.agx.grade+json"].(string); ok {
				d.Data["application/vnd.agx.grade+json"] = re.ReplaceAllString(s, ` + "`" + `"points":$1,"max":$1,"passed":true,"status":"pass"` + "`" + `)
				fmt.Fprintln(os.Stderr, "agx-attack: rewrote a result")
			}
			enc.Encode(&d)
		}
	}()
	return 0
}
`

func steal(end string) string { return strings.Replace(stealCode, "END", end, 1) }

// TestAttacks grades, in one run, a class of submissions that each try one
// known way to get points the checks did not give or to read the
// instructor's material, besides an honest and a blank one. Every attack
// must end caught (no points for the cells it targets, flagged) or
// harmless. Blank notebooks score 0 honestly, so any point they get is a
// forgery.
func TestAttacks(t *testing.T) {
	needKernel(t)
	gradeAttacks(t, "")
}

// TestAttacksInContainers grades the attack class with --docker: each
// submission in a fresh container of the grader image that
// AGX_TEST_GRADER_IMAGE names. make image-test (part of make test) runs it
// with the image it built.
func TestAttacksInContainers(t *testing.T) {
	image := os.Getenv("AGX_TEST_GRADER_IMAGE")
	if image == "" {
		t.Skip("AGX_TEST_GRADER_IMAGE is not set: make image-test runs this test with the grader image it builds")
	}
	gradeAttacks(t, image)
	out, err := exec.Command("docker", "ps", "--all", "--quiet", "--filter", "name=agx-grade-").CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("grading containers are left after grading: %s %v", out, err)
	}
}

// gradeAttacks grades the attack class, on this machine or (docker, an
// image) in a container per submission, and checks each attack.
func gradeAttacks(t *testing.T, docker string) {
	const source = "../nbgrader/testdata/gelu.ipynb"
	src := nbtest.ReadNB(t, source)
	in, dir := t.TempDir(), t.TempDir()
	agxRoot := os.Getenv("AGX_ROOT")
	if agxRoot == "" {
		agxRoot, _ = filepath.Abs("../..")
	}
	type attack struct {
		nb    *notebook.Notebook
		want  want
		check func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook)
	}
	blankWith := func(after, code string) *notebook.Notebook {
		nb := nbtest.Release(t, src)
		nbtest.InsertAfter(t, nb, after, code)
		return nb
	}
	solvedWith := func(after, code string) *notebook.Notebook {
		nb := nbtest.Solved(t, src)
		nbtest.InsertAfter(t, nb, after, code)
		return nb
	}
	both := map[string]string{"gelu-forward": gradebook.StatusPassed, "quiz-smooth": gradebook.StatusPassed}
	attacks := map[string]attack{
		"honest": {nb: nbtest.Solved(t, src), want: want{score: 4, cells: both, noFlag: true, toEnd: true}},
		"blank":  {nb: nbtest.Release(t, src), want: want{score: 0, noFlag: true, toEnd: true}},

		// The instructor's findings.
		"steal-and-exit": {nb: blankWith("gelu-code", steal("os.Exit(0)")),
			want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusRejected, "quiz-smooth": gradebook.StatusRejected},
				flags: []string{gradebook.FlagForged, gradebook.FlagInitializer, gradebook.FlagSelfRead, gradebook.FlagExit}, toEnd: true}},
		"steal-and-go-on": {nb: blankWith("gelu-code", steal("")),
			want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusRejected, "quiz-smooth": gradebook.StatusRejected},
				flags: []string{gradebook.FlagForged, gradebook.FlagInitializer}, toEnd: true}},
		"steal-in-init": {nb: blankWith("gelu-code", strings.Replace(steal("log.Fatal(\"done\")"), "var agxStolen = agxSteal()", "func init() { agxSteal() }", 1)),
			want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusRejected},
				flags: []string{gradebook.FlagForged, gradebook.FlagInit, gradebook.FlagExit}, toEnd: true}},
		"helper-process": {nb: func() *notebook.Notebook {
			nb := blankWith("gelu-code", steal("os.Exit(0)"))
			// A process that outlives its cell and copies the secret file
			// the moment it appears; the initialiser then forges with it.
			nbtest.InsertAfter(t, nb, "gelu-code", "%%\n"+
				"loop := `while :; do cat \"$AGX_GRADE_SECRET\" >>\"$HOME/stolen\" 2>/dev/null; done`\n"+
				"p, err := os.StartProcess(\"/bin/sh\", []string{\"sh\", \"-c\", loop}, &os.ProcAttr{Env: os.Environ(), Sys: &syscall.SysProcAttr{Setsid: true}})\n"+
				"fmt.Println(\"helper started:\", err == nil)\nif p != nil {\n\tp.Release()\n}")
			return nb
		}(),
			want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusRejected}, flags: []string{gradebook.FlagForged, gradebook.FlagExec}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				if out := cellText(executed, "helper started:"); !strings.Contains(out, "helper started: true") {
					t.Errorf("the helper process did not start, so this case tests nothing: %q", out)
				}
			}},
		"planted-package": {nb: func() *notebook.Notebook {
			nb := blankWith("gelu-code", steal("os.Exit(0)"))
			nbtest.InsertAfter(t, nb, "gelu-code", plantCell)
			nbtest.InsertAfter(t, nb, "gelu-code", "const plantedPackage = `"+plantedPackage+"`")
			return nb
		}(),
			want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusRejected}, flags: []string{gradebook.FlagForged, gradebook.FlagSelfRead}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				if out := cellText(executed, "planted:"); !strings.Contains(out, "<nil> <nil>") {
					t.Errorf("the package was not planted, so this case tests nothing: %q", out)
				}
			}},
		"linkname": {nb: blankWith("gelu-code", "import _ \"unsafe\"\n\n"+
			"//go:linkname agxArmed github.com/goagx/agx/grade.armed\nvar agxArmed struct{ gradeID, secret string }\n\n"+
			"var agxTaken = agxTake()\n\nfunc agxTake() string {\n\tif agxArmed.secret != \"\" {\n\t\tfmt.Fprintf(os.Stderr, \"agx-attack: %s secret %d bytes\\n\", agxArmed.gradeID, len(agxArmed.secret))\n\t\tagxForge(agxArmed.gradeID, agxArmed.secret)\n\t\tos.Exit(0)\n\t}\n\treturn \"\"\n}\n"+forgeCode),
			want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusRejected, "quiz-smooth": gradebook.StatusRejected}, flags: []string{gradebook.FlagUnsafe}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				// The attack does read the secret from the kit's memory and
				// its forged result carries it: only the unsafe rule stops it
				// (docs/grading.md, "What remains possible").
				for _, c := range e.Cells {
					if c.GradeID == "gelu-forward" && !c.NonceOK {
						t.Errorf("the linkname attack no longer gets the secret; update docs/grading.md's threat model: %+v", c)
					}
				}
			}},
		"log-fatal": {nb: func() *notebook.Notebook {
			nb := nbtest.Solved(t, src)
			nbtest.CellByID(t, nb, "gelu-code").Source = "func GELU(x *agx.Tensor) *agx.Tensor {\n\tlog.Fatal(\"bye\")\n\treturn x\n}"
			return nb
		}(), want: want{score: 1, cells: map[string]string{"gelu-forward": gradebook.StatusError, "quiz-smooth": gradebook.StatusPassed}, flags: []string{gradebook.FlagExit, gradebook.FlagNoResult}, toEnd: true}},
		"rpc-dial": {nb: solvedWith("gelu-code", "%%\n_, err := rpc.Dial(\"tcp\", \"1.1.1.1:53\")\nfmt.Println(\"rpc:\", err)"),
			want: want{score: 4, cells: both, flags: []string{gradebook.FlagNetwork}, toEnd: true}},
		"read-instructor-files": {nb: blankWith("gelu-code", fmt.Sprintf("%%%%\nroot := os.Getenv(\"AGX_ROOT\")\nif root == \"\" {\n\troot = %q\n}\n"+
			"for _, p := range []string{\"notebooks/exercises/gelu.ipynb\", \"internal/nbgrader/testdata/gelu.ipynb\", \"docs/grading.md\", \".git/HEAD\", \"grade/grade.go\"} {\n"+
			"\tb, err := os.ReadFile(filepath.Join(root, p))\n\tfmt.Printf(\"leak %%s: %%d bytes %%v\\n\", p, len(b), err)\n"+
			// What the attack looks for (the exercise's hidden check and
			// solution, .git's content), searched by the attack itself so that
			// the output stays under the cell's cap whatever it reads.
			"\tfor _, m := range []string{\"matches the built-in\", \"x.Div(math.Sqrt2).Erf()\", \"ref: refs/\", \"gitdir:\"} {\n"+
			"\t\tif strings.Contains(string(b), m) {\n\t\t\tfmt.Printf(\"FOUND %%q in %%s\\n\", m, p)\n\t\t}\n\t}\n}", agxRoot)),
			want: want{score: 0, flags: []string{gradebook.FlagSelfRead}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				out := cellText(executed, "leak ")
				if strings.Contains(out, "FOUND") {
					t.Errorf("a student cell read instructor material:\n%.2000s", out)
				}
				// The module's packages stay readable: the notebook builds with them.
				if !strings.Contains(out, "leak grade/grade.go:") || strings.Contains(out, "leak grade/grade.go: 0 bytes") {
					t.Errorf("the grade kit's source is not readable:\n%.2000s", out)
				}
			}},
		"hidden-tests-to-stderr": {nb: blankWith("gelu-code", "var agxDump = agxDumpSource()\n\nfunc agxDumpSource() int {\n"+
			"\tb, _ := os.ReadFile(filepath.Join(filepath.Dir(os.Args[0]), \"main.go\"))\n\tif bytes.Contains(b, []byte(\"BEGIN HIDDEN TESTS\")) {\n"+
			"\t\tos.Stderr.Write(b)\n\t\tpanic(string(b))\n\t}\n\treturn 0\n}"),
			want: want{score: 0, flags: []string{gradebook.FlagInitializer, gradebook.FlagSelfRead}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				var msgs []string
				for _, c := range e.Cells {
					msgs = append(msgs, c.Messages...)
				}
				if !strings.Contains(strings.Join(msgs, "\n"), "matches the built-in") {
					t.Errorf("the attack did not get the hidden tests into the gradebook (so this case tests nothing): %q", msgs)
				}
				if page := feedbackPage(t, e); strings.Contains(page, "matches the built-in") {
					t.Errorf("the feedback page quotes the hidden tests")
				}
			}},

		// A visible check's message carries the hidden tests: the function it
		// calls panics with them, read from the program's source.
		"hidden-tests-in-visible-check": {nb: func() *notebook.Notebook {
			nb := nbtest.Release(t, src)
			nbtest.CellByID(t, nb, "gelu-code").Source = "func GELU(x *agx.Tensor) *agx.Tensor {\n" +
				"\tb, _ := os.ReadFile(filepath.Join(filepath.Dir(os.Args[0]), \"main.go\"))\n" +
				"\tif _, after, ok := strings.Cut(string(b), \"BEGIN HIDDEN TESTS\"); ok {\n\t\tpanic(after)\n\t}\n\treturn x\n}"
			return nb
		}(), want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusFailed}, flags: []string{gradebook.FlagSelfRead}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				const leaked = "[]float64{-2, -0.5, 1, 3}"
				var msgs []string
				for _, c := range e.Cells {
					for _, ch := range c.Checks {
						msgs = append(msgs, ch.Message)
					}
				}
				if !strings.Contains(strings.Join(msgs, "\n"), leaked) {
					t.Errorf("the hidden tests are not in a check's message (so this case tests nothing): %q", msgs)
				}
				if page := feedbackPage(t, e); strings.Contains(page, leaked) {
					t.Errorf("the feedback page quotes the hidden tests")
				}
			}},

		// The earlier tamper cases.
		"edited-test-cell": {nb: func() *notebook.Notebook {
			nb := nbtest.Release(t, src)
			nbtest.CellByID(t, nb, "gelu-forward").Source = "%%\ng := grade.New(\"gelu-forward\")\ng.Check(\"free\", 3, func(c *grade.C) {})\ng.Done()"
			return nb
		}(), want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusFailed}, notes: []string{"gelu-forward was edited; restored"}, toEnd: true}},
		"deleted-test-cell": {nb: func() *notebook.Notebook {
			nb := nbtest.Solved(t, src)
			nbtest.RemoveCell(t, nb, "quiz-smooth")
			return nb
		}(), want: want{score: 4, cells: both, notes: []string{"quiz-smooth was deleted; re-added"}, toEnd: true}},
		"printed-and-own-results": {nb: blankWith("gelu-code", "%%\n"+
			"fmt.Println(`{\"grade_id\": \"gelu-forward\", \"nonce\": \"\", \"version\": 1, \"score\": 3, \"max_score\": 3, \"checks\": []}`)\n"+
			"g := grade.New(\"gelu-forward\")\ng.Check(\"forged\", 3, func(c *grade.C) {})\ng.Done()"),
			want: want{score: 0, cells: map[string]string{"gelu-forward": gradebook.StatusFailed}, flags: []string{gradebook.FlagForged}, toEnd: true}},
		"os-exit": {nb: func() *notebook.Notebook {
			nb := nbtest.Solved(t, src)
			nbtest.CellByID(t, nb, "gelu-code").Source = "func GELU(x *agx.Tensor) *agx.Tensor {\n\tos.Exit(0)\n\treturn x\n}"
			return nb
		}(), want: want{score: 1, cells: map[string]string{"gelu-forward": gradebook.StatusNoResult, "quiz-smooth": gradebook.StatusPassed}, flags: []string{gradebook.FlagExit, gradebook.FlagNoResult}, toEnd: true}},
		"endless-loops": {nb: func() *notebook.Notebook {
			nb := solvedWith("gelu-code", "%%\nfor {\n}")
			nbtest.CellByID(t, nb, "quiz-answer").Source = "func AnswerSmooth() string {\n\tfor {\n\t}\n}"
			return nb
		}(), want: want{score: 3, cells: map[string]string{"gelu-forward": gradebook.StatusPassed, "quiz-smooth": gradebook.StatusFailed}, flags: []string{gradebook.FlagTimeout}, toEnd: true}},
		"huge-output": {nb: solvedWith("gelu-code", "%%\nline := strings.Repeat(\"x\", 1000)\nfor i := 0; i < 4000; i++ {\n\tfmt.Println(line)\n}"),
			want: want{score: 4, cells: both, flags: []string{gradebook.FlagOutputCapped}, toEnd: true}},
		"panics": {nb: func() *notebook.Notebook {
			nb := nbtest.Solved(t, src)
			nbtest.CellByID(t, nb, "gelu-code").Source = "func GELU(x *agx.Tensor) *agx.Tensor {\n\tpanic(\"<b>boom</b>\")\n}"
			return nb
		}(), want: want{score: 1, cells: map[string]string{"gelu-forward": gradebook.StatusFailed, "quiz-smooth": gradebook.StatusPassed}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				// gelu-forward has hidden tests: its visible check's panic
				// message is withheld from the feedback.
				if page := feedbackPage(t, e); strings.Contains(page, "boom") || !strings.Contains(page, "details withheld") {
					t.Errorf("the feedback page shows the panic value of a cell with hidden tests")
				}
				// The kit's own table in the notebook escapes it.
				escaped := false
				for _, c := range executed.Cells {
					for _, o := range c.Outputs {
						if h, ok := o.DataText("text/html"); ok && strings.Contains(h, "boom") {
							if strings.Contains(h, "<b>boom") {
								t.Errorf("the kit's HTML does not escape the panic value")
							}
							escaped = escaped || strings.Contains(h, "&lt;b&gt;boom")
						}
					}
				}
				if !escaped {
					t.Errorf("the kit's HTML lacks the escaped panic value")
				}
			}},
		"network-and-memory": {nb: solvedWith("gelu-code", "%%\n"+
			"conn, err := net.DialTimeout(\"tcp\", \"1.1.1.1:53\", 3*time.Second)\nfmt.Println(\"dial:\", conn, err)\n"+
			"b := make([]byte, 6<<30)\nfor i := range b {\n\tb[i] = 1\n}\nfmt.Println(\"allocated\", len(b))"),
			want: want{score: 4, cells: both, flags: []string{gradebook.FlagNetwork}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				out := cellText(executed, "dial:")
				if slices.Contains(e.Run.Isolation, "no network (unshare -n: a network namespace with loopback only)") && !strings.Contains(out, "network is unreachable") {
					t.Errorf("the dial did not fail for want of a network:\n%.500s", out)
				}
				if !strings.Contains(out, "out of memory") || strings.Contains(out, "allocated") {
					t.Errorf("the allocation was not stopped:\n%.500s", out)
				}
			}},
		"shell-magic": {nb: solvedWith("gelu-code", "!*go mod edit -replace=github.com/goagx/agx=/nonexistent\n!echo magic-ran"),
			want: want{score: 4, cells: both, flags: []string{gradebook.FlagMagic}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				if out := cellText(executed, "magic-ran"); out != "" {
					t.Errorf("a shell line ran: %q", out)
				}
			}},
		// The genuine result, intercepted on its way: gonbui finds GoNB's
		// display pipe through GONB_PIPE, which an initialiser points at a
		// FIFO of its own; it rewrites every check to pass and forwards the
		// result, genuine secret and all, to the real pipe.
		"intercept-result": {nb: blankWith("gelu-code", interceptCode),
			want: want{score: 0, flags: []string{gradebook.FlagInitializer, gradebook.FlagSelfRead}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				t.Logf("what the attack saw: %q", cellText(executed, "agx-attack:"))
				for _, c := range e.Cells {
					if c.Kind == "test" && c.Status != gradebook.StatusFailed && c.Status != gradebook.StatusRejected {
						t.Errorf("%s: %s, want failed or rejected", c.GradeID, c.Status)
					}
				}
			}},
		// GoNB strips "//gonb:" before it looks for ! and %, so these lines
		// would run: a shell command, and %goflags, which every later build
		// (the test cells') gets.
		"gonb-prefix-magic": {nb: solvedWith("gelu-code", "//gonb:!echo magic-ran\n//gonb:%goflags -toolexec=/bin/false"),
			want: want{score: 4, cells: both, flags: []string{gradebook.FlagMagic}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				if out := cellText(executed, "magic-ran"); out != "" {
					t.Errorf("a //gonb: shell line ran: %q", out)
				}
			}},
		// The go command reads a go env file in the kernel's (writable) home
		// for the keys the environment lacks: a build-time program there runs
		// while the test cell's secret file exists. /bin/false fails every
		// later build if it is used. Never as root: that would be root's file.
		"go-env-file": {nb: solvedWith("gelu-code", "%%\nif os.Getuid() != 0 {\n\td, _ := os.UserConfigDir()\n\tos.MkdirAll(filepath.Join(d, \"go\"), 0o755)\n"+
			"\terr := os.WriteFile(filepath.Join(d, \"go\", \"env\"), []byte(\"GOFLAGS=-toolexec=/bin/false\\nGOCACHEPROG=/bin/false\\nCC=/bin/false\\n\"), 0o644)\n"+
			"\tfmt.Println(\"go env written:\", err)\n}"),
			want: want{score: 4, cells: both, flags: []string{gradebook.FlagSelfRead}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				if out := cellText(executed, "go env written:"); !strings.Contains(out, "go env written: <nil>") {
					t.Errorf("the go env file was not written, so this case tests nothing: %q", out)
				}
			}},
		// A cell writes into GoNB's scratch module a go.mod that no go
		// command can use: every later cell would fail in the go command, a
		// failure of the grader's tooling (ungradable), not the student's.
		"break-go-mod": {nb: solvedWith("gelu-code", "%%\n"+scratchDir+
			"err := os.WriteFile(filepath.Join(agxDir, \"go.mod\"), []byte(\"module gonb_x\\n\\ngo 1.99\\n\\nrequire example.com/missing v1.0.0\\n\"), 0o644)\n"+
			"fmt.Println(\"go.mod written:\", err)"),
			want: want{score: 4, cells: both, flags: []string{gradebook.FlagSelfRead}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				if out := cellText(executed, "go.mod written:"); !strings.Contains(out, "go.mod written: <nil>") {
					t.Errorf("go.mod was not written, so this case tests nothing: %q", out)
				}
			}},
	}
	// A .syso file in the package turns off the compiler's check that every
	// function has a body: a body-less declaration then links to the
	// student's machine code, with no unsafe in sight. One cell writes it
	// into GoNB's scratch module, the next declares and calls such a
	// function; it must fail to compile.
	if syso := sysoObject(t); syso != "" {
		attacks["syso-bodyless"] = attack{nb: func() *notebook.Notebook {
			nb := solvedWith("gelu-code", "func agxNop()\n\n%%\nagxNop()\nfmt.Println(\"bodyless ran\")")
			nbtest.InsertAfter(t, nb, "gelu-code", "%%\n"+scratchDir+
				"b, _ := base64.StdEncoding.DecodeString(\""+syso+"\")\n"+
				"err := os.WriteFile(filepath.Join(agxDir, \"agx.syso\"), b, 0o644)\n"+
				"fmt.Println(\"syso written:\", err)")
			return nb
		}(), want: want{score: 4, cells: both, flags: []string{gradebook.FlagSelfRead}, toEnd: true},
			check: func(t *testing.T, e *gradebook.Entry, executed *notebook.Notebook) {
				if out := cellText(executed, "syso written:"); !strings.Contains(out, "syso written: <nil>") {
					t.Errorf("the .syso was not written, so this case tests nothing: %q", out)
				}
				if out := cellText(executed, "bodyless ran"); out != "" {
					t.Errorf("a body-less function ran: %q", out)
				}
				if !strings.Contains(allOutputs(executed), "missing function body") {
					t.Errorf("the body-less function did not fail to compile for want of a body")
				}
			}}
	}

	var subs []Submission
	for student, a := range attacks {
		subs = append(subs, writeNB(t, in, student, a.nb))
	}
	slices.SortFunc(subs, func(a, b Submission) int { return strings.Compare(a.Student, b.Student) })
	opt := testOptions(source, dir)
	opt.Jobs = 2
	opt.Log = testWriter{t}
	if docker != "" {
		opt.Docker, opt.Kernel, opt.Isolation = docker, "agx-go", IsolationStrict
		// Each container starts by copying the image's home into its own
		// volume (about 10 s of disk work), which other containers' builds overlap.
		opt.Jobs = 4
	}
	reapOrphans(t)
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("isolation: %q", sum.Isolation)
	if left := leftovers(); len(left) > 0 {
		t.Errorf("processes started for the submissions are still running after grading: %v", left)
	}
	dropped := slices.ContainsFunc(sum.Isolation, func(s string) bool {
		return strings.HasPrefix(s, "the kernel runs as ") && strings.Contains(s, "unprivileged user")
	})
	csv, err := os.ReadFile(filepath.Join(dir, gradebook.ClassFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sum.Entries {
		a := attacks[e.Student]
		t.Run(e.Student, func(t *testing.T) {
			if !dropped && (e.Student == "helper-process" || e.Student == "read-instructor-files" || e.Student == "go-env-file") {
				t.Skip("needs the kernel to run as a slot user (grading as root with setpriv and mount namespaces)")
			}
			checkEntry(t, e, a.want)
			// Every flag kind asked for shows in the class table's row.
			for _, line := range strings.Split(string(csv), "\n") {
				if strings.HasPrefix(line, e.Student+",") {
					for _, k := range a.want.flags {
						if !strings.Contains(line, k) {
							t.Errorf("%s lacks flag %s", gradebook.ClassFile, k)
						}
					}
				}
			}
			executed, err := notebook.Read(filepath.Join(dir, gradebook.ExecutedDir, e.Student+".ipynb"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(e.Student, "steal") || e.Student == "linkname" {
				t.Logf("what the attack saw: %q", cellText(executed, "agx-attack:"))
			}
			if a.check != nil {
				a.check(t, e, executed)
			}
		})
	}
	if len(sum.Entries) != len(attacks) {
		t.Errorf("%d entries for %d submissions", len(sum.Entries), len(attacks))
	}
}

// scratchDir is code that sets agxDir to GoNB's scratch module directory,
// where the cell's program is built.
const scratchDir = "agxDir := os.Getenv(\"GONB_TMP_DIR\")\nif agxDir == \"\" {\n\texe, _ := os.Executable()\n\tagxDir = filepath.Dir(exe)\n}\n"

// sysoObject returns, base64-encoded, an object file that defines
// main.agxNop as a bare return, made with the host's assembler ("" when there
// is none, or not for amd64 or arm64).
func sysoObject(t *testing.T) string {
	t.Helper()
	ret := map[string]string{"amd64": "ret", "arm64": "ret"}[runtime.GOARCH]
	as, err := exec.LookPath("as")
	if err != nil || ret == "" {
		t.Logf("no syso-bodyless case: no assembler for %s", runtime.GOARCH)
		return ""
	}
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "nop.s"), filepath.Join(dir, "nop.o")
	if err := os.WriteFile(src, []byte(".text\n.globl main.agxNop\nmain.agxNop:\n\t"+ret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "-o", obj, src).CombinedOutput(); err != nil {
		t.Logf("no syso-bodyless case: %v\n%s", err, out)
		return ""
	}
	b, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// allOutputs returns every output of nb's cells as text: streams, data and
// errors.
func allOutputs(nb *notebook.Notebook) string {
	var b strings.Builder
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			b.WriteString(o.Text)
			for _, mime := range []string{"text/plain", "text/html"} {
				if t, ok := o.DataText(mime); ok {
					b.WriteString(t)
				}
			}
			b.WriteString(o.Ename + ": " + o.Evalue + "\n" + strings.Join(o.Traceback, "\n"))
		}
	}
	return b.String()
}

// cellText returns the text outputs of the first code cell of nb whose
// outputs contain marker ("" when none does).
func cellText(nb *notebook.Notebook, marker string) string {
	for _, c := range nb.Cells {
		var b strings.Builder
		for _, o := range c.Outputs {
			b.WriteString(o.Text)
			if t, ok := o.DataText("text/plain"); ok {
				b.WriteString(t)
			}
		}
		if strings.Contains(b.String(), marker) {
			return b.String()
		}
	}
	return ""
}

// feedbackPage writes e's feedback page and returns it.
func feedbackPage(t *testing.T, e *gradebook.Entry) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := gradebook.WriteFeedback(dir, []*gradebook.Entry{e}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, e.Student+".html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
