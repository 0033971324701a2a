package exchange

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goagx/agx/grade"
)

// These tests run the exchange as one user (the instructor and the student
// are the same); cmd/agx's TestExchangePermissions runs it as separate Unix
// users.

func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"ps1", true}, {"week-2_gelu.v1", true}, {"a+b", true},
		{"", false}, {".hidden", false}, {"-x", false}, {"a/b", false}, {"..", false}, {"a b", false}, {strings.Repeat("a", 129), false},
	} {
		err := CheckName("assignment", c.name)
		if (err == nil) != c.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", c.name, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrBadName) {
			t.Errorf("CheckName(%q): %v is not ErrBadName", c.name, err)
		}
	}
}

// newCourse makes an exchange with the course initialised and ps1 released.
func newCourse(t *testing.T, deadline *time.Time) (Exchange, string) {
	t.Helper()
	dir := t.TempDir()
	x := Exchange{Root: filepath.Join(dir, "ex"), Course: "c1"}
	if _, err := x.Init(testGroup(t), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Release("ps1", map[string][]byte{"a.ipynb": []byte(`{"v":1}`), "data.csv": []byte("1,2\n")}, deadline); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return x, ws
}

func TestErrors(t *testing.T) {
	x, ws := newCourse(t, nil)
	missing := Exchange{Root: filepath.Join(t.TempDir(), "none"), Course: "c1"}
	for _, c := range []struct {
		name string
		run  func() error
		kind error
		says string
	}{
		{"no exchange", func() error { _, err := missing.Fetch(ws, "ps1"); return err }, ErrNoExchange, "agx exchange init"},
		{"not released", func() error { _, err := x.Fetch(ws, "ps2"); return err }, ErrNotReleased, "released: ps1"},
		{"submit unreleased", func() error { _, err := x.Submit(ws, "ps2"); return err }, ErrNotReleased, "nothing to fetch"},
		{"bad assignment", func() error { _, err := x.Fetch(ws, "../ps1"); return err }, ErrBadName, "one path element"},
		{"bad course", func() error { _, err := (Exchange{Root: x.Root, Course: ".c"}).Fetch(ws, "ps1"); return err }, ErrBadName, "course"},
		{"collect bad name", func() error { _, err := x.Collect("a/b", ws, nil); return err }, ErrBadName, "assignment"},
		{"release bad file", func() error { _, err := x.Release("ps1", map[string][]byte{".x": nil}, nil); return err }, ErrBadName, `".x"`},
		{"nothing to submit", func() error { _, err := x.Submit(ws, "ps1"); return err }, nil, "fetch the assignment first"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil {
				t.Fatal("no error")
			}
			if c.kind != nil && !errors.Is(err, c.kind) {
				t.Errorf("%v is not %v", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("%q does not say %q", err, c.says)
			}
		})
	}
}

func TestRefusedWhileGrading(t *testing.T) {
	x, ws := newCourse(t, nil)
	t.Setenv(grade.SecretEnv, filepath.Join(t.TempDir(), "secret"))
	for name, op := range map[string]func() error{
		"fetch":    func() error { _, err := x.Fetch(ws, "ps1"); return err },
		"submit":   func() error { _, err := x.Submit(ws, "ps1"); return err },
		"feedback": func() error { _, err := x.FetchFeedback(ws, "ps1"); return err },
		"cell":     func() error { return Submit("ps1") },
	} {
		if err := op(); !errors.Is(err, ErrGrading) {
			t.Errorf("%s while grading: %v, want ErrGrading", name, err)
		}
	}
	if ents, _ := os.ReadDir(ws); len(ents) != 0 {
		t.Errorf("something was fetched while grading: %v", ents)
	}
}

func TestFlow(t *testing.T) {
	deadline := time.Now().Add(time.Hour)
	x, ws := newCourse(t, &deadline)
	me, err := CurrentUser()
	if err != nil {
		t.Fatal(err)
	}
	f, err := x.Fetch(ws, "ps1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Fetched, ",") != "a.ipynb,data.csv" {
		t.Errorf("fetched %v", f.Fetched)
	}
	nb := filepath.Join(ws, "ps1", "a.ipynb")
	os.WriteFile(nb, []byte(`{"v":"mine"}`), 0o644)
	f, err = x.Fetch(ws, "ps1")
	if err != nil || len(f.Fetched) != 0 || len(f.Differs) != 1 || !strings.Contains(strings.Join(f.Lines(), "\n"), "kept your a.ipynb (it differs") {
		t.Errorf("second fetch: %+v %v", f, err)
	}
	if b, _ := os.ReadFile(nb); string(b) != `{"v":"mine"}` {
		t.Errorf("fetch overwrote the edit: %s", b)
	}

	s1, err := x.Submit(ws, "ps1")
	if err != nil || s1.Identical || s1.Late || s1.Count != 1 {
		t.Fatalf("submit: %+v %v", s1, err)
	}
	s2, err := x.Submit(ws, "ps1")
	if err != nil || !s2.Identical || !s2.Time.Equal(s1.Time) || !strings.Contains(s2.Lines()[0], "already submitted at") {
		t.Errorf("identical resubmission: %+v %v", s2, err)
	}
	os.WriteFile(nb, []byte(`{"v":"second"}`), 0o644)
	s3, err := x.Submit(ws, "ps1")
	if err != nil || s3.Identical || s3.Count != 2 {
		t.Fatalf("resubmit: %+v %v", s3, err)
	}
	st, err := x.Status(ws, "ps1")
	if err != nil || len(st.Submissions) != 2 || !st.Fetched || !st.Released {
		t.Errorf("status: %+v %v", st, err)
	}

	out := filepath.Join(t.TempDir(), "submitted")
	c, err := x.Collect("ps1", out, nil)
	if err != nil || len(c.Students) != 1 || c.Students[0].Late {
		t.Fatalf("collect: %+v %v", c, err)
	}
	got, _ := os.ReadFile(filepath.Join(out, me.Name, "ps1", "a.ipynb"))
	if string(got) != `{"v":"second"}` {
		t.Errorf("collected %s, want the latest", got)
	}
	// A deadline before the submissions marks them late.
	early := s1.Time.Add(-time.Minute)
	if c, err := x.Collect("ps1", out, &early); err != nil || !c.Students[0].Late {
		t.Errorf("collect with an earlier deadline: %+v %v", c, err)
	}
	if _, err := os.Stat(filepath.Join(out, me.Name, "ps1", "late.txt")); err != nil {
		t.Error(err)
	}

	// A latest submission whose file no longer matches its checksum does not
	// count: the one before it does.
	stamps, _ := filepath.Glob(filepath.Join(x.inbound(me.Name, "ps1"), "*", "a.ipynb"))
	last := stamps[len(stamps)-1]
	os.Chmod(last, 0o640)
	os.WriteFile(last, []byte(`{"v":"forged"}`), 0o640)
	c, err = x.Collect("ps1", out, nil)
	if err != nil || len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "checksum") {
		t.Fatalf("collect after tampering: %+v %v", c, err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, me.Name, "ps1", "a.ipynb")); string(got) != `{"v":"mine"}` {
		t.Errorf("collected %s, want the first submission", got)
	}

	// Feedback goes back; a symbolic link planted in the feedback area does
	// not lead the instructor's write elsewhere.
	fb := filepath.Join(t.TempDir(), "feedback")
	os.MkdirAll(filepath.Join(fb, me.Name, "ps1"), 0o755)
	os.WriteFile(filepath.Join(fb, me.Name, "ps1", "a.html"), []byte("<p>well done</p>"), 0o644)
	r, err := x.Return("ps1", fb)
	if err != nil || len(r.Returned[me.Name]) != 1 || len(r.Problems) != 0 {
		t.Fatalf("return: %+v %v", r, err)
	}
	ff, err := x.FetchFeedback(ws, "ps1")
	if err != nil || len(ff.Files) != 1 {
		t.Fatalf("fetch-feedback: %+v %v", ff, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "ps1", "feedback", "a.html")); string(b) != "<p>well done</p>" {
		t.Errorf("feedback copy: %q", b)
	}
	outside := t.TempDir()
	os.RemoveAll(x.feedback(me.Name, "ps1"))
	if err := os.Symlink(outside, x.feedback(me.Name, "ps1")); err != nil {
		t.Fatal(err)
	}
	if r, err := x.Return("ps1", fb); err != nil || len(r.Problems) != 1 {
		t.Errorf("return through a symbolic link: %+v %v", r, err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("return wrote outside the feedback area: %v", ents)
	}
}

func TestReleaseReplaces(t *testing.T) {
	x, _ := newCourse(t, nil)
	rel, err := x.Release("ps1", map[string][]byte{"b.ipynb": []byte("{}")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := visibleFiles(x.outbound("ps1"), "", false)
	if strings.Join(names, ",") != "b.ipynb" || len(rel.Files) != 1 {
		t.Errorf("after a new release: %v", names)
	}
	if got, _ := x.Released(); strings.Join(got, ",") != "ps1" {
		t.Errorf("Released = %v", got)
	}
}

func TestInitIdempotent(t *testing.T) {
	x := Exchange{Root: filepath.Join(t.TempDir(), "ex"), Course: "c1"}
	if _, err := x.Init(testGroup(t), nil); err != nil {
		t.Fatal(err)
	}
	os.Chmod(x.inbound(), 0o777) // broken by hand
	lines, err := x.Init(testGroup(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "fixed "+x.inbound()+" (3773)") || !strings.Contains(joined, "ok    "+x.outbound()) {
		t.Errorf("second init:\n%s", joined)
	}
	if _, err := x.Init("no-such-group-agx", nil); err == nil || !strings.Contains(err.Error(), "groupadd") {
		t.Errorf("unknown group: %v", err)
	}
}

func TestHTMLEscapes(t *testing.T) {
	h := HTML("agx <submit>", []string{`<script>alert(1)</script>`}, false)
	if strings.Contains(h, "<script>") || !strings.Contains(h, "&lt;script&gt;") || !strings.Contains(h, "#b00020") {
		t.Errorf("HTML: %s", h)
	}
}

// plant makes a submission by hand, as a student can without agx: a
// directory under inbound/STUDENT/ps1/ with files made by make (name ->
// maker) and a record listing sums (nil: computed from the files).
func plant(t *testing.T, x Exchange, stamp string, files map[string]func(path string) error, sums map[string]string) string {
	t.Helper()
	me, err := CurrentUser()
	if err != nil {
		t.Fatal(err)
	}
	dir := x.inbound(me.Name, "ps1", stamp)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	sub := Submission{Student: me.Name, UID: me.UID, Course: x.Course, Assignment: "ps1", Time: time.Now().UTC(), Files: sums}
	if sub.Files == nil {
		sub.Files = map[string]string{}
	}
	for n, mk := range files {
		p := filepath.Join(dir, n)
		if err := mk(p); err != nil {
			t.Fatal(err)
		}
		if _, ok := sub.Files[n]; !ok {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sub.Files[n] = Sum(b)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, SubmissionFile), marshal(sub), 0o640); err != nil {
		t.Fatal(err)
	}
	return dir
}

// collectWithin runs Collect and fails the test if it does not return in d.
func collectWithin(t *testing.T, x Exchange, out string, d time.Duration) *CollectResult {
	t.Helper()
	type result struct {
		r   *CollectResult
		err error
	}
	done := make(chan result, 1)
	go func() { r, err := x.Collect("ps1", out, nil); done <- result{r, err} }()
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("collect: %v", res.err)
		}
		return res.r
	case <-time.After(d):
		t.Fatalf("collect did not return in %v: it hangs on what the student planted", d)
	}
	return nil
}

// TestCollectRefusesPlanted: a student's hand-made latest submission that
// would hang collect (a FIFO, which blocks an open for reading until a
// writer comes) or make it read and write far more than a submission may
// hold (sparse files cost the student no disk; many files) is not counted,
// and the student's previous submission is.
func TestCollectRefusesPlanted(t *testing.T) {
	fifo := func(p string) error { return syscall.Mkfifo(p, 0o640) }
	sparse := func(p string) error {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Truncate(20 << 20)
	}
	zeros := Sum(make([]byte, 20<<20))
	small := func(p string) error { return os.WriteFile(p, []byte("{}"), 0o640) }
	many := map[string]func(string) error{}
	for i := 0; i <= MaxSubmissionFiles; i++ {
		many[fmt.Sprintf("n%03d.ipynb", i)] = small
	}
	for _, c := range []struct {
		name  string
		files map[string]func(string) error
		sums  map[string]string
		says  string
	}{
		{"fifo notebook", map[string]func(string) error{"a.ipynb": fifo}, map[string]string{"a.ipynb": Sum(nil)}, "not a regular file"},
		{"sparse notebooks over the total", map[string]func(string) error{"a.ipynb": sparse, "b.ipynb": sparse, "c.ipynb": sparse, "d.ipynb": sparse},
			map[string]string{"a.ipynb": zeros, "b.ipynb": zeros, "c.ipynb": zeros, "d.ipynb": zeros}, "add up to more than"},
		{"too many notebooks", many, nil, "more than the 256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, ws := newCourse(t, nil)
			if _, err := x.Fetch(ws, "ps1"); err != nil {
				t.Fatal(err)
			}
			if _, err := x.Submit(ws, "ps1"); err != nil {
				t.Fatal(err)
			}
			plant(t, x, "99990101T000000.000000000Z", c.files, c.sums)
			r := collectWithin(t, x, filepath.Join(t.TempDir(), "submitted"), 20*time.Second)
			if len(r.Students) != 1 || strings.Join(r.Students[0].Files, ",") != "a.ipynb" || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], c.says) {
				t.Errorf("collect: students %+v, problems %q; want the earlier submission and a problem saying %q", r.Students, r.Problems, c.says)
			}
		})
	}
	// A FIFO as the record itself.
	x, _ := newCourse(t, nil)
	me, _ := CurrentUser()
	dir := x.inbound(me.Name, "ps1", "99990101T000000.000000000Z")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, SubmissionFile), 0o640); err != nil {
		t.Fatal(err)
	}
	r := collectWithin(t, x, filepath.Join(t.TempDir(), "submitted"), 20*time.Second)
	if len(r.Students) != 0 || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "not a regular file") {
		t.Errorf("collect with a FIFO record: %+v", r)
	}
}

