// Package coursebook makes the course's gradebook: the gradebooks of every
// notebook of every assignment (agx autograde's directories) in one table,
// one row per student, with the late penalty of the instructor's policy
// applied per assignment from the exchange's collect records, and the
// grades given by hand (overrides) included. It writes the table as CSV in
// the shape learning-management systems import.
package coursebook

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goagx/agx/internal/gradebook"
)

// Policy is the late penalty: Percent of an assignment's score per started
// Period late, at most Cap percent. The zero Policy takes nothing off.
type Policy struct {
	Percent float64
	Period  time.Duration
	Cap     float64
}

// Penalty is the fraction of a score taken off for a submission late by d.
func (p Policy) Penalty(d time.Duration) float64 {
	if d <= 0 || p.Percent <= 0 || p.Period <= 0 {
		return 0
	}
	periods := math.Ceil(float64(d) / float64(p.Period))
	most := p.Cap
	if most <= 0 || most > 100 {
		most = 100
	}
	return math.Min(most, p.Percent*periods) / 100
}

// Gradebook is one notebook's gradebook directory, in an assignment.
type Gradebook struct {
	Assignment string
	Dir        string
}

// Cell is one student's result in one notebook.
type Cell struct {
	Score, Max float64
	Status     string // the entry's status; "missing" without an entry
	Waiting    int    // cells graded by hand that have no grade yet
}

// Row is one student's line of the course gradebook.
type Row struct {
	Student   string
	Notebooks map[string]Cell    // by Column
	Late      map[string]float64 // seconds late, by assignment
	Penalty   map[string]float64 // fraction taken off, by assignment
	Score     map[string]float64 // after the penalty, by assignment
	Total     float64
	Notes     []string
}

// Book is the course gradebook.
type Book struct {
	Assignments []string            // in the order given
	Notebooks   map[string][]string // the columns of each assignment: ASSIGNMENT/NOTEBOOK
	Max         map[string]float64  // by assignment and by notebook column
	TotalMax    float64
	Rows        []*Row // by student
}

// Build reads the gradebooks and the collect records (collect-ASSIGNMENT.csv
// of agx exchange collect, any number) and applies policy.
func Build(books []Gradebook, collects []string, policy Policy) (*Book, error) {
	b := &Book{Notebooks: map[string][]string{}, Max: map[string]float64{}}
	rows := map[string]*Row{}
	row := func(s string) *Row {
		r := rows[s]
		if r == nil {
			r = &Row{Student: s, Notebooks: map[string]Cell{}, Late: map[string]float64{}, Penalty: map[string]float64{}, Score: map[string]float64{}}
			rows[s] = r
		}
		return r
	}
	entries := map[string][]*gradebook.Entry{}
	for _, g := range books {
		if err := addGradebook(b, entries, g, row); err != nil {
			return nil, err
		}
	}
	fillCells(entries, row)
	for _, path := range collects {
		if err := readCollect(path, b, row); err != nil {
			return nil, err
		}
	}
	for _, r := range rows {
		scoreRow(b, r, policy)
		b.Rows = append(b.Rows, r)
	}
	sort.Slice(b.Rows, func(i, j int) bool { return b.Rows[i].Student < b.Rows[j].Student })
	return b, nil
}

// addGradebook reads g's entries into entries under their column
// (ASSIGNMENT/NOTEBOOK), adds the column and its maximum to b, and gives
// each student in it a row.
func addGradebook(b *Book, entries map[string][]*gradebook.Entry, g Gradebook, row func(string) *Row) error {
	if g.Assignment == "" || strings.ContainsAny(g.Assignment, "/,") {
		return fmt.Errorf("%q is not an assignment name", g.Assignment)
	}
	es, err := gradebook.ReadEntries(g.Dir)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		return fmt.Errorf("%s has no gradebook entries", g.Dir)
	}
	col := g.Assignment + "/" + es[0].Notebook
	for _, e := range es {
		if e.Notebook != es[0].Notebook {
			return fmt.Errorf("%s holds entries of two notebooks, %s and %s", g.Dir, es[0].Notebook, e.Notebook)
		}
	}
	if _, dup := entries[col]; dup {
		return fmt.Errorf("two gradebooks for %s", col)
	}
	entries[col] = es
	if _, seen := b.Notebooks[g.Assignment]; !seen {
		b.Assignments = append(b.Assignments, g.Assignment)
	}
	b.Notebooks[g.Assignment] = append(b.Notebooks[g.Assignment], col)
	// The maximum is the source's: any graded entry has it.
	for _, e := range es {
		if e.MaxScore > b.Max[col] {
			b.Max[col] = e.MaxScore
		}
		row(e.Student)
	}
	b.Max[g.Assignment] += b.Max[col]
	b.TotalMax += b.Max[col]
	return nil
}

