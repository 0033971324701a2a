package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goagx/agx/grade/exchange"
)

// The exchange commands: agx exchange init|status, release, fetch, submit,
// collect, return, fetch-feedback. The work is done by package
// grade/exchange, which notebook cells use too.

const exchangeCommon = `
The exchange is the directory --exchange (default $` + exchange.RootEnv + `, else ` + exchange.DefaultRoot + `);
the course is --course (default $` + exchange.CourseEnv + `, else ` + exchange.DefaultCourse + `). Students are
identified by their Unix user name. See docs/grading.md ("The exchange").

Flags:
`

// exchangeFlags adds --exchange and --course to fs.
func exchangeFlags(fs *flag.FlagSet) *exchange.Exchange {
	x := exchange.FromEnv()
	fs.StringVar(&x.Root, "exchange", x.Root, "the exchange `DIR` (shared by courses)")
	fs.StringVar(&x.Course, "course", x.Course, "the course `ID`")
	return &x
}

// newFlags makes a command's flag set with its usage text.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("agx "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage+exchangeCommon)
		fs.PrintDefaults()
	}
	return fs
}

// oneAssignment checks that args is one assignment name.
func oneAssignment(args []string) (string, error) {
	if len(args) != 1 {
		return "", usageError{"give one assignment"}
	}
	if err := exchange.CheckName("assignment", args[0]); err != nil {
		return "", usageError{err.Error()}
	}
	return args[0], nil
}

// parseDeadline parses an RFC 3339 time ("" is none).
func parseDeadline(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--deadline %q: want an RFC 3339 time such as 2025-03-01T23:59:00+01:00 or 2025-03-01T22:59:00Z", s)}
	}
	return &t, nil
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

const exchangeUsage = `usage: agx exchange init [--group G] [--students A,B,...]
       agx exchange status [-C WORKSPACE] ASSIGNMENT

init (instructor or root) makes the course's tree in the exchange: outbound/
(2775), inbound/ and feedback/ (3773: students make their own directory there
and cannot list the others'), owned by you with the group G (default: the
course's own group agx-COURSE, which init makes when run as root), which must
hold the instructors and no student: a shared group (users, the primary group
of several users, one holding a student listed) is refused. It refuses an
exchange root that others may write without the sticky bit, and a course
directory another user made. It is idempotent: it fixes modes and group, and
prints what it made. As root, --students makes each student's inbound/ and
feedback/ directory, owned by them, so that nobody takes their name first
(one that another user made is moved aside, never reused).

status (student) says whether ASSIGNMENT is released, its deadline, whether
you fetched and submitted it (when, late or not) and whether feedback is back.
`

// exchangeCommand implements `agx exchange init|status`.
func exchangeCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("exchange", exchangeUsage, stderr)
	x := exchangeFlags(fs)
	group := fs.String("group", "", "init: the instructors' `group` (default: agx-COURSE)")
	students := fs.String("students", "", "init, as root: comma-separated `users` whose directories to make")
	ws := fs.String("C", ".", "status: the `WORKSPACE` that holds the assignment's directory")
	rest, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	if len(rest) == 0 {
		return usageError{"give a subcommand: init or status"}
	}
	switch rest[0] {
	case "init":
		if len(rest) != 1 {
			return usageError{"init takes no arguments"}
		}
		var list []string
		for _, s := range strings.Split(*students, ",") {
			if s = strings.TrimSpace(s); s != "" {
				list = append(list, s)
			}
		}
		lines, err := x.Init(*group, list)
		printLines(stdout, lines)
		return err
	case "status":
		a, err := oneAssignment(rest[1:])
		if err != nil {
			return err
		}
		r, err := x.Status(*ws, a)
		if err != nil {
			return err
		}
		printLines(stdout, r.Lines())
		return nil
	}
	return usageError{fmt.Sprintf("unknown subcommand %q (init or status)", rest[0])}
}

const releaseUsage = `usage: agx release [--deadline RFC3339] ASSIGNMENT SOURCE.ipynb [FILE...]

(instructor) Makes the student version of each instructor source, as agx
assign does (sources validated first; nothing is released when one is
invalid), and publishes them as ASSIGNMENT in outbound/ASSIGNMENT/ of the
exchange, readable by all, writable only by you. Other files (data) are
released as they are. A release replaces the previous one of ASSIGNMENT;
students keep what they fetched. --deadline is recorded in the release: a
submission after it is late.
`

