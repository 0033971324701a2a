package rebuild

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// Origin says where a cell of a rebuilt notebook comes from.
const (
	FromSource     = "source"     // the instructor source (locked, test or unmarked cell)
	FromSubmission = "submission" // the student's answer cell, by grade_id
	FromStub       = "stub"       // the released stub: the answer cell was missing
	FromStudent    = "student"    // a cell the student added
)

// RebuiltCell describes one cell of a rebuilt notebook.
type RebuiltCell struct {
	Index   int    // in the rebuilt notebook
	GradeID string // "" for unmarked cells
	Kind    string // nbgrader kind in the source (KindNone for student cells)
	Origin  string
	Points  float64 // test and manual cells
	Nonce   string  // test code cells: the nonce written into the source
}

// Student reports whether the cell holds code the student wrote.
func (c *RebuiltCell) Student() bool { return c.Origin == FromSubmission || c.Origin == FromStudent }

// Name names the cell in flags and messages: its grade_id, or "cell N".
func (c *RebuiltCell) Name() string {
	if c.GradeID != "" {
		return c.GradeID
	}
	return fmt.Sprintf("cell %d", c.Index)
}

// Rebuilt is a submission rebuilt from the instructor source.
type Rebuilt struct {
	Notebook *notebook.Notebook
	Cells    []*RebuiltCell   // one per cell of Notebook
	Notes    []string         // what was restored or re-added, for the gradebook
	Flags    []gradebook.Flag // problems found while rebuilding

	answerNames map[string]bool // top-level names declared by the source's answer cells
	forbid      []string        // the source's metadata.agx.forbid (forbiddenUses)
}

