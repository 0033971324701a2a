// Package manualgrade is the page where an instructor grades by hand what
// the autograder cannot: free-text answers, plots, explanations (the
// source's manually graded cells, nbgrader's "manual" and "task" kinds). It
// lists every such answer of a gradebook, student by student, from the
// executed notebooks, and saves each grade and comment as an override
// (overrides.csv), applied at once to the entry and grades.csv, so that
// `agx feedback` returns it to the student. A small local web server, as
// nbgrader's formgrader is, reachable with a token.
package manualgrade

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// Answer is one student's answer in a cell graded by hand.
type Answer struct {
	Student, GradeID string
	Max              float64
	Text             string   // the cell's source as the student left it
	Outputs          []string // the code cell's text outputs
	Images           []string // its PNG outputs, base64
	Grade            *gradebook.Override
	Missing          string // why the answer could not be read, if it could not
}

// Answers lists the answers to grade by hand in the gradebook dir, by
// cell, then student.
func Answers(dir string) ([]Answer, error) {
	entries, err := gradebook.ReadEntries(dir)
	if err != nil {
		return nil, err
	}
	var out []Answer
	for _, e := range entries {
		if e.Status != gradebook.Graded {
			continue
		}
		var nb *notebook.Notebook
		var why string
		for _, c := range e.Cells {
			if c.Kind != nbgrader.KindManual && c.Kind != nbgrader.KindTask {
				continue
			}
			if nb == nil && why == "" {
				if nb, err = notebook.Read(filepath.Join(dir, gradebook.ExecutedDir, e.Student+".ipynb")); err != nil {
					why = "the executed notebook cannot be read: " + err.Error()
				}
			}
			a := Answer{Student: e.Student, GradeID: c.GradeID, Max: c.MaxPoints, Grade: c.Override, Missing: why}
			if nb != nil {
				fillAnswer(&a, nb)
			}
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].GradeID != out[j].GradeID {
			return out[i].GradeID < out[j].GradeID
		}
		return out[i].Student < out[j].Student
	})
	return out, nil
}

// fillAnswer finds a's cell in the executed notebook by its grade_id.
func fillAnswer(a *Answer, nb *notebook.Notebook) {
	for _, c := range nb.Cells {
		m, err := nbgrader.Get(c)
		if err != nil || m == nil || m.GradeID != a.GradeID {
			continue
		}
		a.Text = c.Source
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "stream":
				a.Outputs = append(a.Outputs, o.Text)
			case "error":
				a.Outputs = append(a.Outputs, o.Ename+": "+o.Evalue)
			case "display_data", "execute_result":
				var png, text string
				if raw, ok := o.Data["image/png"]; ok && json.Unmarshal(raw, &png) == nil {
					a.Images = append(a.Images, strings.TrimSpace(png))
				} else if raw, ok := o.Data["text/plain"]; ok && json.Unmarshal(raw, &text) == nil {
					a.Outputs = append(a.Outputs, text)
				}
			}
		}
		return
	}
	a.Missing = "the executed notebook has no cell " + a.GradeID
}

// Save records a grade of a student's cell in the gradebook's
// overrides.csv (replacing an earlier one) and applies the overrides to the
// student's entry and grades.csv.
func Save(dir, student, gradeID string, points float64, comment string) error {
	if !(points >= 0) || points > 1e6 {
		return fmt.Errorf("points %v: want a number >= 0", points)
	}
	e, err := gradebook.ReadEntry(gradebook.EntryPath(dir, student))
	if err != nil {
		return fmt.Errorf("no gradebook entry for %q", student)
	}
	known := false
	for _, c := range e.Cells {
		known = known || c.GradeID == gradeID
	}
	if !known {
		return fmt.Errorf("%s's entry has no graded cell %q", student, gradeID)
	}
	path := filepath.Join(dir, gradebook.OverridesFile)
	var lines [][]string
	if b, err := os.ReadFile(path); err == nil {
		r := csv.NewReader(bytes.NewReader(b))
		r.FieldsPerRecord = -1
		r.Comment = '#'
		if lines, err = r.ReadAll(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var out [][]string
	for i, rec := range lines {
		if i == 0 && len(rec) > 0 && strings.EqualFold(strings.TrimSpace(rec[0]), "student") {
			continue
		}
		if len(rec) >= 2 && strings.TrimSpace(rec[0]) == student && strings.TrimSpace(rec[1]) == gradeID {
			continue
		}
		out = append(out, rec)
	}
	out = append(out, []string{student, gradeID, strconv.FormatFloat(points, 'f', -1, 64), comment})
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"student", "grade_id", "points", "comment"})
	w.WriteAll(out)
	if err := notebook.WriteFileAtomic(path, buf.Bytes()); err != nil {
		return err
	}
	ov, err := gradebook.ReadOverrides(dir)
	if err != nil {
		return err
	}
	e.ApplyOverrides(ov[student])
	if err := gradebook.WriteEntry(dir, e); err != nil {
		return err
	}
	entries, err := gradebook.ReadEntries(dir)
	if err != nil {
		return err
	}
	return gradebook.WriteClassTable(dir, entries)
}