// fillCells puts each entry's score, status and count of cells waiting
// for a hand grade into its student's row.
func fillCells(entries map[string][]*gradebook.Entry, row func(string) *Row) {
	for col, es := range entries {
		for _, e := range es {
			c := Cell{Score: e.Score, Max: e.MaxScore, Status: e.Status}
			for _, cg := range e.Cells {
				if cg.Status == gradebook.StatusManual && cg.Override == nil {
					c.Waiting++
				}
			}
			row(e.Student).Notebooks[col] = c
		}
	}
}

// scoreRow scores each assignment of r, applying policy's late penalty,
// totals them and notes what scored nothing, is late or waits for a grade.
func scoreRow(b *Book, r *Row, policy Policy) {
	for _, a := range b.Assignments {
		sum := 0.0
		for _, col := range b.Notebooks[a] {
			sum += notebookPoints(b, r, col)
		}
		if late := r.Late[a]; late > 0 {
			r.Penalty[a] = policy.Penalty(time.Duration(late * float64(time.Second)))
			if r.Penalty[a] > 0 {
				r.Notes = append(r.Notes, fmt.Sprintf("%s: late by %s, %g%% off", a, time.Duration(late)*time.Second, round(100*r.Penalty[a])))
			} else {
				r.Notes = append(r.Notes, fmt.Sprintf("%s: late by %s, no penalty", a, time.Duration(late)*time.Second))
			}
		}
		r.Score[a] = round(sum * (1 - r.Penalty[a]))
		r.Total += r.Score[a]
	}
	r.Total = round(r.Total)
}

// notebookPoints returns the points r counts for column col, marking a
// missing submission and noting one that scores nothing or waits for a
// hand grade.
func notebookPoints(b *Book, r *Row, col string) float64 {
	c, ok := r.Notebooks[col]
	points := 0.0
	switch {
	case !ok:
		r.Notebooks[col] = Cell{Status: "missing", Max: b.Max[col]}
		r.Notes = append(r.Notes, col+": no submission (0 points)")
	case c.Status != gradebook.Graded:
		r.Notes = append(r.Notes, fmt.Sprintf("%s: %s (0 points)", col, c.Status))
	default:
		points = c.Score
	}
	if c.Waiting > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: %d %s graded by hand without a grade yet", col, c.Waiting, plural(c.Waiting, "cell", "cells")))
	}
	return points
}

