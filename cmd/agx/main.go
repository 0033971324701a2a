// Command agx is the command-line tool of the agx notebooks.
//
// Usage:
//
//	agx COMMAND [flags] [arguments]
//
// Commands:
//
//	run        execute notebooks headless through Jupyter and check their outputs
//	assign     write the student versions of exercise notebooks
//	autograde  grade students' notebooks against the instructor source
//	feedback   write per-student HTML feedback from a gradebook
//	gradebook  merge the gradebooks of a class graded in slices (merge)
//	exchange   make a course's exchange (init) or show an assignment's status
//	release    publish the student versions of an assignment in the exchange
//	fetch      copy a released assignment into your workspace (student)
//	submit     submit your copy of an assignment (student)
//	collect    copy the latest submissions into nbgrader's submitted/ layout
//	return     give each student their feedback pages through the exchange
//	fetch-feedback copy your returned feedback into your workspace (student)
//	bench      time the performance workloads in agx and PyTorch and compare
//
// Run `agx COMMAND -h` for a command's flags. See docs/notebooks.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// A command is one subcommand of agx. run returns an error to report (exit
// status 1), a usageError for bad arguments (status 2) or errFailed when it has
// already reported its failures (status 1).
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"run", "execute notebooks headless through Jupyter and check their outputs", runCommand},
	{"assign", "write the student versions of exercise notebooks (solutions and hidden tests removed)", assignCommand},
	{"autograde", "grade students' notebooks against the instructor source (gradebook in a directory)", autogradeCommand},
	{"autograde-container", "grade one submission inside a grading container (run by autograde --docker)", autogradeContainerCommand},
	{"feedback", "write per-student HTML feedback from a gradebook", feedbackCommand},
	{"gradebook", "merge the gradebooks of a class graded in slices, one per Job (merge)", gradebookCommand},
	{"exchange", "instructor: make a course's exchange (init); student: an assignment's status", exchangeCommand},
	{"release", "instructor: publish the student versions of an assignment in the exchange", releaseCommand},
	{"fetch", "student: copy a released assignment into your workspace (never overwrites)", fetchCommand},
	{"submit", "student: submit your copy of an assignment (timestamped, checksummed)", submitCommand},
	{"collect", "instructor: the latest submissions into nbgrader's submitted/ layout, late ones marked", collectCommand},
	{"return", "instructor: give each student their feedback pages through the exchange", returnCommand},
	{"fetch-feedback", "student: copy your returned feedback pages into your workspace", fetchFeedbackCommand},
	{"bench", "time the performance workloads in agx and PyTorch, alternating, and compare", benchCommand},
}

// usageError is a problem with the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// errFailed means the command ran and has already printed why it failed.
var errFailed = errors.New("failed")

func main() {
	benchAsNotebook(os.Args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := agxMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// agxMain runs the command line args and returns the exit status.
func agxMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		var ue usageError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "agx %s: %s\nRun 'agx %s -h' for usage.\n", c.name, ue.msg, c.name)
			return 2
		case errors.Is(err, errFailed):
			return 1
		default:
			fmt.Fprintf(stderr, "agx %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "agx: unknown command %q\n", args[0])
	printUsage(stderr)
	return 2
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: agx COMMAND [flags] [arguments]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'agx COMMAND -h' for a command's flags.")
}