// releaseCommand implements `agx release`.
func releaseCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("release", releaseUsage, stderr)
	x := exchangeFlags(fs)
	deadlineFlag := fs.String("deadline", "", "the submission deadline, an RFC 3339 `time` (2025-03-01T23:59:00+01:00)")
	rest, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	if len(rest) < 2 {
		return usageError{"give the assignment and its sources"}
	}
	a := rest[0]
	if err := exchange.CheckName("assignment", a); err != nil {
		return usageError{err.Error()}
	}
	deadline, err := parseDeadline(*deadlineFlag)
	if err != nil {
		return err
	}
	var sources, others []string
	for _, p := range rest[1:] {
		if strings.HasSuffix(p, ".ipynb") {
			sources = append(sources, p)
		} else {
			others = append(others, p)
		}
	}
	if len(sources) == 0 {
		return usageError{"no notebooks given"}
	}
	jobs, err := studentVersions(sources)
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	var lines []string
	for _, j := range jobs {
		b, err := j.student.Marshal()
		if err != nil {
			return err
		}
		files[j.name] = b
		lines = append(lines, j.name+": "+gradedSummary(j.entries))
	}
	for _, p := range others {
		name := filepath.Base(p)
		if _, dup := files[name]; dup {
			return fmt.Errorf("%s: two files would be released as %s", p, name)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[name] = b
		lines = append(lines, name+": as it is")
	}
	rel, err := x.Release(a, files, deadline)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "released %s in %s:\n", a, filepath.Join(x.Dir(), "outbound", a))
	for _, l := range lines {
		fmt.Fprintf(stdout, "  %s\n", l)
	}
	if rel.Deadline != nil {
		fmt.Fprintf(stdout, "deadline %s\n", rel.Deadline.Format(time.RFC3339))
	} else {
		fmt.Fprintln(stdout, "no deadline")
	}
	return nil
}

// lineser is a student command's result: what it prints.
type lineser interface{ Lines() []string }

// studentCommand runs a student's command of the form `agx NAME [-C
// WORKSPACE] ASSIGNMENT`: the exchange flags, the workspace, one assignment,
// and the result's lines on stdout.
func studentCommand(name, usage, wsHelp string, args []string, stdout, stderr io.Writer,
	run func(x *exchange.Exchange, ws, assignment string) (lineser, error)) error {
	fs := newFlags(name, usage, stderr)
	x := exchangeFlags(fs)
	ws := fs.String("C", ".", wsHelp)
	rest, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	a, err := oneAssignment(rest)
	if err != nil {
		return err
	}
	r, err := run(x, *ws, a)
	if err != nil {
		return err
	}
	printLines(stdout, r.Lines())
	return nil
}

const fetchUsage = `usage: agx fetch [-C WORKSPACE] ASSIGNMENT

(student) Copies the released ASSIGNMENT into WORKSPACE/ASSIGNMENT/ (default:
the current directory). A file you already have is never overwritten: it is
kept, and named.
`

func fetchCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	return studentCommand("fetch", fetchUsage, "the `WORKSPACE` that gets the assignment's directory", args, stdout, stderr,
		func(x *exchange.Exchange, ws, a string) (lineser, error) { return x.Fetch(ws, a) })
}

const submitUsage = `usage: agx submit [-C WORKSPACE] ASSIGNMENT

(student) Submits the notebooks of WORKSPACE/ASSIGNMENT/ (*.ipynb; default
WORKSPACE: the current directory) with their SHA-256 sums and the time, as
your user. You may submit again; the latest submission counts. An unchanged
assignment is not submitted twice. After the release's deadline a submission
is marked late.
`

func submitCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	return studentCommand("submit", submitUsage, "the `WORKSPACE` that holds the assignment's directory", args, stdout, stderr,
		func(x *exchange.Exchange, ws, a string) (lineser, error) { return x.Submit(ws, a) })
}

