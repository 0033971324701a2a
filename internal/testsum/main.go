// Command testsum runs `go test -json` and prints what a plain `go test` would
// (package lines, the output of failed tests, build errors), then the tests
// that were skipped and a closing count. `make test` runs every `go test`
// through it, and ends with the total over all of them:
//
//	go run ./internal/testsum [-tally FILE] [go test flags] [packages]
//	go run ./internal/testsum -total FILE
//
// The first form ends with "go test: N passed, N failed, N skipped" and exits
// with go test's status; with -tally it also appends its counts and skipped
// tests to FILE (one JSON line per run). The second form prints every skipped
// test recorded in FILE and, as its last line, "N passed, N failed, N skipped";
// it exits 1 when a run recorded a failure or FILE holds no run.
//
// Tests count with their subtests and examples; a package that fails without a
// failed test (a build error, a crash outside a test) counts as one failure.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

func main() {
	args := os.Args[1:]
	if len(args) == 2 && args[0] == "-total" {
		os.Exit(total(os.Stdout, os.Stderr, args[1]))
	}
	tally := ""
	if len(args) >= 2 && args[0] == "-tally" {
		tally, args = args[1], args[2:]
	}
	os.Exit(run("", args, tally, os.Stdout, os.Stderr))
}

// run executes go test -json args in dir ("": the current directory),
// summarizes its events on w and records them in tally (when not "").
func run(dir string, args []string, tally string, w, errw io.Writer) int {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Dir, cmd.Stdin, cmd.Stderr = dir, os.Stdin, errw
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(errw, "testsum:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(errw, "testsum:", err)
		return 2
	}
	s := newSummary(w)
	readErr := s.read(stdout)
	waitErr := cmd.Wait()
	status := 0
	if waitErr != nil {
		status = 1
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) && exit.ExitCode() > 0 {
			status = exit.ExitCode()
		}
	}
	if readErr != nil {
		fmt.Fprintln(errw, "testsum: reading go test's output:", readErr)
		status = max(status, 1)
	}
	res := s.finish(status)
	res.Label = "go test " + strings.Join(args, " ")
	if tally != "" {
		if err := appendTally(tally, res); err != nil {
			fmt.Fprintln(errw, "testsum:", err)
			status = max(status, 1)
		}
	}
	if status == 0 && res.Failed > 0 {
		status = 1
	}
	return status
}

// event is one line of go test -json (cmd/test2json's TestEvent).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output
}

