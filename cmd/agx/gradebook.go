package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/goagx/agx/internal/coursebook"
	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/manualgrade"
)

const gradebookUsage = `usage: agx gradebook merge -o GRADEBOOK_DIR SLICE_DIR...
       agx gradebook course -o COURSE.csv [flags] ASSIGNMENT=GRADEBOOK_DIR...
       agx gradebook manual [-addr HOST:PORT] GRADEBOOK_DIR

merge: merges gradebooks graded separately, one per slice of a class (the
Kubernetes Job of docker/jupyterhub/grader-job.yaml writes one per index),
into GRADEBOOK_DIR: every STUDENT.json and executed/STUDENT.ipynb, the
overrides in GRADEBOOK_DIR/overrides.csv applied, and grades.csv written as
one agx autograde run over the whole class writes it. GRADEBOOK_DIR must hold
no entries yet. A student in two slices must have the same submission, source
and result in both; otherwise nothing is merged.

course: the course's gradebook, one row per student: the score of every
notebook of every assignment (one GRADEBOOK_DIR per notebook, named with its
assignment; the grades given by hand in overrides.csv included), each
assignment's late penalty by the policy of --late-penalty, --late-period and
--late-cap (how late each student was comes from --collect, the
collect-ASSIGNMENT.csv of agx exchange collect), the assignments' scores, the
total and the percentage. --format canvas writes Canvas's gradebook import
(one column per assignment and a Points Possible row); generic (the default)
every column, for Moodle's CSV import and spreadsheets. A student without a
submission gets 0 points and a note; cells graded by hand that have no grade
yet are noted.

manual: serves the page where the answers graded by hand (free text, plots,
explanations: the source's manual and task cells) are graded, student by
student, each answer as the executed notebook has it. Each grade and comment
is saved in GRADEBOOK_DIR/overrides.csv and applied to the entry and
grades.csv at once; agx feedback returns it. The server listens on
127.0.0.1 and wants the token of the URL it prints. See docs/grading.md.

Flags:
`

// gradebookCommand implements `agx gradebook`.
func gradebookCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agx gradebook merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the merged gradebook `DIR` (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, gradebookUsage)
		fs.PrintDefaults()
	}
	if len(args) > 0 && args[0] == "course" {
		return courseCommand(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "manual" {
		return manualCommand(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "merge" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fs.Usage()
			return nil
		}
		return usageError{"want a subcommand: merge, course or manual"}
	}
	slices, help, err := parseArgs(fs, args[1:])
	if help || err != nil {
		return err
	}
	switch {
	case *out == "":
		return usageError{"-o GRADEBOOK_DIR is required"}
	case len(slices) == 0:
		return usageError{"no gradebooks to merge"}
	}
	entries, warnings, err := gradebook.Merge(*out, slices)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agx gradebook: warning: %s\n", w)
	}
	printGradebook(stdout, entries)
	fmt.Fprintf(stdout, "merged %d %s from %d %s into %s\n", len(entries), plural(len(entries), "entry", "entries"),
		len(slices), plural(len(slices), "gradebook", "gradebooks"), *out)
	return nil
}

// courseCommand implements `agx gradebook course`.
func courseCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agx gradebook course", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the course gradebook to `FILE` (CSV; required)")
	format := fs.String("format", coursebook.FormatGeneric, "`FORMAT` of the CSV: generic (every column) or canvas (Canvas's gradebook import)")
	var policy coursebook.Policy
	fs.Float64Var(&policy.Percent, "late-penalty", 0, "`PERCENT` of an assignment's score taken off per started --late-period late (0: none)")
	fs.DurationVar(&policy.Period, "late-period", 24*time.Hour, "the `DURATION` each --late-penalty is for")
	fs.Float64Var(&policy.Cap, "late-cap", 100, "the most taken off for lateness, in `PERCENT`")
	var collects stringList
	fs.Var(&collects, "collect", "a `collect-ASSIGNMENT.csv` of agx exchange collect: how late each student was (repeat for each assignment)")
	fs.Usage = func() {
		fmt.Fprint(stderr, gradebookUsage)
		fs.PrintDefaults()
	}
	args, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	switch {
	case *out == "":
		return usageError{"-o COURSE.csv is required"}
	case len(args) == 0:
		return usageError{"no gradebooks: give ASSIGNMENT=GRADEBOOK_DIR for each notebook of each assignment"}
	case policy.Percent < 0 || policy.Percent > 100 || policy.Cap < 0 || policy.Cap > 100:
		return usageError{"--late-penalty and --late-cap are percents from 0 to 100"}
	case policy.Percent > 0 && policy.Period <= 0:
		return usageError{"--late-period must be positive"}
	case *format != coursebook.FormatGeneric && *format != coursebook.FormatCanvas:
		return usageError{"--format must be generic or canvas"}
	}
	var books []coursebook.Gradebook
	for _, a := range args {
		g, err := coursebook.ParseGradebook(a)
		if err != nil {
			return usageError{err.Error()}
		}
		books = append(books, g)
	}
	book, err := coursebook.Build(books, collects, policy)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := book.Write(&buf, *format); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o640); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-16s %9s  %s\n", "STUDENT", "TOTAL", "NOTES")
	for _, r := range book.Rows {
		fmt.Fprintf(stdout, "%-16s %4g/%-4g  %s\n", r.Student, r.Total, book.TotalMax, clipLine(strings.Join(r.Notes, " | "), 80))
	}
	fmt.Fprintf(stdout, "wrote %s: %d %s, %d %s\n", *out, len(book.Rows), plural(len(book.Rows), "student", "students"),
		len(book.Assignments), plural(len(book.Assignments), "assignment", "assignments"))
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// manualCommand implements `agx gradebook manual`.
func manualCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agx gradebook manual", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free one)")
	fs.Usage = func() {
		fmt.Fprint(stderr, gradebookUsage)
		fs.PrintDefaults()
	}
	args, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	if len(args) != 1 {
		return usageError{"give one gradebook directory"}
	}
	srv, err := manualgrade.NewServer(args[0])
	if err != nil {
		return err
	}
	answers, err := manualgrade.Answers(args[0])
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	fmt.Fprintf(stdout, "%d %s to grade by hand in %s; open\n  http://%s/?token=%s\n(Ctrl-C to stop)\n",
		len(answers), plural(len(answers), "answer", "answers"), args[0], ln.Addr(), srv.Token)
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