// sourceForbid returns the instructor source's metadata.agx.forbid: the
// packages and names a student cell may not use, because they implement an
// exercise's answer (an agx built-in, a package of reference solutions).
func sourceForbid(src *notebook.Notebook) ([]string, error) {
	raw, ok := src.Metadata["agx"]
	if !ok {
		return nil, nil
	}
	var m struct {
		Forbid []string `json:"forbid"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("the instructor source's metadata.agx: %w", err)
	}
	for _, f := range m.Forbid {
		if !forbidEntry().MatchString(f) {
			return nil, fmt.Errorf("the instructor source's metadata.agx.forbid: %q is neither a Go identifier nor an import path", f)
		}
	}
	return m.Forbid, nil
}

// Rebuild rebuilds a submission from the instructor source src (which it does
// not modify). The result follows the source's cell order:
//   - locked cells (test, read-only) and cells without nbgrader metadata come
//     from the source, hidden tests included; a test cell that the student
//     edited is restored and one that the student deleted is re-added (both
//     noted);
//   - answer cells (solution, manual) come from the submission by grade_id;
//     a missing one is replaced by its released stub (noted and flagged);
//   - cells the student added (no nbgrader metadata and a source that is not
//     one of the source's unmarked cells, or an unknown grade_id) are kept,
//     right after the source cell of any kind (answer, test, read-only or
//     unmarked) that precedes them in the submission (at the first answer
//     cell's place when none precedes them);
//   - outputs and execution counts are cleared;
//   - each test code cell gets a fresh nonce from newNonce (RebuiltCell.Nonce).
//     It is NOT written into the cell: GoNB writes every cell's program to a
//     file that code in the notebook can read, so the grader hands it to the
//     test cell's program only while that cell runs (grade.SecretEnv).
func Rebuild(src, sub *notebook.Notebook, newNonce func() string) (*Rebuilt, error) {
	if err := nbgrader.Validate(src); err != nil {
		return nil, fmt.Errorf("the instructor source is invalid:\n%w", err)
	}
	stubs, _, err := nbgrader.Release(src)
	if err != nil {
		return nil, err
	}
	srcCopy, err := deepCopy(src)
	if err != nil {
		return nil, err
	}
	idx := indexSource(srcCopy, stubs)
	names := answerNames(srcCopy)
	forbid, err := sourceForbid(srcCopy)
	if err != nil {
		return nil, err
	}
	rb := &Rebuilt{answerNames: names, forbid: forbid}
	a := &assembly{rb: rb, src: idx, sub: mapSubmission(rb, idx, sub), newNonce: newNonce, cells: []*notebook.Cell{}, firstAnswer: true}
	for _, c := range srcCopy.Cells {
		if err := a.sourceCell(c); err != nil {
			return nil, err
		}
	}
	if a.firstAnswer { // no answer cells: student cells go last
		a.addExtra("")
	}
	for _, c := range a.cells {
		if c.CellType == notebook.Code {
			c.Outputs, c.ExecutionCount = []*notebook.Output{}, nil
		}
	}
	srcCopy.Cells = a.cells
	rb.Notebook = srcCopy
	return rb, nil
}

// sourceIndex is what Rebuild needs of the source: kinds by grade_id, the
// released stubs by grade_id, and the texts of its unmarked cells.
type sourceIndex struct {
	kinds    map[string]string
	released map[string]*notebook.Cell
	unmarked map[string]bool
}

func indexSource(src, stubs *notebook.Notebook) *sourceIndex {
	idx := &sourceIndex{kinds: map[string]string{}, released: map[string]*notebook.Cell{}, unmarked: map[string]bool{}}
	for i, c := range src.Cells {
		m, _ := nbgrader.Get(c) // Validate parsed it
		if m == nil || m.GradeID == "" {
			idx.unmarked[strings.TrimSpace(c.Source)] = true
			continue
		}
		idx.kinds[m.GradeID] = m.Kind()
		idx.released[m.GradeID] = stubs.Cells[i]
	}
	return idx
}

// answerNames returns the names the source's answer cells declare: the
// student's answers. A locked cell may declare a default for one (an empty
// quiz answer, a stub to replace); that default is not restored in the test
// cells, and an answer that replaces it is no redefinition.
func answerNames(src *notebook.Notebook) map[string]bool {
	names := map[string]bool{}
	for _, c := range src.Cells {
		if m, _ := nbgrader.Get(c); m != nil && m.Solution && c.CellType == notebook.Code {
			for _, d := range topLevelNames(c.Source) {
				names[d.name] = true
			}
		}
	}
	return names
}

// submissionCells is the submission mapped onto the source: answer cells
// and locked cells by grade_id, student cells by the source cell they follow
// (anchor; "" for before any).
type submissionCells struct {
	answers    map[string]*notebook.Cell
	seenLocked map[string]*notebook.Cell
	extra      map[string][]*notebook.Cell
}

// mapSubmission maps the submission's cells onto the source's, flagging
// duplicate answer cells and grade_ids the source lacks.
func mapSubmission(rb *Rebuilt, idx *sourceIndex, sub *notebook.Notebook) *submissionCells {
	sc := &submissionCells{answers: map[string]*notebook.Cell{}, seenLocked: map[string]*notebook.Cell{}, extra: map[string][]*notebook.Cell{}}
	after := ""
	for i, c := range sub.Cells {
		m, err := nbgrader.Get(c)
		if err != nil {
			m = nil // unreadable metadata: treat the cell as the student's
		}
		id := ""
		if m != nil {
			id = m.GradeID
		}
		kind, known := idx.kinds[id]
		switch {
		case known && isAnswer(kind):
			if sc.answers[id] != nil {
				rb.flag(gradebook.Flag{Kind: gradebook.FlagDuplicateCell, Cell: id, Message: fmt.Sprintf("the submission has answer cell %s twice; the first one (cell %d) is graded", id, i)})
				sc.extra[after] = append(sc.extra[after], c) // kept, like a cell the student added
				continue
			}
			sc.answers[id] = c
			after = id
		case known:
			sc.seenLocked[id] = c
			after = id
		case id != "":
			rb.flag(gradebook.Flag{Kind: gradebook.FlagUnknownCell, Cell: fmt.Sprintf("cell %d", i), Message: fmt.Sprintf("the submission has a cell with grade_id %q, which the source does not have; it is kept as a student cell", id)})
			sc.extra[after] = append(sc.extra[after], c)
		case idx.unmarked[strings.TrimSpace(c.Source)]:
			// an instructor cell, taken from the source
			after = unmarkedAnchor(c)
		default:
			sc.extra[after] = append(sc.extra[after], c)
		}
	}
	return sc
}

// assembly puts the rebuilt notebook together, one source cell at a time.
type assembly struct {
	rb          *Rebuilt
	src         *sourceIndex
	sub         *submissionCells
	newNonce    func() string
	cells       []*notebook.Cell
	firstAnswer bool     // no answer cell placed yet
	helpers     []string // declarations of the source's own code cells so far
}

func (a *assembly) add(c *notebook.Cell, rc *RebuiltCell) {
	rc.Index = len(a.cells)
	a.cells = append(a.cells, c)
	a.rb.Cells = append(a.rb.Cells, rc)
}

// addExtra places the student's cells that follow anchor key.
func (a *assembly) addExtra(key string) {
	if key != "" && a.firstAnswer && len(a.sub.extra[key]) > 0 {
		// cells before any source cell stay before the later ones
		a.addExtra("")
	}
	for _, c := range a.sub.extra[key] {
		cp, err := copyCell(c)
		if err != nil {
			continue // a cell that does not encode cannot have come from JSON
		}
		stripNbgrader(cp)
		a.add(cp, &RebuiltCell{Origin: FromStudent})
	}
	delete(a.sub.extra, key)
}

// sourceCell places source cell c (an answer cell's the submission's
// version of it), then the student's cells that follow it.
func (a *assembly) sourceCell(c *notebook.Cell) error {
	m, _ := nbgrader.Get(c)
	if c.CellType == notebook.Code && m.Kind() != nbgrader.KindTest && !(m != nil && m.Solution) {
		if d := declarations(c.Source, a.rb.answerNames); d != "" {
			a.helpers = append(a.helpers, d)
		}
	}
	if m == nil || m.GradeID == "" {
		a.add(c, &RebuiltCell{Origin: FromSource})
		a.addExtra(unmarkedAnchor(c))
		return nil
	}
	rc := &RebuiltCell{GradeID: m.GradeID, Kind: m.Kind(), Points: m.Points}
	if isAnswer(rc.Kind) {
		if err := a.answerCell(c, rc); err != nil {
			return err
		}
	} else {
		a.lockedCell(c, rc)
	}
	a.addExtra(m.GradeID)
	return nil
}

// answerCell places the submission's answer for source cell c, or the
// released stub where the answer cell is missing.
func (a *assembly) answerCell(c *notebook.Cell, rc *RebuiltCell) error {
	if a.firstAnswer {
		a.addExtra("")
		a.firstAnswer = false
	}
	s := a.sub.answers[rc.GradeID]
	if s == nil {
		rc.Origin = FromStub
		a.rb.Notes = append(a.rb.Notes, fmt.Sprintf("answer cell %s is missing from the submission; its released stub was used", rc.GradeID))
		a.rb.flag(gradebook.Flag{Kind: gradebook.FlagMissingAnswer, Cell: rc.GradeID, Message: "the answer cell was deleted"})
		a.add(a.src.released[rc.GradeID], rc)
		return nil
	}
	cp, err := copyCell(s)
	if err != nil {
		return err
	}
	cp.CellType = c.CellType
	cp.Metadata = c.Metadata // the source's metadata: the student cannot change the cell's role
	rc.Origin = FromSubmission
	a.add(cp, rc)
	return nil
}

// lockedCell restores locked or test cell c from the source, noting what
// the submission deleted or edited; a test cell gets its nonce and the
// source's helpers.
func (a *assembly) lockedCell(c *notebook.Cell, rc *RebuiltCell) {
	rc.Origin = FromSource
	if s, ok := a.sub.seenLocked[rc.GradeID]; !ok {
		if rc.Kind == nbgrader.KindTest {
			a.rb.Notes = append(a.rb.Notes, fmt.Sprintf("test cell %s was deleted; re-added from the source", rc.GradeID))
		} else {
			a.rb.Notes = append(a.rb.Notes, fmt.Sprintf("locked cell %s was deleted; re-added from the source", rc.GradeID))
		}
	} else if strings.TrimSpace(s.Source) != strings.TrimSpace(a.src.released[rc.GradeID].Source) {
		a.rb.Notes = append(a.rb.Notes, fmt.Sprintf("locked cell %s was edited; restored from the source", rc.GradeID))
	}
	if rc.Kind == nbgrader.KindTest && c.CellType == notebook.Code {
		rc.Nonce = a.newNonce()
		if len(a.helpers) > 0 {
			// GoNB keeps the last definition of a name: declared again
			// here, the source's helpers are the ones this cell uses,
			// whatever a student cell redefined.
			c.Source = HelpersHeader + "\n" + strings.Join(a.helpers, "\n\n") + "\n\n" + c.Source
		}
	}
	a.add(c, rc)
}

// HelpersHeader starts the declarations that Rebuild copies into each test
// cell: those of the source's code cells before it (locked and unmarked
// cells, not answer cells), less those of names that an answer cell declares.
const HelpersHeader = "// agx autograde: the instructor's declarations, restored for this test cell"

// declarations returns the top-level declarations (functions, types, vars,
// consts; not imports) of a GoNB cell's source, the part before a "%%"
// line, as text. It returns "" when there are none or the part does not
// parse as Go. Declarations of the names in skip (methods as Type.Method)
// are left out: a grouped var or type declaration keeps its other specs, a
// const group (whose specs may depend on each other through iota) is left out
// whole.
func declarations(src string, skip map[string]bool) string {
	var keep []string
	for line := range strings.Lines(src) {
		t := strings.TrimSpace(line)
		if t == "%%" {
			break
		}
		if strings.HasPrefix(t, "!") || strings.HasPrefix(t, "%") {
			keep = append(keep, "\n") // keep the line count
			continue
		}
		keep = append(keep, line)
	}
	body := strings.Join(keep, "")
	const pkg = "package main\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell.go", pkg+body, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return ""
	}
	text := pkg + body
	var parts []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		start := d.Pos()
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
			if d.Name.Name == "init" || d.Name.Name == "main" {
				continue // an init would run twice; main is GoNB's
			}
			if skip[funcName(d)] {
				continue
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
			if !slices.ContainsFunc(d.Specs, func(s ast.Spec) bool { return specSkipped(s, skip) }) {
				break
			}
			if d.Tok == token.CONST || !d.Lparen.IsValid() {
				continue
			}
			for _, s := range d.Specs {
				if !specSkipped(s, skip) {
					parts = append(parts, d.Tok.String()+" "+text[fset.Position(s.Pos()).Offset:fset.Position(s.End()).Offset])
				}
			}
			continue
		}
		parts = append(parts, text[fset.Position(start).Offset:fset.Position(d.End()).Offset])
	}
	return strings.Join(parts, "\n\n")
}

// funcName is a function's name as topLevelNames gives it: Type.Method for
// a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + d.Name.Name
		}
		return d.Name.Name
	}
}

// specSkipped reports whether a var, const or type spec declares a name in skip.
func specSkipped(s ast.Spec, skip map[string]bool) bool {
	switch s := s.(type) {
	case *ast.ValueSpec:
		return slices.ContainsFunc(s.Names, func(n *ast.Ident) bool { return skip[n.Name] })
	case *ast.TypeSpec:
		return skip[s.Name.Name]
	}
	return false
}

// unmarkedAnchor is the key of the student cells that follow an unmarked
// source cell (grade_ids cannot hold a colon). Cells of the same text share it.
func unmarkedAnchor(c *notebook.Cell) string { return "unmarked:" + strings.TrimSpace(c.Source) }

func (rb *Rebuilt) flag(f gradebook.Flag) { rb.Flags = append(rb.Flags, f) }

func isAnswer(kind string) bool { return kind == nbgrader.KindSolution || kind == nbgrader.KindManual }

func deepCopy(nb *notebook.Notebook) (*notebook.Notebook, error) {
	raw, err := nb.Marshal()
	if err != nil {
		return nil, err
	}
	return notebook.Parse(raw)
}

func copyCell(c *notebook.Cell) (*notebook.Cell, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var cp notebook.Cell
	if err := json.Unmarshal(raw, &cp); err != nil {
		return nil, err
	}
	return &cp, nil
}

// stripNbgrader removes nbgrader metadata from a student cell, so that the
// rebuilt notebook's graded cells are exactly the source's.
func stripNbgrader(c *notebook.Cell) {
	delete(c.Metadata, "nbgrader")
}