// readCollect reads a collect-ASSIGNMENT.csv: the seconds each student's
// counted submission was late.
func readCollect(path string, b *Book, row func(string) *Row) error {
	name := filepath.Base(path)
	if !strings.HasPrefix(name, "collect-") || !strings.HasSuffix(name, ".csv") {
		return fmt.Errorf("%s: not a collect record (collect-ASSIGNMENT.csv)", path)
	}
	a := strings.TrimSuffix(strings.TrimPrefix(name, "collect-"), ".csv")
	if _, ok := b.Notebooks[a]; !ok {
		return fmt.Errorf("%s: no gradebook of the assignment %s was given", path, a)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return parseCollect(f, path, a, row)
}

// parseCollect reads the records of assignment a from r (named path in errors).
func parseCollect(r io.Reader, path, a string, row func(string) *Row) error {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return fmt.Errorf("%s: empty", path)
	}
	idx := map[string]int{}
	for i, h := range recs[0] {
		idx[h] = i
	}
	for _, k := range []string{"student", "late", "late_seconds"} {
		if _, ok := idx[k]; !ok {
			return fmt.Errorf("%s: no column %s", path, k)
		}
	}
	for _, rec := range recs[1:] {
		if len(rec) != len(recs[0]) {
			return fmt.Errorf("%s: a row of %d fields", path, len(rec))
		}
		if rec[idx["late"]] != "true" {
			continue
		}
		sec, err := strconv.ParseFloat(rec[idx["late_seconds"]], 64)
		if err != nil || !(sec >= 0) || math.IsInf(sec, 0) || sec > 1e9 {
			return fmt.Errorf("%s: %s: late_seconds %q", path, rec[idx["student"]], rec[idx["late_seconds"]])
		}
		row(strings.TrimPrefix(rec[idx["student"]], "'")).Late[a] = sec
	}
	return nil
}

// Formats of Write.
const (
	FormatGeneric = "generic" // every notebook, every assignment, totals, notes: Moodle and most systems map its columns
	FormatCanvas  = "canvas"  // Canvas's gradebook import: one column per assignment, a Points Possible row
)

// Write writes the book as CSV in format. Cells that a spreadsheet would
// take for a formula are neutralised.
func (b *Book) Write(w io.Writer, format string) error {
	cw := csv.NewWriter(w)
	write := func(rec []string) {
		for i := range rec {
			rec[i] = safeCell(rec[i])
		}
		cw.Write(rec)
	}
	switch format {
	case FormatGeneric:
		head := []string{"student"}
		for _, a := range b.Assignments {
			head = append(head, b.Notebooks[a]...)
			head = append(head, a+" late_penalty_percent", a)
		}
		write(append(head, "total", "max", "percent", "notes"))
		maxRow := []string{"(maximum)"}
		for _, a := range b.Assignments {
			for _, col := range b.Notebooks[a] {
				maxRow = append(maxRow, num(b.Max[col]))
			}
			maxRow = append(maxRow, "", num(b.Max[a]))
		}
		write(append(maxRow, num(b.TotalMax), num(b.TotalMax), "100", ""))
		for _, r := range b.Rows {
			rec := []string{r.Student}
			for _, a := range b.Assignments {
				for _, col := range b.Notebooks[a] {
					rec = append(rec, num(r.Notebooks[col].Score))
				}
				rec = append(rec, num(round(100*r.Penalty[a])), num(r.Score[a]))
			}
			pct := 0.0
			if b.TotalMax > 0 {
				pct = round(100 * r.Total / b.TotalMax)
			}
			write(append(rec, num(r.Total), num(b.TotalMax), num(pct), strings.Join(r.Notes, " | ")))
		}
	case FormatCanvas:
		write(append([]string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section"}, b.Assignments...))
		pp := []string{"    Points Possible", "", "", "", ""}
		for _, a := range b.Assignments {
			pp = append(pp, num(b.Max[a]))
		}
		write(pp)
		for _, r := range b.Rows {
			rec := []string{r.Student, "", "", r.Student, ""}
			for _, a := range b.Assignments {
				rec = append(rec, num(r.Score[a]))
			}
			write(rec)
		}
	default:
		return fmt.Errorf("unknown format %q (want %s or %s)", format, FormatGeneric, FormatCanvas)
	}
	cw.Flush()
	return cw.Error()
}

// ParseGradebook reads ASSIGNMENT=DIR.
func ParseGradebook(arg string) (Gradebook, error) {
	a, dir, ok := strings.Cut(arg, "=")
	if !ok || a == "" || dir == "" {
		return Gradebook{}, errors.New("want ASSIGNMENT=GRADEBOOK_DIR, got " + strconv.Quote(arg))
	}
	return Gradebook{Assignment: a, Dir: dir}, nil
}

func safeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// round keeps two decimals: scores are points, penalties percents.
func round(x float64) float64 { return math.Round(x*100) / 100 }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