func TestSubmitTooManyNotebooks(t *testing.T) {
	x, ws := newCourse(t, nil)
	os.MkdirAll(filepath.Join(ws, "ps1"), 0o755)
	for i := 0; i <= MaxSubmissionFiles; i++ {
		os.WriteFile(filepath.Join(ws, "ps1", fmt.Sprintf("n%03d.ipynb", i)), []byte("{}"), 0o644)
	}
	if _, err := x.Submit(ws, "ps1"); err == nil || !strings.Contains(err.Error(), "more than the 256") {
		t.Errorf("submit of %d notebooks: %v", MaxSubmissionFiles+1, err)
	}
}

// swapOnce sets testHookChecked to replace path, the first time it is
// checked, by what swap makes (a student racing the instructor).
func swapOnce(t *testing.T, path string, swap func(path string) error) {
	t.Helper()
	done := false
	testHookChecked = func(p string) {
		if p == path && !done {
			done = true
			if err := swap(p); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(func() { testHookChecked = nil })
}

// TestSwappedAfterCheck: a student who owns a directory that agx (as the
// instructor or root) checked and then fixes or writes into swaps it, in
// the moment between, for a symbolic link to another place or for another
// directory of theirs. Nothing may change at the other place.
func TestSwappedAfterCheck(t *testing.T) {
	toLink := func(target string) func(string) error {
		return func(p string) error {
			if err := os.Rename(p, p+".moved"); err != nil {
				return err
			}
			return os.Symlink(target, p)
		}
	}
	toDir := func(p string) error {
		if err := os.Rename(p, p+".moved"); err != nil {
			return err
		}
		return os.Mkdir(p, 0o700)
	}
	for _, c := range []struct {
		name string
		swap func(victim string) func(string) error
	}{
		{"symbolic link", toLink},
		{"another directory", func(string) func(string) error { return toDir }},
	} {
		t.Run("init fixes "+c.name, func(t *testing.T) {
			x, _ := newCourse(t, nil)
			victim := t.TempDir()
			os.Chmod(victim, 0o700)
			me, _ := CurrentUser()
			mine := x.inbound(me.Name)
			if err := os.Mkdir(mine, 0o755); err != nil { // a mode init fixes
				t.Fatal(err)
			}
			swapOnce(t, mine, c.swap(victim))
			if _, err := ensureDir(mine, modeStudentI, me.UID, os.Getgid()); err == nil || !strings.Contains(err.Error(), "while agx fixed it") {
				t.Errorf("ensureDir on a swapped directory: %v", err)
			}
			if st, _ := os.Stat(victim); st.Mode()&modeBits != 0o700 {
				t.Errorf("the place the student pointed at got mode %s", modeString(st.Mode()&modeBits))
			}
			if st, _ := os.Lstat(mine); st.Mode().IsDir() && st.Mode()&modeBits == modeStudentI {
				t.Errorf("the directory swapped in got mode %s", modeString(st.Mode()&modeBits))
			}
		})
		t.Run("return writes "+c.name, func(t *testing.T) {
			x, ws := newCourse(t, nil)
			if _, err := x.Fetch(ws, "ps1"); err != nil { // makes the feedback area
				t.Fatal(err)
			}
			me, _ := CurrentUser()
			fb := filepath.Join(t.TempDir(), "feedback")
			os.MkdirAll(filepath.Join(fb, me.Name, "ps1"), 0o755)
			os.WriteFile(filepath.Join(fb, me.Name, "ps1", "a.html"), []byte("<p>yours</p>"), 0o644)
			victim := t.TempDir()
			swapOnce(t, x.feedback(me.Name), c.swap(victim))
			r, err := x.Return("ps1", fb)
			if err != nil || len(r.Returned) != 0 || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "was replaced") {
				t.Errorf("return into a swapped area: %+v %v", r, err)
			}
			if ents, _ := os.ReadDir(victim); len(ents) != 0 {
				t.Errorf("return wrote into the place the student pointed at: %v", ents)
			}
			if ents, _ := os.ReadDir(x.feedback(me.Name)); c.name == "another directory" && len(ents) != 0 {
				t.Errorf("return wrote into the directory swapped in: %v", ents)
			}
		})
	}
}

// TestOddNames: names a student chooses reach the instructor's terminal and
// the collected files. Terminal escapes and newlines in them (which could
// rewrite what collect shows, e.g. clear a line and print "all good") are
// shown quoted, and a notebook so named is not collected.
func TestOddNames(t *testing.T) {
	const esc = "x\x1b]0;owned\x07\x1b[2K\r\nall good\u202e"
	x, ws := newCourse(t, nil)
	if _, err := x.Fetch(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Submit(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	me, _ := CurrentUser()
	os.WriteFile(x.inbound(esc), nil, 0o644)                                        // an entry in inbound/
	os.MkdirAll(x.inbound(me.Name, "ps1", "99990101T000000.000000000Z"+esc), 0o750) // a stamp
	small := func(p string) error { return os.WriteFile(p, []byte("{}"), 0o640) }
	plant(t, x, "99990101T000000.000000000Y", map[string]func(string) error{esc + ".ipynb": small}, nil) // a notebook
	r := collectWithin(t, x, filepath.Join(t.TempDir(), "submitted"), 20*time.Second)
	for _, p := range r.Problems {
		if strings.ContainsAny(p, "\x1b\x07\r\n\u202e") {
			t.Errorf("a problem shows control characters: %q", p)
		}
	}
	if len(r.Problems) != 3 {
		t.Errorf("problems %q, want 3", r.Problems)
	}
	if len(r.Students) != 1 || strings.Join(r.Students[0].Files, ",") != "a.ipynb" {
		t.Errorf("collected %+v, want the submission made by agx", r.Students)
	}
	os.WriteFile(filepath.Join(ws, "ps1", esc+".ipynb"), []byte("{}"), 0o644)
	if _, err := x.Submit(ws, "ps1"); err == nil || !strings.Contains(err.Error(), "control characters") {
		t.Errorf("submit of a notebook with control characters in its name: %v", err)
	}
}

// TestChoosingAfterDeadline: a student who submitted more than once before
// the deadline removes, after it, the later submissions they no longer like
// (or renames a directory of submissions made under another name into
// place), so that an earlier one counts as on time. The change of the
// assignment's directory counts as the submission's time instead.
func TestChoosingAfterDeadline(t *testing.T) {
	me, _ := CurrentUser()
	submit := func(x Exchange, ws, content string) {
		t.Helper()
		os.WriteFile(filepath.Join(ws, "ps1", "a.ipynb"), []byte(content), 0o644)
		if _, err := x.Submit(ws, "ps1"); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		before func(x Exchange) // after the first submission, before the second
		after  func(x Exchange) error
	}{
		{"later submission removed", func(Exchange) {}, func(x Exchange) error {
			stamps, _ := filepath.Glob(filepath.Join(x.inbound(me.Name, "ps1"), "2*"))
			return os.RemoveAll(stamps[len(stamps)-1])
		}},
		{"draft renamed into place", func(x Exchange) {
			os.Rename(x.inbound(me.Name, "ps1"), x.inbound(me.Name, "ps1-draft"))
		}, func(x Exchange) error {
			if err := os.Rename(x.inbound(me.Name, "ps1"), x.inbound(me.Name, "ps1-late")); err != nil {
				return err
			}
			return os.Rename(x.inbound(me.Name, "ps1-draft"), x.inbound(me.Name, "ps1"))
		}},
	}
	xs := make([]Exchange, len(cases))
	for i, c := range cases {
		x, ws := newCourse(t, nil)
		if _, err := x.Fetch(ws, "ps1"); err != nil {
			t.Fatal(err)
		}
		submit(x, ws, `{"v":1}`)
		c.before(x)
		submit(x, ws, `{"v":2}`)
		xs[i] = x
	}
	time.Sleep(TimeTolerance + 100*time.Millisecond)
	deadline := time.Now()
	time.Sleep(10 * time.Millisecond)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.after(xs[i]); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "submitted")
			r, err := xs[i].Collect("ps1", out, &deadline)
			if err != nil || len(r.Students) != 1 {
				t.Fatalf("collect: %+v %v", r, err)
			}
			if b, _ := os.ReadFile(filepath.Join(out, me.Name, "ps1", "a.ipynb")); string(b) != `{"v":1}` {
				t.Errorf("collected %s, want the first submission", b)
			}
			if s := r.Students[0]; !s.Late || !strings.Contains(s.Note, "renamed into place") {
				t.Errorf("the first submission counts as on time after the change: %+v", s)
			}
		})
	}
}