// Server serves the grading page of one gradebook. Every request must
// carry its Token (the URL it prints has it).
type Server struct {
	Dir   string
	Token string
	mu    sync.Mutex // one save at a time
}

// NewServer makes a server for the gradebook dir with a fresh token.
func NewServer(dir string) (*Server, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	return &Server{Dir: dir, Token: hex.EncodeToString(b[:])}, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'self'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	tok := r.URL.Query().Get("token")
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		tok = r.PostForm.Get("token")
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.Token)) != 1 {
		http.Error(w, "a token is needed: open the URL that agx gradebook manual printed", http.StatusForbidden)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/":
		s.page(w, "")
	case r.Method == http.MethodPost && r.URL.Path == "/save":
		points, err := strconv.ParseFloat(strings.TrimSpace(r.PostForm.Get("points")), 64)
		if err == nil {
			s.mu.Lock()
			err = Save(s.Dir, r.PostForm.Get("student"), r.PostForm.Get("grade_id"), points, r.PostForm.Get("comment"))
			s.mu.Unlock()
		}
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			s.page(w, err.Error())
			return
		}
		http.Redirect(w, r, "/?token="+s.Token+"#"+anchor(r.PostForm.Get("grade_id"), r.PostForm.Get("student")), http.StatusSeeOther)
	default:
		http.NotFound(w, r)
	}
}

func anchor(id, student string) string { return "a-" + id + "-" + student }

func (s *Server) page(w io.Writer, problem string) {
	answers, err := Answers(s.Dir)
	if err != nil {
		problem = err.Error()
	}
	graded := 0
	for _, a := range answers {
		if a.Grade != nil {
			graded++
		}
	}
	pageTmpl().Execute(w, map[string]any{"Dir": s.Dir, "Answers": answers, "Token": s.Token, "Problem": problem, "Graded": graded,
		"Anchor": anchor})
}

var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Grading by hand: {{.Dir}}</title>
<style>
body { font-family: sans-serif; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; }
.answer { border: 1px solid #ccc; border-radius: 4px; padding: .5rem 1rem; margin: 1rem 0; }
.done { border-color: #4a4; }
pre { white-space: pre-wrap; background: #f6f6f6; padding: .5rem; }
.problem { color: #a00; font-weight: bold; }
</style></head><body>
<h1>Grading by hand</h1>
<p>Gradebook <code>{{.Dir}}</code>: {{len .Answers}} answers to grade by hand, {{.Graded}} graded. Each grade is saved in
<code>overrides.csv</code> and applied to the entry and <code>grades.csv</code> at once; <code>agx feedback</code> returns it with its comment.</p>
{{if .Problem}}<p class="problem">{{.Problem}}</p>{{end}}
{{range .Answers}}
<div class="answer{{if .Grade}} done{{end}}" id="{{call $.Anchor .GradeID .Student}}">
<h2>{{.GradeID}}: {{.Student}}</h2>
{{if .Missing}}<p class="problem">{{.Missing}}</p>{{end}}
<pre>{{.Text}}</pre>
{{range .Outputs}}<pre>{{.}}</pre>{{end}}
{{range .Images}}<img alt="an output of the answer" src="data:image/png;base64,{{.}}">{{end}}
<form method="post" action="/save">
<input type="hidden" name="token" value="{{$.Token}}">
<input type="hidden" name="student" value="{{.Student}}">
<input type="hidden" name="grade_id" value="{{.GradeID}}">
<label>points (of {{.Max}}) <input name="points" size="5" value="{{if .Grade}}{{.Grade.Points}}{{end}}" required></label>
<label>comment <textarea name="comment" rows="2" cols="60">{{if .Grade}}{{.Grade.Comment}}{{end}}</textarea></label>
<button type="submit">save</button>
</form>
</div>
{{else}}
<p>No answer in this gradebook is graded by hand.</p>
{{end}}
</body></html>
`))
})
