package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// events writes go test -json lines: each step is "Action Package Test" (Test
// may be absent) followed, for output, by "|" and the text.
func events(steps ...string) string {
	var b strings.Builder
	for _, st := range steps {
		head, text, _ := strings.Cut(st, "|")
		f := strings.Fields(head)
		e := map[string]string{"Action": f[0]}
		if len(f) > 1 {
			e["Package"] = f[1]
		}
		if len(f) > 2 {
			e["Test"] = f[2]
		}
		if f[0] == "output" || f[0] == "build-output" {
			e["Output"] = text + "\n"
		}
		if f[0] == "build-output" {
			e["ImportPath"], e["Package"] = e["Package"], ""
		}
		j, _ := json.Marshal(e)
		b.Write(append(j, '\n'))
	}
	return b.String()
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		name    string
		input   string
		status  int // go test's exit status
		want    result
		printed []string // lines of the output, in order
		hidden  []string // text that must not be printed
	}{
		{
			name: "passing package",
			input: events("start p", "run p TestA", "output p TestA|=== RUN   TestA", "output p TestA|    a_test.go:3: chatter",
				"output p TestA|--- PASS: TestA (0.00s)", "pass p TestA", "output p|PASS", "output p|ok  \tp\t0.01s", "pass p"),
			want:    result{Passed: 1},
			printed: []string{"ok  \tp\t0.01s", "go test: 1 passed, 0 failed, 0 skipped"},
			hidden:  []string{"chatter", "=== RUN", "PASS\n", "skipped (", "failed ("},
		},
		{
			name: "skips are counted and named with their reason",
			input: events("start p", "output p TestS|=== RUN   TestS", "output p TestS|    s_test.go:9: Graphviz is not installed",
				"output p TestS|--- SKIP: TestS (0.00s)", "skip p TestS",
				"output p TestT/sub|--- SKIP: TestT/sub (0.00s)", "skip p TestT/sub", "pass p TestT",
				"output p|ok  \tp\t0.01s", "pass p"),
			want: result{Passed: 1, Skipped: 2, Skips: []string{"p TestS: s_test.go:9: Graphviz is not installed", "p TestT/sub"}},
			printed: []string{"ok  \tp\t0.01s", "skipped (2):", "    p TestS: s_test.go:9: Graphviz is not installed", "    p TestT/sub",
				"go test: 1 passed, 0 failed, 2 skipped"},
		},
		{
			name: "a failed subtest prints like plain go test",
			input: events("start p", "output p TestA|=== RUN   TestA", "output p TestA/bad|=== RUN   TestA/bad",
				"output p TestA/bad|    a_test.go:6: bad thing", "output p TestA/bad|        second line",
				"output p TestA/bad|--- FAIL: TestA/bad (0.00s)", "fail p TestA/bad",
				"output p TestA/ok|--- PASS: TestA/ok (0.00s)", "pass p TestA/ok",
				"output p TestA|--- FAIL: TestA (0.00s)", "fail p TestA",
				"output p|FAIL", "output p|FAIL\tp\t0.01s", "fail p"),
			status: 1,
			want:   result{Passed: 1, Failed: 2, Fails: []string{"p TestA/bad", "p TestA"}},
			printed: []string{"--- FAIL: TestA (0.00s)", "    --- FAIL: TestA/bad (0.00s)", "        a_test.go:6: bad thing",
				"            second line", "FAIL", "FAIL\tp\t0.01s", "failed (2):", "go test: 1 passed, 2 failed, 0 skipped"},
			hidden: []string{"TestA/ok", "=== RUN"},
		},
		{
			name: "a build failure counts as one failure",
			input: events("start q", "build-output q|# q [q.test]", "build-output q|./q_test.go:3:28: undefined: f",
				"build-fail q", "output q|FAIL\tq [build failed]", "fail q"),
			status:  1,
			want:    result{Failed: 1, Fails: []string{"q"}},
			printed: []string{"# q [q.test]", "./q_test.go:3:28: undefined: f", "FAIL\tq [build failed]", "go test: 0 passed, 1 failed, 0 skipped"},
		},
		{
			name: "a crash prints the unfinished test",
			input: events("start p", "output p TestDone|--- PASS: TestDone (0.00s)", "pass p TestDone",
				"output p TestBoom|=== RUN   TestBoom", "output p TestBoom|panic: boom", "output p|FAIL\tp\t0.01s", "fail p"),
			status:  1,
			want:    result{Passed: 1, Failed: 1, Fails: []string{"p"}},
			printed: []string{"panic: boom", "FAIL\tp\t0.01s", "go test: 1 passed, 1 failed, 0 skipped"},
		},
		{
			name:    "a package that never ends fails",
			input:   events("start p", "output p TestHang|=== RUN   TestHang", "output p TestHang|    h_test.go:5: waiting"),
			status:  2,
			want:    result{Failed: 1, Fails: []string{"p"}},
			printed: []string{"testsum: p did not finish", "    h_test.go:5: waiting", "go test: 0 passed, 1 failed, 0 skipped"},
		},
		{
			name:    "go test fails without a test event",
			input:   "no Go files in /x\n",
			status:  1,
			want:    result{Failed: 1, Fails: []string{"go test exited with status 1"}},
			printed: []string{"no Go files in /x", "go test: 0 passed, 1 failed, 0 skipped"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			s := newSummary(&out)
			if err := s.read(strings.NewReader(tc.input)); err != nil {
				t.Fatal(err)
			}
			got := s.finish(tc.status)
			if got.Passed != tc.want.Passed || got.Failed != tc.want.Failed || got.Skipped != tc.want.Skipped ||
				!slices.Equal(got.Fails, tc.want.Fails) || !slices.Equal(got.Skips, tc.want.Skips) {
				t.Errorf("result %+v, want %+v", got, tc.want)
			}
			lines := strings.Split(out.String(), "\n")
			if last := lines[len(lines)-2]; last != tc.printed[len(tc.printed)-1] {
				t.Errorf("last line %q, want %q", last, tc.printed[len(tc.printed)-1])
			}
			i := 0
			for _, l := range lines {
				if i < len(tc.printed) && l == tc.printed[i] {
					i++
				}
			}
			if i < len(tc.printed) {
				t.Errorf("output lacks %q (in this order after the earlier lines):\n%s", tc.printed[i], out.String())
			}
			for _, h := range tc.hidden {
				if strings.Contains(out.String(), h) {
					t.Errorf("output shows %q:\n%s", h, out.String())
				}
			}
		})
	}
}

