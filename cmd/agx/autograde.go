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

	"github.com/goagx/agx/internal/autograde"
	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/jupyter"
)

const autogradeUsage = `usage: agx autograde --source SOURCE.ipynb -o GRADEBOOK_DIR [flags] SUBMISSION...

Grades students' notebooks against the instructor source. A SUBMISSION is a
notebook STUDENT.ipynb, or a directory with one directory per student holding
the notebook under the source's name (DIR/STUDENT/NAME.ipynb), or nbgrader's
submitted/ directory (submitted/STUDENT/ASSIGNMENT/NAME.ipynb).

Each submission is rebuilt from the source (locked and test cells restored,
hidden tests re-inserted, deleted test cells re-added, the source's cell
order, the student's answer cells by grade_id, outputs cleared), every test
cell gets a fresh secret (handed to its program only while it runs), and the
notebook runs through Jupyter with the Go kernel under time, output, memory
and file-size limits, without network, as a user of its own with a private
/tmp (as root; see --isolation: when any of that cannot be set up, nobody
is graded unless --isolation=best-effort asks for less by name). With
--docker IMAGE, each submission is graded in a fresh container of the
grader image instead, isolated without CAP_SYS_ADMIN. Scores
come from the source's points and each test cell's one result carrying its
secret (any other result voids the cell). GRADEBOOK_DIR gets STUDENT.json per
student, grades.csv for the class, executed/STUDENT.ipynb, and the overrides
in overrides.csv are applied. A submission whose entry is up to date (same
submission and source) is kept unless --force. See docs/grading.md.

Flags:
`

// autogradeCommand implements `agx autograde`.
func autogradeCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, f := newAutogradeFlags(stderr)
	paths, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	if err := f.check(paths); err != nil {
		return err
	}
	opt := f.options(stderr)

	subs, warnings, err := autograde.FindSubmissionsOf(filepath.Base(opt.Source), f.assignment, paths)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agx autograde: %s\n", w)
	}
	if len(subs) == 0 {
		return usageError{"no submissions found"}
	}
	sum, err := autograde.Grade(ctx, opt, subs)
	if err != nil {
		return err
	}
	return reportGrading(stdout, stderr, sum)
}

// autogradeFlags holds the parsed flags of agx autograde: the options
// taken as they are, and the sizes and assignment still to convert.
type autogradeFlags struct {
	opt                                autograde.Options
	memMiB, fileMiB, outKiB, dockerMiB int
	assignment                         string
}

// newAutogradeFlags defines the flags of agx autograde on a new flag set.
func newAutogradeFlags(stderr io.Writer) (*flag.FlagSet, *autogradeFlags) {
	f := &autogradeFlags{}
	opt := &f.opt
	fs := flag.NewFlagSet("agx autograde", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opt.Source, "source", "", "the instructor source `notebook` (required)")
	fs.StringVar(&opt.Dir, "o", "", "the gradebook `DIR` (required)")
	fs.StringVar(&opt.Kernel, "kernel", DefaultKernel, "Jupyter kernelspec `name` to run the notebooks with")
	fs.StringVar(&opt.Python, "python", jupyter.DefaultPython, "Python `interpreter` that has nbclient (Debian's)")
	fs.DurationVar(&opt.CellTimeout, "cell-timeout", 120*time.Second, "time limit per cell (a cold Go build takes ~30s)")
	fs.DurationVar(&opt.Timeout, "timeout", 10*time.Minute, "time limit per notebook")
	fs.IntVar(&opt.Jobs, "j", 2, "grade `N` submissions at once")
	fs.BoolVar(&opt.Force, "force", false, "regrade submissions whose entry is up to date")
	fs.StringVar(&f.assignment, "assignment", "", "in nbgrader's layout, read DIR/STUDENT/`ASSIGNMENT`/NAME.ipynb (default: the one assignment directory that holds NAME.ipynb)")
	fs.IntVar(&f.memMiB, "memory", 4096, "address-space limit of each kernel process, in `MiB` (0: none)")
	fs.IntVar(&opt.Limits.Procs, "procs", 2048, "process and thread limit of the kernel's user (as root, the kernel runs as a user of its own so that it binds; 0: none)")
	fs.IntVar(&f.fileMiB, "file-size", 1024, "largest file a kernel process may write, in `MiB` (0: none)")
	fs.IntVar(&f.outKiB, "max-output", 1024, "output kept per cell, in `KiB` (0: no cap)")
	fs.StringVar(&opt.Limits.Network, "net", autograde.NetAuto, "network: auto or none (no network, or refuse to grade), host (the host's network)")
	fs.StringVar(&opt.Docker, "docker", "", "grade each submission in a fresh container of the grader `IMAGE` (docker run: no network, read-only root, "+
		"process and memory limits, no CAP_SYS_ADMIN needed; docs/grading.md)")
	fs.IntVar(&f.dockerMiB, "docker-memory", autograde.DefaultContainerMemory>>20, "with --docker, the memory limit of each container, in `MiB`")
	fs.StringVar(&opt.Isolation, "isolation", autograde.IsolationStrict, "strict: grade only with every measure in force, or nobody; "+
		autograde.IsolationBestEffort+": grade with what this machine allows, and say in every entry what was missing")
	fs.Usage = func() {
		fmt.Fprint(stderr, autogradeUsage)
		fs.PrintDefaults()
	}
	return fs, f
}

