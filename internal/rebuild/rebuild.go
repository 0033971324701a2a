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
		if !forbidEntry.MatchString(f) {
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

	// The source: kinds by grade_id, and the texts of its unmarked cells.
	kinds := map[string]string{}
	released := map[string]*notebook.Cell{}
	unmarked := map[string]bool{}
	for i, c := range srcCopy.Cells {
		m, _ := nbgrader.Get(c) // Validate parsed it
		if m == nil || m.GradeID == "" {
			unmarked[strings.TrimSpace(c.Source)] = true
			continue
		}
		kinds[m.GradeID] = m.Kind()
		released[m.GradeID] = stubs.Cells[i]
	}

	// The names the source's answer cells declare: the student's answers.
	// A locked cell may declare a default for one (an empty quiz answer, a
	// stub to replace); that default is not restored in the test cells, and
	// an answer that replaces it is no redefinition.
	answerNames := map[string]bool{}
	for _, c := range srcCopy.Cells {
		if m, _ := nbgrader.Get(c); m != nil && m.Solution && c.CellType == notebook.Code {
			for _, d := range topLevelNames(c.Source) {
				answerNames[d.name] = true
			}
		}
	}

	// The submission: answer cells by grade_id, student cells by the source
	// cell they follow (anchor; "" for before any).
	forbid, err := sourceForbid(srcCopy)
	if err != nil {
		return nil, err
	}
	rb := &Rebuilt{answerNames: answerNames, forbid: forbid}
	answers := map[string]*notebook.Cell{}
	seenLocked := map[string]*notebook.Cell{}
	extra := map[string][]*notebook.Cell{}
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
		kind, known := kinds[id]
		switch {
		case known && isAnswer(kind):
			if answers[id] != nil {
				rb.flag(gradebook.Flag{Kind: gradebook.FlagDuplicateCell, Cell: id, Message: fmt.Sprintf("the submission has answer cell %s twice; the first one (cell %d) is graded", id, i)})
				extra[after] = append(extra[after], c) // kept, like a cell the student added
				continue
			}
			answers[id] = c
			after = id
		case known:
			seenLocked[id] = c
			after = id
		case id != "":
			rb.flag(gradebook.Flag{Kind: gradebook.FlagUnknownCell, Cell: fmt.Sprintf("cell %d", i), Message: fmt.Sprintf("the submission has a cell with grade_id %q, which the source does not have; it is kept as a student cell", id)})
			extra[after] = append(extra[after], c)
		case unmarked[strings.TrimSpace(c.Source)]:
			// an instructor cell, taken from the source
			after = unmarkedAnchor(c)
		default:
			extra[after] = append(extra[after], c)
		}
	}

	nb := srcCopy
	cells := []*notebook.Cell{}
	add := func(c *notebook.Cell, rc *RebuiltCell) {
		rc.Index = len(cells)
		cells = append(cells, c)
		rb.Cells = append(rb.Cells, rc)
	}
	firstAnswer := true
	var addExtra func(key string)
	addExtra = func(key string) {
		if key != "" && firstAnswer && len(extra[key]) > 0 {
			// cells before any source cell stay before the later ones
			addExtra("")
		}
		for _, c := range extra[key] {
			cp, err := copyCell(c)
			if err != nil {
				continue // a cell that does not encode cannot have come from JSON
			}
			stripNbgrader(cp)
			add(cp, &RebuiltCell{Origin: FromStudent})
		}
		delete(extra, key)
	}
	var helpers []string // declarations of the source's own code cells so far
	for _, c := range nb.Cells {
		m, _ := nbgrader.Get(c)
		if c.CellType == notebook.Code && m.Kind() != nbgrader.KindTest && !(m != nil && m.Solution) {
			if d := declarations(c.Source, answerNames); d != "" {
				helpers = append(helpers, d)
			}
		}
		if m == nil || m.GradeID == "" {
			add(c, &RebuiltCell{Origin: FromSource})
			addExtra(unmarkedAnchor(c))
			continue
		}
		kind := m.Kind()
		rc := &RebuiltCell{GradeID: m.GradeID, Kind: kind, Points: m.Points}
		if isAnswer(kind) {
			if firstAnswer {
				addExtra("")
				firstAnswer = false
			}
			if s := answers[m.GradeID]; s != nil {
				cp, err := copyCell(s)
				if err != nil {
					return nil, err
				}
				cp.CellType = c.CellType
				cp.Metadata = c.Metadata // the source's metadata: the student cannot change the cell's role
				rc.Origin = FromSubmission
				add(cp, rc)
			} else {
				rc.Origin = FromStub
				rb.Notes = append(rb.Notes, fmt.Sprintf("answer cell %s is missing from the submission; its released stub was used", m.GradeID))
				rb.flag(gradebook.Flag{Kind: gradebook.FlagMissingAnswer, Cell: m.GradeID, Message: "the answer cell was deleted"})
				add(released[m.GradeID], rc)
			}
			addExtra(m.GradeID)
			continue
		}
		rc.Origin = FromSource
		if s, ok := seenLocked[m.GradeID]; !ok {
			if kind == nbgrader.KindTest {
				rb.Notes = append(rb.Notes, fmt.Sprintf("test cell %s was deleted; re-added from the source", m.GradeID))
			} else {
				rb.Notes = append(rb.Notes, fmt.Sprintf("locked cell %s was deleted; re-added from the source", m.GradeID))
			}
		} else if strings.TrimSpace(s.Source) != strings.TrimSpace(released[m.GradeID].Source) {
			rb.Notes = append(rb.Notes, fmt.Sprintf("locked cell %s was edited; restored from the source", m.GradeID))
		}
		if kind == nbgrader.KindTest && c.CellType == notebook.Code {
			rc.Nonce = newNonce()
			if len(helpers) > 0 {
				// GoNB keeps the last definition of a name: declared again
				// here, the source's helpers are the ones this cell uses,
				// whatever a student cell redefined.
				c.Source = HelpersHeader + "\n" + strings.Join(helpers, "\n\n") + "\n\n" + c.Source
			}
		}
		add(c, rc)
		addExtra(m.GradeID)
	}
	if firstAnswer { // no answer cells: student cells go last
		addExtra("")
	}
	for _, c := range cells {
		if c.CellType == notebook.Code {
			c.Outputs, c.ExecutionCount = []*notebook.Output{}, nil
		}
	}
	nb.Cells = cells
	rb.Notebook = nb
	return rb, nil
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