const collectUsage = `usage: agx collect [-o DIR] [--deadline RFC3339] ASSIGNMENT

(instructor) Copies each student's latest submission of ASSIGNMENT into
nbgrader's layout DIR/STUDENT/ASSIGNMENT/ (default DIR: submitted), with
timestamp.txt and, when it is late, late.txt, replacing an earlier
collection; writes DIR/collect-ASSIGNMENT.csv (student, timestamp, deadline,
late, late_seconds, submissions, files, note). A submission counts only when
it and its files belong to the student, it is complete and every checksum
matches; its time is the recorded one unless its files changed later (then
that change's time). --deadline overrides the release's and is recorded
in the release, so that students' submit and status use it. Then grade with
agx autograde --assignment ASSIGNMENT ... DIR.
`

func collectCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("collect", collectUsage, stderr)
	x := exchangeFlags(fs)
	out := fs.String("o", "submitted", "the `DIR` of collected submissions (nbgrader's submitted/)")
	deadlineFlag := fs.String("deadline", "", "the deadline, an RFC 3339 `time`, instead of the release's")
	rest, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	a, err := oneAssignment(rest)
	if err != nil {
		return err
	}
	deadline, err := parseDeadline(*deadlineFlag)
	if err != nil {
		return err
	}
	r, err := x.Collect(a, *out, deadline)
	if r != nil {
		for _, p := range r.Problems {
			fmt.Fprintf(stderr, "agx collect: %s\n", p)
		}
	}
	if err != nil {
		return err
	}
	if r.Moved {
		fmt.Fprintf(stdout, "deadline of %s set to %s in the release (students' submit and status use it)\n", a, r.Deadline.Format(time.RFC3339))
	}
	if len(r.Students) == 0 {
		fmt.Fprintf(stdout, "no submissions of %s yet\n", a)
		return nil
	}
	fmt.Fprintf(stdout, "%-16s %-25s %-5s %s\n", "STUDENT", "SUBMITTED", "LATE", "FILES")
	late := 0
	for _, c := range r.Students {
		l := "no"
		if c.Late {
			l, late = "late by "+c.LateBy.Round(time.Second).String(), late+1
		}
		fmt.Fprintf(stdout, "%-16s %-25s %-5s %s\n", c.Student, c.Time.Local().Format("2006-01-02 15:04:05 MST"), l, strings.Join(c.Files, " "))
		if c.Note != "" {
			fmt.Fprintf(stdout, "  note: %s\n", c.Note)
		}
	}
	fmt.Fprintf(stdout, "collected %d %s into %s (%d late); table in %s\n", len(r.Students), plural(len(r.Students), "student", "students"), *out, late, r.CSV)
	return nil
}

const returnUsage = `usage: agx return [--feedback DIR] ASSIGNMENT

(instructor) Copies each student's feedback pages, DIR/STUDENT/ASSIGNMENT/*.html
(default DIR: feedback, as agx feedback --nbgrader ASSIGNMENT -o feedback
writes it), into that student's own feedback directory in the exchange,
which only they and the instructors can read.
`

func returnCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("return", returnUsage, stderr)
	x := exchangeFlags(fs)
	dir := fs.String("feedback", "feedback", "the feedback `DIR` in nbgrader's layout")
	rest, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	a, err := oneAssignment(rest)
	if err != nil {
		return err
	}
	r, err := x.Return(a, *dir)
	if err != nil {
		return err
	}
	for _, p := range r.Problems {
		fmt.Fprintf(stderr, "agx return: %s\n", p)
	}
	n := 0
	for _, pages := range r.Returned {
		n += len(pages)
	}
	fmt.Fprintf(stdout, "returned %d feedback %s of %s to %d %s\n", n, plural(n, "page", "pages"), a, len(r.Returned), plural(len(r.Returned), "student", "students"))
	if len(r.Problems) > 0 {
		return errFailed
	}
	if len(r.Returned) == 0 {
		return fmt.Errorf("no feedback pages in %s/STUDENT/%s/ (make them with agx feedback --nbgrader %s -o %s GRADEBOOK)", *dir, a, a, *dir)
	}
	return nil
}

const fetchFeedbackUsage = `usage: agx fetch-feedback [-C WORKSPACE] ASSIGNMENT

(student) Copies your returned feedback pages of ASSIGNMENT into
WORKSPACE/ASSIGNMENT/feedback/ (replacing earlier copies).
`

func fetchFeedbackCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	return studentCommand("fetch-feedback", fetchFeedbackUsage, "the `WORKSPACE` that holds the assignment's directory", args, stdout, stderr,
		func(x *exchange.Exchange, ws, a string) (lineser, error) { return x.FetchFeedback(ws, a) })
}