// result is what one run of go test adds up to.
type result struct {
	Label   string   `json:"label"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
	Fails   []string `json:"fails,omitempty"`
	Skips   []string `json:"skips,omitempty"`
}

// line is one line of test output and the test it belongs to ("": the package).
type line struct{ test, text string }

// pkgState collects a package's output until the package ends.
type pkgState struct {
	lines      []line
	done       map[string]string // test -> pass, fail or skip
	failedTest bool
}

type summary struct {
	w     io.Writer
	pkgs  map[string]*pkgState
	order []string // packages in the order they started
	res   result
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, pkgs: map[string]*pkgState{}}
}

func (s *summary) pkg(name string) *pkgState {
	p := s.pkgs[name]
	if p == nil {
		p = &pkgState{done: map[string]string{}}
		s.pkgs[name] = p
		s.order = append(s.order, name)
	}
	return p
}

// read consumes go test -json output; lines that are not events pass through.
func (s *summary) read(r io.Reader) error {
	br := bufio.NewReader(r)
	for {
		text, err := br.ReadString('\n')
		if text != "" {
			s.handle(text)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (s *summary) handle(text string) {
	var e event
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &e) != nil || e.Action == "" {
		fmt.Fprint(s.w, text)
		return
	}
	switch e.Action {
	case "build-output":
		fmt.Fprint(s.w, e.Output)
	case "output":
		p := s.pkg(e.Package)
		p.lines = append(p.lines, line{e.Test, e.Output})
	case "pass", "fail", "skip":
		p := s.pkg(e.Package)
		if e.Test == "" {
			s.flush(e.Package, e.Action)
			return
		}
		p.done[e.Test] = e.Action
		name := e.Package + " " + e.Test
		switch e.Action {
		case "pass":
			s.res.Passed++
		case "fail":
			s.res.Failed++
			s.res.Fails = append(s.res.Fails, name)
			p.failedTest = true
		case "skip":
			s.res.Skipped++
			if why := skipReason(p.lines, e.Test); why != "" {
				name += ": " + why
			}
			s.res.Skips = append(s.res.Skips, name)
		}
	default: // start, run, pause, cont, bench, build-fail
		if e.Package != "" {
			s.pkg(e.Package)
		}
	}
}

// framing reports whether text is one of the lines -json adds to a test's
// output (plain go test prints them only with -v).
func framing(text string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// skipReason is the first line that test logged, its skip message.
func skipReason(lines []line, test string) string {
	for _, l := range lines {
		if l.test == test && !framing(l.text) && !strings.HasPrefix(strings.TrimSpace(l.text), "--- SKIP") {
			return strings.TrimSpace(l.text)
		}
	}
	return ""
}

// flush prints the package's output as plain go test would: its own lines
// (bar a bare PASS) and the output of its failed tests, or of the tests it
// never finished when it failed. A failed test's output starts with its
// "--- FAIL" line, indented by its subtest depth.
func (s *summary) flush(name, action string) {
	p := s.pkgs[name]
	if p == nil {
		return
	}
	shown := map[string]bool{}
	for _, l := range p.lines {
		switch st := p.done[l.test]; {
		case l.test == "":
			if l.text != "PASS\n" {
				fmt.Fprint(s.w, l.text)
			}
		case shown[l.test]:
		case st == "fail", st == "" && action == "fail":
			shown[l.test] = true
			s.printTest(p, l.test)
		}
	}
	if action == "fail" && !p.failedTest {
		s.res.Failed++
		s.res.Fails = append(s.res.Fails, name)
	}
	delete(s.pkgs, name)
}

// printTest prints test's "--- FAIL" line and then the rest of its output.
func (s *summary) printTest(p *pkgState, test string) {
	indent := strings.Repeat("    ", strings.Count(test, "/"))
	isHeader := func(l line) bool {
		return l.test == test && strings.HasPrefix(strings.TrimSpace(l.text), "--- FAIL: "+test+" ")
	}
	if i := slices.IndexFunc(p.lines, isHeader); i >= 0 {
		fmt.Fprint(s.w, indent+strings.TrimLeft(p.lines[i].text, " "))
	}
	for _, l := range p.lines {
		if l.test == test && !framing(l.text) && !isHeader(l) {
			fmt.Fprint(s.w, indent+l.text)
		}
	}
}

// finish flushes packages that never ended (go test was killed), adds a
// failure when go test failed without a failed test, prints the skipped and
// failed tests and the closing count, and returns the result.
func (s *summary) finish(status int) result {
	for _, name := range s.order {
		if _, open := s.pkgs[name]; open {
			fmt.Fprintf(s.w, "testsum: %s did not finish\n", name)
			s.flush(name, "fail")
		}
	}
	if status != 0 && s.res.Failed == 0 {
		s.res.Failed++
		s.res.Fails = append(s.res.Fails, fmt.Sprintf("go test exited with status %d", status))
	}
	printList(s.w, "skipped", s.res.Skips)
	printList(s.w, "failed", s.res.Fails)
	fmt.Fprintf(s.w, "go test: %s\n", counts(s.res))
	return s.res
}

func printList(w io.Writer, what string, names []string) {
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "%s (%d):\n", what, len(names))
	for _, n := range names {
		fmt.Fprintf(w, "    %s\n", n)
	}
}

func counts(r result) string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", r.Passed, r.Failed, r.Skipped)
}

func appendTally(path string, r result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// total prints the skipped tests of every run recorded in path and the sum of
// their counts, and returns the exit status.
func total(w, errw io.Writer, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(errw, "testsum:", err)
		return 1
	}
	var sum result
	runs := 0
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var r result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			fmt.Fprintf(errw, "testsum: %s:%d: %v\n", path, i+1, err)
			return 1
		}
		runs++
		sum.Passed += r.Passed
		sum.Failed += r.Failed
		sum.Skipped += r.Skipped
		for _, n := range r.Fails {
			sum.Fails = append(sum.Fails, n+" ("+r.Label+")")
		}
		for _, n := range r.Skips {
			sum.Skips = append(sum.Skips, n+" ("+r.Label+")")
		}
	}
	if runs == 0 {
		fmt.Fprintf(errw, "testsum: %s records no go test run\n", path)
		return 1
	}
	printList(w, fmt.Sprintf("skipped in %d go test runs", runs), sum.Skips)
	printList(w, fmt.Sprintf("failed in %d go test runs", runs), sum.Fails)
	fmt.Fprintln(w, counts(sum))
	if sum.Failed > 0 {
		return 1
	}
	return 0
}
