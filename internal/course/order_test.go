package course

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

// laterTools are the agx tools that the first lessons do not teach: a lesson
// may call one, and point to an exercise that calls one, only once a markdown
// cell of it or of an earlier lesson has named it.
var laterTools = []string{"GradGradCheck", "CheckForwardAD", "Jvp"}

// toolsIn returns the laterTools that src names.
func toolsIn(src string) []string {
	var out []string
	for _, t := range laterTools {
		if regexp.MustCompile(`\b` + t + `\b`).MatchString(src) {
			out = append(out, t)
		}
	}
	return out
}

// pointer is one exercise named by a lesson's "Practise it" line, with the
// part it names (0: the whole exercise).
type pointer struct {
	exercise string
	part     int
}

var (
	practiseLine = regexp.MustCompile(`(?m)^\*\*Practise it:\*\*(.*(?:\n.+)*)`)
	exerciseRef  = regexp.MustCompile("`([a-z0-9-]+)`(?:,?\\s*\\(?parts? (\\d))?")
)

// pointers returns the exercises of exercises that the "Practise it"
// paragraph of a lesson names.
func pointers(lesson *notebook.Notebook, exercises map[string]*notebook.Notebook) []pointer {
	var out []pointer
	for _, c := range lesson.Cells {
		if c.CellType != notebook.Markdown {
			continue
		}
		for _, m := range practiseLine.FindAllStringSubmatch(c.Source, -1) {
			for _, r := range exerciseRef.FindAllStringSubmatch(m[1], -1) {
				if exercises[r[1]] == nil {
					continue
				}
				part, _ := strconv.Atoi(r[2])
				out = append(out, pointer{r[1], part})
			}
		}
	}
	return out
}

// partCode returns the code of an exercise's part n (the cells from its
// "## Part n" heading to the next level-2 heading), or all its code for n = 0.
func partCode(nb *notebook.Notebook, n int) string {
	var b strings.Builder
	in := n == 0
	for _, c := range nb.Cells {
		if c.CellType == notebook.Markdown && n > 0 && strings.HasPrefix(c.Source, "## ") {
			in = strings.HasPrefix(c.Source, "## Part "+strconv.Itoa(n)+" ")
		}
		if in && c.CellType == notebook.Code {
			b.WriteString(c.Source + "\n")
		}
	}
	return b.String()
}

// orderProblems walks the lessons in course order and reports code that calls
// a later tool before any markdown named it, and "Practise it" pointers to
// exercises (or parts) that call a tool no lesson so far has named.
func orderProblems(names []string, lessons, exercises map[string]*notebook.Notebook) []string {
	var problems []string
	named := map[string]bool{}
	for _, name := range names {
		nb := lessons[name]
		for i, c := range nb.Cells {
			switch c.CellType {
			case notebook.Markdown:
				for _, t := range toolsIn(c.Source) {
					named[t] = true
				}
			case notebook.Code:
				for _, t := range toolsIn(c.Source) {
					if !named[t] {
						problems = append(problems, name+": cell "+strconv.Itoa(i)+" calls "+t+" before any lesson's text has introduced it")
					}
				}
			}
		}
		for _, p := range pointers(nb, exercises) {
			for _, t := range toolsIn(partCode(exercises[p.exercise], p.part)) {
				if !named[t] {
					what := "exercise " + p.exercise
					if p.part > 0 {
						what += " part " + strconv.Itoa(p.part)
					}
					problems = append(problems, name+": points to "+what+", which uses "+t+", not introduced by this lesson or an earlier one")
				}
			}
		}
	}
	return problems
}

// The lessons introduce a tool before they use it, and point only to
// exercises whose tools they have introduced.
func TestLessonsTeachToolsBeforeUse(t *testing.T) {
	lessons := readAll(t, "notebooks/*.ipynb")
	exercises := readAll(t, "notebooks/exercises/*.ipynb")
	for _, p := range orderProblems(sortedKeys(lessons), lessons, exercises) {
		t.Error(p)
	}
}

func TestOrderProblems(t *testing.T) {
	md := func(s string) *notebook.Cell { return &notebook.Cell{CellType: notebook.Markdown, Source: s} }
	code := func(s string) *notebook.Cell { return &notebook.Cell{CellType: notebook.Code, Source: s} }
	ex := &notebook.Notebook{Cells: []*notebook.Cell{
		md("## Part 1 — plain"), code("agx.GradCheck(F{}, in)"),
		md("## Part 2 — second order"), code("agx.GradGradCheck(F{}, in)"),
	}}
	lessons := map[string]*notebook.Notebook{
		"00": {Cells: []*notebook.Cell{md("**Practise it:** exercise `ex`, part 1.")}},
		"01": {Cells: []*notebook.Cell{code("agx.GradGradCheck(F{}, in)"), md("**Practise it:** exercise `ex` (part 2).")}},
		"02": {Cells: []*notebook.Cell{md("`GradGradCheck` checks second derivatives."), code("agx.GradGradCheck(F{}, in)"),
			md("**Practise it:** exercise `ex`.")}},
	}
	got := orderProblems([]string{"00", "01", "02"}, lessons, map[string]*notebook.Notebook{"ex": ex})
	want := []string{
		"01: cell 0 calls GradGradCheck before any lesson's text has introduced it",
		"01: points to exercise ex part 2, which uses GradGradCheck, not introduced by this lesson or an earlier one",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
