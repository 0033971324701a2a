package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// ManifestName is the file, in the output directory of agx assign, that
// records the released cells of every notebook.
const ManifestName = ".agx-assign.json"

const assignUsage = `usage: agx assign -o DIR SOURCE.ipynb...

Writes the student version of each instructor source to DIR/NAME.ipynb:
solutions replaced by stubs, hidden tests removed, outputs and execution
counts cleared, locked cells marked undeletable and uneditable, and nbgrader
checksums recorded in each cell's metadata. It also writes DIR/` + ManifestName + `,
which maps each notebook's grade_ids to their kind, points and checksums (an
existing manifest keeps its other notebooks). Sources are validated first;
nothing is written when one is invalid. See docs/grading.md.

Flags:
`

// Manifest is the content of ManifestName: notebook file name -> grade_id ->
// entry.
type Manifest struct {
	Version   int                                  `json:"version"`
	Notebooks map[string]map[string]nbgrader.Entry `json:"notebooks"`
}

// assignCommand implements `agx assign`.
func assignCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agx assign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("o", "", "write the student versions and the manifest to `DIR` (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, assignUsage)
		fs.PrintDefaults()
	}
	paths, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	if *outDir == "" {
		return usageError{"-o DIR is required"}
	}
	if len(paths) == 0 {
		return usageError{"no notebooks given"}
	}

	jobs, err := studentVersions(paths)
	if err != nil {
		return err
	}

	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	manifestPath := filepath.Join(*outDir, ManifestName)
	man := Manifest{Version: 1, Notebooks: map[string]map[string]nbgrader.Entry{}}
	if b, err := os.ReadFile(manifestPath); err == nil {
		if err := json.Unmarshal(b, &man); err != nil {
			return fmt.Errorf("%s: %w", manifestPath, err)
		}
		if man.Notebooks == nil {
			man.Notebooks = map[string]map[string]nbgrader.Entry{}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, j := range jobs {
		out := filepath.Join(*outDir, j.name)
		if err := notebook.Write(out, j.student); err != nil {
			return err
		}
		man.Notebooks[j.name] = j.entries
		fmt.Fprintf(stdout, "%s: %s\n", out, gradedSummary(j.entries))
	}
	b, err := json.MarshalIndent(man, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(manifestPath, append(b, '\n'), 0o644)
}

// assignJob is the student version of one instructor source.
type assignJob struct {
	name    string // the file name it is written under
	student *notebook.Notebook
	entries map[string]nbgrader.Entry
}

// studentVersions validates the sources and makes their student versions
// (agx assign and agx release); it returns every problem found, joined.
func studentVersions(paths []string) ([]assignJob, error) {
	var jobs []assignJob
	var errs []error
	byName := map[string]string{}
	for _, p := range paths {
		name := filepath.Base(p)
		if prev, ok := byName[name]; ok {
			errs = append(errs, fmt.Errorf("%s and %s would both be written as %s", prev, p, name))
			continue
		}
		byName[name] = p
		src, err := notebook.Read(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		student, entries, err := nbgrader.Release(src)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:\n%w", p, err))
			continue
		}
		jobs = append(jobs, assignJob{name, student, entries})
	}
	return jobs, errors.Join(errs...)
}

// gradedSummary says how many cells of a release are graded and what they
// are worth: the maximum, as the gradebook has it, and the optional points.
func gradedSummary(entries map[string]nbgrader.Entry) string {
	cells, points, bonus := graded(entries)
	s := fmt.Sprintf("%d graded cells, %g points", cells, points)
	if bonus > 0 {
		s += fmt.Sprintf(" (and %g optional bonus points beyond that maximum)", bonus)
	}
	return s
}

// graded counts the graded cells of a release and their points: the
// maximum, as the gradebook has it, and the optional cells' points.
func graded(entries map[string]nbgrader.Entry) (cells int, points, bonus float64) {
	for _, e := range entries {
		if e.Kind == nbgrader.KindTest || e.Kind == nbgrader.KindManual || e.Kind == nbgrader.KindTask {
			cells++
			if e.Bonus {
				bonus += e.Points
			} else {
				points += e.Points
			}
		}
	}
	return cells, points, bonus
}