func TestTotal(t *testing.T) {
	runs := []result{
		{Label: "go test ./...", Passed: 10, Skipped: 1, Skips: []string{"p TestS: reason"}},
		{Label: "go test -race ./p", Passed: 4},
	}
	for _, tc := range []struct {
		name    string
		runs    []result
		extra   string // appended to the tally file
		status  int
		printed []string
	}{
		{"sums the runs", runs, "", 0, []string{"skipped in 2 go test runs (1):", "    p TestS: reason (go test ./...)", "14 passed, 0 failed, 1 skipped"}},
		{"a failure", append(slices.Clone(runs), result{Label: "go test ./q", Passed: 1, Failed: 1, Fails: []string{"q TestF"}}), "", 1,
			[]string{"skipped in 3 go test runs (1):", "    p TestS: reason (go test ./...)", "failed in 3 go test runs (1):", "    q TestF (go test ./q)", "15 passed, 1 failed, 1 skipped"}},
		{"no runs", nil, "", 1, nil},
		{"a broken line", runs, "{not json\n", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tally")
			for _, r := range tc.runs {
				if err := appendTally(path, r); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tc.extra)
			f.Close()
			var out, errs bytes.Buffer
			if got := total(&out, &errs, path); got != tc.status {
				t.Errorf("status %d, want %d (stderr %q)", got, tc.status, errs.String())
			}
			if tc.status != 0 && tc.printed == nil && errs.Len() == 0 {
				t.Errorf("no error message")
			}
			if want := strings.Join(tc.printed, "\n"); tc.printed != nil && strings.TrimSpace(out.String()) != want {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
			}
		})
	}
}

// TestRun runs go test on a small module through run, as make test does.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test (-short)")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module demo\n\ngo 1.22\n",
		"demo_test.go": `package demo

import "testing"

func TestPass(t *testing.T) { t.Log("not shown") }
func TestSkip(t *testing.T) { t.Skip("no tool here") }
func TestFail(t *testing.T) {
	t.Run("ok", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Error("wrong answer") })
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tally := filepath.Join(t.TempDir(), "tally")
	var out, errs bytes.Buffer
	if got := run(dir, []string{"-count=1", "."}, tally, &out, &errs); got != 1 {
		t.Errorf("status %d, want 1 (stderr %q)", got, errs.String())
	}
	for _, want := range []string{
		"--- FAIL: TestFail (", "    --- FAIL: TestFail/bad (", "        demo_test.go:9: wrong answer", "FAIL\tdemo\t",
		"skipped (1):\n    demo TestSkip: demo_test.go:6: no tool here\n",
		"failed (2):\n    demo TestFail/bad\n    demo TestFail\ngo test: 2 passed, 2 failed, 1 skipped\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "not shown") {
		t.Errorf("a passing test's log is shown:\n%s", out.String())
	}
	b, err := os.ReadFile(tally)
	if err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Label != "go test -count=1 ." || r.Passed != 2 || r.Failed != 2 || r.Skipped != 1 {
		t.Errorf("tally %+v, want go test -count=1 .: 2 passed, 2 failed, 1 skipped", r)
	}
}