// check rejects missing required flags, no submission paths, and values
// out of range.
func (f *autogradeFlags) check(paths []string) error {
	opt := &f.opt
	switch {
	case opt.Source == "":
		return usageError{"--source is required"}
	case opt.Dir == "":
		return usageError{"-o GRADEBOOK_DIR is required"}
	case len(paths) == 0:
		return usageError{"no submissions given"}
	case opt.Jobs < 1:
		return usageError{"-j must be at least 1"}
	case opt.CellTimeout <= 0 || opt.Timeout <= 0:
		return usageError{"the time limits must be positive"}
	case f.memMiB < 0 || f.fileMiB < 0 || f.outKiB < 0 || opt.Limits.Procs < 0:
		return usageError{"limits must not be negative"}
	case opt.Limits.Network != autograde.NetAuto && opt.Limits.Network != autograde.NetNone && opt.Limits.Network != autograde.NetHost:
		return usageError{"--net must be auto, none or host"}
	case opt.Isolation != autograde.IsolationStrict && opt.Isolation != autograde.IsolationBestEffort:
		return usageError{"--isolation must be " + autograde.IsolationStrict + " or " + autograde.IsolationBestEffort}
	case opt.Docker != "" && opt.Isolation == autograde.IsolationBestEffort:
		return usageError{"--docker isolates with the container or grades nobody: --isolation=" + autograde.IsolationBestEffort + " does not apply"}
	case f.dockerMiB < 256:
		return usageError{"--docker-memory must be at least 256 MiB"}
	}
	return nil
}

// options returns the grading options with the sizes in bytes and the
// log going to stderr.
func (f *autogradeFlags) options(stderr io.Writer) autograde.Options {
	opt := f.opt
	opt.ContainerMemory = int64(f.dockerMiB) << 20
	opt.Limits.MemoryBytes = int64(f.memMiB) << 20
	opt.Limits.FileBytes = int64(f.fileMiB) << 20
	opt.MaxOutputBytes = f.outKiB << 10
	opt.Log = stderr
	return opt
}

// reportGrading prints the grading's warnings and gradebook, and what
// needs the students or the instructor; it fails when a submission was
// ungradable.
func reportGrading(stdout, stderr io.Writer, sum *autograde.Summary) error {
	for _, w := range sum.Warnings {
		fmt.Fprintf(stderr, "agx autograde: warning: %s\n", w)
	}
	printGradebook(stdout, sum.Entries)
	if sum.Invalid > 0 {
		fmt.Fprintf(stderr, "agx autograde: %d %s not this assignment's notebook (status unreadable or wrong_notebook); the students should resubmit\n",
			sum.Invalid, plural(sum.Invalid, "submission is", "submissions are"))
	}
	if sum.Ungradable > 0 {
		fmt.Fprintf(stderr, "agx autograde: %d %s ungradable (see ungradable_reason in their entries); fix the cause and run again\n",
			sum.Ungradable, plural(sum.Ungradable, "submission is", "submissions are"))
		return errFailed
	}
	return nil
}

// printGradebook prints the class table: student, status, total, flags.
func printGradebook(w io.Writer, entries []*gradebook.Entry) {
	fmt.Fprintf(w, "%-16s %-10s %9s  %s\n", "STUDENT", "STATUS", "SCORE", "FLAGS")
	for _, e := range entries {
		flags := ""
		for i, f := range e.Flags {
			if i > 0 {
				flags += " "
			}
			flags += f.Kind
		}
		fmt.Fprintf(w, "%-16s %-10s %4g/%-4g  %s\n", e.Student, e.Status, e.Score, e.MaxScore, clipLine(flags, 60))
	}
}

const feedbackUsage = `usage: agx feedback GRADEBOOK_DIR -o DIR [--nbgrader ASSIGNMENT]

Writes DIR/STUDENT.html for every entry of the gradebook: totals, each graded
cell with its visible checks and messages, hidden checks with their points
only, instructor overrides and their comments, restored cells and flags.
With --nbgrader, the pages go where nbgrader keeps feedback:
DIR/STUDENT/ASSIGNMENT/NOTEBOOK.html (DIR is nbgrader's feedback/).
Everything shown is HTML-escaped. See docs/grading.md.

Flags:
`

// feedbackCommand implements `agx feedback`.
func feedbackCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agx feedback", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the feedback pages to `DIR` (required)")
	nbg := fs.String("nbgrader", "", "write nbgrader's layout DIR/STUDENT/`ASSIGNMENT`/NOTEBOOK.html")
	fs.Usage = func() {
		fmt.Fprint(stderr, feedbackUsage)
		fs.PrintDefaults()
	}
	paths, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	if *out == "" {
		return usageError{"-o DIR is required"}
	}
	if len(paths) != 1 {
		return usageError{"give one gradebook directory"}
	}
	if *nbg != "" && (*nbg != filepath.Base(*nbg) || strings.HasPrefix(*nbg, ".")) {
		return usageError{"--nbgrader wants an assignment name"}
	}
	entries, err := gradebook.ReadEntries(paths[0])
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("%s has no gradebook entries", paths[0])
	}
	var written []string
	switch {
	case *nbg != "":
		written, err = gradebook.WriteFeedbackTo(entries, gradebook.NbgraderFeedbackPath(*out, *nbg))
	default:
		written, err = gradebook.WriteFeedback(*out, entries)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d feedback %s to %s\n", len(written), plural(len(written), "page", "pages"), *out)
	return nil
}

const autogradeContainerUsage = `usage: agx autograde-container < REQUEST

Run by agx autograde --docker in each grading container, never by hand: reads
one request (the source and one submission) on standard input, grades it
with the container as the isolation (it checks each measure first and
refuses when one is missing), and writes the gradebook entry and the
executed notebook to standard output. See docs/grading.md.
`

// autogradeContainerCommand implements `agx autograde-container`.
func autogradeContainerCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		fmt.Fprint(stderr, autogradeContainerUsage)
		if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
			return nil
		}
		return usageError{"agx autograde-container takes no arguments"}
	}
	return autograde.ServeContainer(ctx, os.Stdin, stdout, stderr)
}