// TestPrivateDirs: collect's output and return's input must be the
// instructor's own directories: in one that others can write (a careless
// `cd /tmp && agx collect`), a student could plant submitted/alice as a
// link to a directory of the instructor's, which collect would empty and
// fill.
func TestPrivateDirs(t *testing.T) {
	x, ws := newCourse(t, nil)
	if _, err := x.Fetch(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Submit(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	me, _ := CurrentUser()
	shared := filepath.Join(t.TempDir(), "submitted")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, 0o777)
	mine := t.TempDir()
	os.Mkdir(filepath.Join(mine, "ps1"), 0o755)
	os.WriteFile(filepath.Join(mine, "ps1", "thesis.tex"), []byte("years of work"), 0o644)
	os.Symlink(mine, filepath.Join(shared, me.Name)) // planted
	if _, err := x.Collect("ps1", shared, nil); err == nil || !strings.Contains(err.Error(), "others cannot write") {
		t.Errorf("collect into a directory others can write: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(mine, "ps1", "thesis.tex")); err != nil || string(b) != "years of work" {
		t.Errorf("collect emptied the directory a planted link led to: %q %v", b, err)
	}
	if _, err := x.Return("ps1", shared); err == nil || !strings.Contains(err.Error(), "others cannot write") {
		t.Errorf("return from a directory others can write: %v", err)
	}
}

// TestCollectCSVCells: names a student chooses go into collect's CSV, which
// instructors open in a spreadsheet. A cell starting with = + - @, a tab or
// a carriage return would be a formula there; the files column must tell
// "a b.ipynb" from "a.ipynb" and "b.ipynb".
func TestCollectCSVCells(t *testing.T) {
	x, ws := newCourse(t, nil)
	files := map[string][]byte{"=HYPERLINK(1).ipynb": []byte("{}"), "a b.ipynb": []byte("{}")}
	if _, err := x.Release("ps1", files, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Fetch(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Submit(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "submitted")
	r, err := x.Collect("ps1", out, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(r.CSV)
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("csv %q: %v", b, err)
	}
	if got := rows[1][6]; got != `'["=HYPERLINK(1).ipynb","a b.ipynb"]` && got != `["=HYPERLINK(1).ipynb","a b.ipynb"]` {
		t.Errorf("files cell %q", got)
	}
	for _, row := range rows {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("cell %q would be a formula", cell)
			}
		}
	}
	if got := csvCell("=1+1"); got != "'=1+1" {
		t.Errorf("csvCell(=1+1) = %q", got)
	}
}

// TestCollectDeadlineRecorded: submit says "on time" by the release's
// deadline; a collect --deadline that moves it is recorded in the release,
// so that what students see (submit, status) agrees with what collect rules.
func TestCollectDeadlineRecorded(t *testing.T) {
	later := time.Now().Add(time.Hour)
	x, ws := newCourse(t, &later)
	if _, err := x.Fetch(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	s, err := x.Submit(ws, "ps1")
	if err != nil || s.Late {
		t.Fatalf("submit: %+v %v", s, err)
	}
	earlier := s.Time.Add(-time.Minute).Truncate(time.Second)
	r, err := x.Collect("ps1", filepath.Join(t.TempDir(), "submitted"), &earlier)
	if err != nil || len(r.Students) != 1 || !r.Students[0].Late {
		t.Fatalf("collect: %+v %v", r, err)
	}
	rel, err := x.ReadRelease("ps1")
	if err != nil || rel.Deadline == nil || !rel.Deadline.Equal(earlier) {
		t.Errorf("the release's deadline after collect --deadline: %v %v, want %v", rel.Deadline, err, earlier)
	}
	s, err = x.Submit(ws, "ps1")
	if err != nil || !s.Late || !strings.Contains(strings.Join(s.Lines(), "\n"), "LATE") {
		t.Errorf("submit after collect --deadline: %+v %v", s, err)
	}
	if st, err := x.Status(ws, "ps1"); err != nil || !st.LastLate {
		t.Errorf("status after collect --deadline: %+v %v", st, err)
	}
}

// TestBrokenAfterDeadline: a student who submitted twice before the
// deadline breaks the later submission after it (a byte appended, its
// record removed, its files made unreadable) so that the earlier one would
// count, on time. The earlier one counts, but as submitted when the later
// one was broken: late, with a note and a problem naming it.
func TestBrokenAfterDeadline(t *testing.T) {
	me, _ := CurrentUser()
	breaks := []struct {
		name  string
		spoil func(dir string) error
	}{
		{"byte appended", func(dir string) error {
			f, err := os.OpenFile(filepath.Join(dir, "a.ipynb"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			f.Write([]byte(" "))
			return f.Close()
		}},
		{"record removed", func(dir string) error { return os.Remove(filepath.Join(dir, SubmissionFile)) }},
		{"record made a directory", func(dir string) error {
			os.Remove(filepath.Join(dir, SubmissionFile))
			return os.Mkdir(filepath.Join(dir, SubmissionFile), 0o700)
		}},
	}
	xs := make([]Exchange, len(breaks))
	for i := range breaks {
		x, ws := newCourse(t, nil)
		if _, err := x.Fetch(ws, "ps1"); err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{`{"v":1}`, `{"v":2}`} {
			os.WriteFile(filepath.Join(ws, "ps1", "a.ipynb"), []byte(v), 0o644)
			if _, err := x.Submit(ws, "ps1"); err != nil {
				t.Fatal(err)
			}
		}
		xs[i] = x
	}
	time.Sleep(TimeTolerance + 100*time.Millisecond)
	deadline := time.Now()
	time.Sleep(10 * time.Millisecond)
	for i, b := range breaks {
		t.Run(b.name, func(t *testing.T) {
			x := xs[i]
			stamps, _ := filepath.Glob(filepath.Join(x.inbound(me.Name, "ps1"), "2*"))
			if err := b.spoil(stamps[len(stamps)-1]); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "submitted")
			r, err := x.Collect("ps1", out, &deadline)
			if err != nil || len(r.Students) != 1 || len(r.Problems) != 1 {
				t.Fatalf("collect: %+v %v", r, err)
			}
			if s := r.Students[0]; !s.Late || !strings.Contains(s.Note, "not valid") {
				t.Errorf("the earlier submission counts on time once the later one is broken after the deadline: %+v", s)
			}
		})
	}
}

// readBytes is what the process has read so far (rchar of /proc/self/io).
func readBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	var n int64
	fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "rchar: %d", &n)
	return n
}

// TestCollectCost: junk a student makes for free costs collect little.
// Sparse files (no disk for the student) listed in hand-made submissions
// are not read; neither is a notebook the release did not name; thousands
// of junk entries are reported in a few lines.
func TestCollectCost(t *testing.T) {
	x, ws := newCourse(t, nil)
	if _, err := x.Fetch(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Submit(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	sparse := func(p string) error {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Truncate(63 << 20)
	}
	zeros := Sum(make([]byte, 63<<20))
	for i := 0; i < 6; i++ {
		plant(t, x, fmt.Sprintf("9999010%dT000000.000000000Z", i), map[string]func(string) error{"a.ipynb": sparse}, map[string]string{"a.ipynb": zeros + "0"})
		plant(t, x, fmt.Sprintf("9999020%dT000000.000000000Z", i), map[string]func(string) error{"other.ipynb": sparse}, map[string]string{"other.ipynb": zeros + "0"})
	}
	me, _ := CurrentUser()
	for i := 0; i < 1000; i++ {
		os.Mkdir(x.inbound(me.Name, "ps1", fmt.Sprintf("9999030%04dT000000.000000000Z", i)), 0o750)
		os.WriteFile(x.inbound(fmt.Sprintf("junk%04d", i)), nil, 0o644)
	}
	before := readBytes(t)
	r := collectWithin(t, x, filepath.Join(t.TempDir(), "submitted"), 60*time.Second)
	if read := readBytes(t) - before; read > 8<<20 {
		t.Errorf("collect read %d MiB", read>>20)
	}
	if len(r.Students) != 1 || len(r.Problems) > 20 {
		t.Errorf("collect: %d students, %d problems, want 1 and a summary:\n%s", len(r.Students), len(r.Problems), strings.Join(r.Problems, "\n"))
	}
}

// TestLinksInWorkingDir: the instructor runs collect or return in a
// directory a student can write, where the student planted `submitted` or
// `feedback` as a symbolic link to a directory of the instructor's (which
// passes as private) or to the homes' parent. Collect must not write into
// or delete from it; return must not read pages from it.
func TestLinksInWorkingDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipping: needs root to make a link owned by another user")
	}
	x, ws := newCourse(t, nil)
	if _, err := x.Fetch(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Submit(ws, "ps1"); err != nil {
		t.Fatal(err)
	}
	me, _ := CurrentUser()
	home := t.TempDir() // the instructor's, 0700
	os.MkdirAll(filepath.Join(home, me.Name, "ps1"), 0o755)
	os.WriteFile(filepath.Join(home, me.Name, "ps1", "thesis.tex"), []byte("years of work"), 0o644)
	os.WriteFile(filepath.Join(home, me.Name, "ps1", "a.html"), []byte("not feedback"), 0o644)
	for _, c := range []struct {
		name   string
		mode   os.FileMode
		linkBy int // the link's owner
	}{
		{"world-writable", 0o777, os.Getuid()},
		{"sticky, link of a student", 0o777 | os.ModeSticky, 4242},
	} {
		t.Run(c.name, func(t *testing.T) {
			shared := filepath.Join(t.TempDir(), "shared")
			os.Mkdir(shared, 0o700)
			os.Chmod(shared, c.mode)
			for _, n := range []string{"submitted", "feedback"} {
				os.Symlink(home, filepath.Join(shared, n))
				os.Lchown(filepath.Join(shared, n), c.linkBy, c.linkBy)
			}
			t.Chdir(shared)
			if _, err := x.Collect("ps1", "submitted", nil); err == nil {
				t.Error("collect through a planted link: no error")
			}
			if b, err := os.ReadFile(filepath.Join(home, me.Name, "ps1", "thesis.tex")); err != nil || string(b) != "years of work" {
				t.Errorf("collect emptied the directory a planted link led to: %q %v", b, err)
			}
			if r, err := x.Return("ps1", "feedback"); err == nil {
				t.Errorf("return through a planted link: %+v", r)
			}
		})
	}
}

// squat makes path as another user (uid 4242) would, with a subdirectory
// for ps1 that anyone may write, and returns that subdirectory held open,
// as the squatter's process would hold it.
func squat(t *testing.T, path string) *os.File {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(path, "ps1"), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(path, "ps1")} {
		os.Chmod(p, 0o777)
		if err := os.Chown(p, 4242, 4242); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(filepath.Join(path, "ps1"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestSquatting: another student makes a student's feedback/ or inbound/
// entry first, with a subdirectory anyone may write, and holds it open.
// After the repair (init --students, as root) the squatter must read none
// of the feedback returned; return must not write into a subdirectory that
// is not the instructor's; submit must refuse to submit into a directory
// that is not the student's alone (collect would count nothing of it).
func TestSquatting(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipping: needs root to act as another user")
	}
	me, _ := CurrentUser()
	feedback := func(t *testing.T) string {
		fb := filepath.Join(t.TempDir(), "feedback")
		os.MkdirAll(filepath.Join(fb, me.Name, "ps1"), 0o755)
		os.WriteFile(filepath.Join(fb, me.Name, "ps1", "a.html"), []byte("<p>yours</p>"), 0o644)
		return fb
	}
	t.Run("init repairs feedback", func(t *testing.T) {
		x, _ := newCourse(t, nil)
		held := squat(t, x.feedback(me.Name))
		lines, err := x.Init(tempGroup(t), []string{me.Name})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := x.Return("ps1", feedback(t)); err != nil || len(r.Returned) != 1 {
			t.Fatalf("return: %+v %v\n%s", r, err, strings.Join(lines, "\n"))
		}
		if names, _ := held.Readdirnames(-1); len(names) != 0 {
			t.Errorf("the squatter reads %v through the directory held open", names)
		}
	})
	t.Run("return checks the assignment's directory", func(t *testing.T) {
		x, ws := newCourse(t, nil)
		if _, err := x.Fetch(ws, "ps1"); err != nil {
			t.Fatal(err)
		}
		os.Mkdir(x.feedback(me.Name, "ps1"), 0o777)
		os.Chmod(x.feedback(me.Name, "ps1"), 0o777)
		os.Chown(x.feedback(me.Name, "ps1"), 4242, 4242)
		if r, err := x.Return("ps1", feedback(t)); err != nil || len(r.Returned) != 0 || len(r.Problems) != 1 {
			t.Errorf("return into a directory of another user's: %+v %v", r, err)
		}
		if ents, _ := os.ReadDir(x.feedback(me.Name, "ps1")); len(ents) != 0 {
			t.Errorf("return wrote %v into it", ents)
		}
	})
	t.Run("submit checks inbound", func(t *testing.T) {
		x, ws := newCourse(t, nil)
		if _, err := x.Fetch(ws, "ps1"); err != nil {
			t.Fatal(err)
		}
		os.Mkdir(x.inbound(me.Name, "ps1"), 0o777)
		os.Chmod(x.inbound(me.Name, "ps1"), 0o777)
		os.Chown(x.inbound(me.Name, "ps1"), 4242, 4242)
		if s, err := x.Submit(ws, "ps1"); err == nil || !strings.Contains(err.Error(), "uid 4242") {
			t.Errorf("submit into a directory of another user's: %+v %v", s, err)
		}
	})
}

// testGroup is the group newCourse gives the course: the caller's primary
// group.
func testGroup(t *testing.T) string {
	g, err := user.LookupGroupId(strconv.Itoa(os.Getgid()))
	if err != nil {
		t.Fatal(err)
	}
	return g.Name
}

// TestUntrustedRoot: on an exchange root that anyone may write (as
// nbgrader's docs set theirs up), a student can rename the course directory
// away and put their own in its place (no sticky bit), or make the course
// directory before init (sticky bit). init must refuse both, never keeping
// a directory another user made; fetch and submit must refuse a course
// directory that is not the instructors' or that others may write.
func TestUntrustedRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipping: needs root to act as another user")
	}
	newRoot := func(t *testing.T, mode os.FileMode) Exchange {
		x := Exchange{Root: filepath.Join(t.TempDir(), "ex"), Course: "c1"}
		os.Mkdir(x.Root, 0o700)
		os.Chmod(x.Root, mode)
		return x
	}
	t.Run("init on a root anyone may write", func(t *testing.T) {
		x := newRoot(t, 0o777)
		if _, err := x.Init(testGroup(t), nil); err == nil || !strings.Contains(err.Error(), "sticky") {
			t.Errorf("init: %v, want a refusal naming the sticky bit", err)
		}
	})
	t.Run("init on a course directory another user made", func(t *testing.T) {
		x := newRoot(t, 0o777|os.ModeSticky)
		os.Mkdir(x.Dir(), 0o755)
		os.Chown(x.Dir(), 4242, 4242)
		if _, err := x.Init(testGroup(t), nil); err == nil || !strings.Contains(err.Error(), "uid 4242") {
			t.Errorf("init: %v, want a refusal naming the owner", err)
		}
		if st, _ := os.Stat(x.Dir()); statT(st).Uid != 4242 && st.Mode()&modeBits == modeCourse {
			t.Error("init fixed the student's directory as the course's")
		}
	})
	t.Run("init on a sticky root", func(t *testing.T) {
		x := newRoot(t, 0o777|os.ModeSticky)
		if _, err := x.Init(testGroup(t), nil); err != nil {
			t.Errorf("init: %v", err)
		}
	})
	for _, c := range []struct {
		name  string
		spoil func(x Exchange)
		says  string
	}{
		{"root anyone may write", func(x Exchange) { os.Chmod(x.Root, 0o777) }, "sticky"},
		{"course directory of another user in a root anyone may write", func(x Exchange) {
			os.Chmod(x.Root, 0o777|os.ModeSticky)
			os.Chown(x.Dir(), 4242, 4242)
		}, "uid 4242"},
		{"course directory others may write", func(x Exchange) { os.Chmod(x.Dir(), 0o777) }, "0777"},
	} {
		t.Run("fetch and submit: "+c.name, func(t *testing.T) {
			x, ws := newCourse(t, nil)
			if _, err := x.Fetch(ws, "ps1"); err != nil {
				t.Fatal(err)
			}
			c.spoil(x)
			if _, err := x.Fetch(ws, "ps1"); err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("fetch: %v, want a refusal saying %q", err, c.says)
			}
			if _, err := x.Submit(ws, "ps1"); err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("submit: %v, want a refusal saying %q", err, c.says)
			}
		})
	}
}

// TestInitGroup: the instructors' group must be the course's own: not a
// group students share (users, the primary group of several users), and
// none of the students listed may be in it.
func TestInitGroup(t *testing.T) {
	x := Exchange{Root: filepath.Join(t.TempDir(), "ex"), Course: "c1"}
	if _, err := user.LookupGroup("users"); err == nil {
		if _, err := x.Init("users", nil); err == nil || !strings.Contains(err.Error(), "shared") {
			t.Errorf("init --group users: %v, want a refusal", err)
		}
	}
	me, _ := CurrentUser()
	if _, err := x.Init(testGroup(t), []string{me.Name}); os.Geteuid() == 0 && (err == nil || !strings.Contains(err.Error(), me.Name)) {
		t.Errorf("init with a student in the group: %v, want a refusal naming the student", err)
	}
}

// tempGroup makes a group for the test, with no members, and removes it
// afterwards.
func tempGroup(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("groupadd"); err != nil {
		t.Skip("skipping: no groupadd")
	}
	name := "agxt" + randHex(4)
	if out, err := exec.Command("groupadd", name).CombinedOutput(); err != nil {
		t.Fatalf("groupadd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("groupdel", name).Run() })
	return name
}
