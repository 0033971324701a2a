package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/goagx/agx/internal/autograde"
)

const gradebookUsage = `usage: agx gradebook merge -o GRADEBOOK_DIR SLICE_DIR...

merge: merges gradebooks graded separately, one per slice of a class (the
Kubernetes Job of docker/jupyterhub/grader-job.yaml writes one per index),
into GRADEBOOK_DIR: every STUDENT.json and executed/STUDENT.ipynb, the
overrides in GRADEBOOK_DIR/overrides.csv applied, and grades.csv written as
one agx autograde run over the whole class writes it. GRADEBOOK_DIR must hold
no entries yet. A student in two slices must have the same submission, source
and result in both; otherwise nothing is merged. See docs/grading.md.

Flags:
`

// gradebookCommand implements `agx gradebook`.
func gradebookCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agx gradebook merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the merged gradebook `DIR` (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, gradebookUsage)
		fs.PrintDefaults()
	}
	if len(args) == 0 || args[0] != "merge" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fs.Usage()
			return nil
		}
		return usageError{"want a subcommand: merge"}
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
	entries, warnings, err := autograde.Merge(*out, slices)
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
