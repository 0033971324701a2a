package course

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

// checkName matches the name of a grade check: g.Check("name", ...).
var checkName = regexp.MustCompile(`g\.Check\(("(?:[^"\\]|\\.)*")`)

// hiddenCheck is a check that runs only when a notebook is graded.
type hiddenCheck struct {
	cell int    // index of the test cell
	name string // the check's name, as the grading table shows it
}

// hiddenChecks returns, for each test cell of nb (one that calls grade.New),
// the names of the checks after its g.Hidden() call. A quiz's answer key
// ("correct") is left out: its question is the announcement.
func hiddenChecks(nb *notebook.Notebook) []hiddenCheck {
	var out []hiddenCheck
	for i, c := range nb.Cells {
		if c.CellType != notebook.Code || !strings.Contains(c.Source, "grade.New(") {
			continue
		}
		_, hidden, ok := strings.Cut(c.Source, "g.Hidden()")
		if !ok {
			continue
		}
		for _, m := range checkName.FindAllStringSubmatch(hidden, -1) {
			name, err := strconv.Unquote(m[1])
			if err != nil || name == "correct" {
				continue
			}
			out = append(out, hiddenCheck{i, name})
		}
	}
	return out
}

// plainText is markdown with emphasis and code marks removed and runs of
// white space made one space, so that "**float32** inputs" reads as
// "float32 inputs".
func plainText(md string) string {
	md = strings.NewReplacer("**", "", "`", "", "__", "").Replace(md)
	return strings.Join(strings.Fields(md), " ")
}

// unannounced returns the hidden checks of nb whose name does not appear in
// the instructions a student reads before their test cell: the markdown cells
// after the previous test cell (test cells that follow one another, the
// forward's and the backward's, share the instructions above the first).
func unannounced(nb *notebook.Notebook) []hiddenCheck {
	var missing []hiddenCheck
	for _, h := range hiddenChecks(nb) {
		var text strings.Builder
		for i := h.cell - 1; i >= 0; i-- {
			c := nb.Cells[i]
			if c.CellType == notebook.Code && strings.Contains(c.Source, "grade.New(") && text.Len() > 0 {
				break
			}
			if c.CellType == notebook.Markdown {
				text.WriteString(plainText(c.Source) + " ")
			}
		}
		if !strings.Contains(strings.ToLower(text.String()), strings.ToLower(plainText(h.name))) {
			missing = append(missing, h)
		}
	}
	return missing
}

// Every hidden check of an exercise is announced, by its name, in the
// instructions of its part: a student learns every condition that counts
// (float32 inputs, large inputs, other shapes, ties) before writing the code,
// and only the test code itself stays hidden.
func TestHiddenChecksAreAnnounced(t *testing.T) {
	exercises := readAll(t, "notebooks/exercises/*.ipynb")
	n := 0
	for _, name := range sortedKeys(exercises) {
		nb := exercises[name]
		n += len(hiddenChecks(nb))
		for _, h := range unannounced(nb) {
			t.Errorf("%s: cell %d: hidden check %q is not announced in the markdown before it (since the previous test cell)", name, h.cell, h.name)
		}
	}
	if n == 0 {
		t.Fatal("no hidden checks found in notebooks/exercises: has the g.Hidden() convention changed?")
	}
}

func TestUnannounced(t *testing.T) {
	md := func(s string) *notebook.Cell { return &notebook.Cell{CellType: notebook.Markdown, Source: s} }
	code := func(s string) *notebook.Cell { return &notebook.Cell{CellType: notebook.Code, Source: s} }
	test := func(names ...string) *notebook.Cell {
		src := "g := grade.New(\"t\")\ng.Check(\"visible\", 1, nil)\n// BEGIN HIDDEN TESTS\ng.Hidden()\n"
		for _, n := range names {
			src += "g.Check(" + strconv.Quote(n) + ", 1, func(c *grade.C) {})\n"
		}
		return code(src + "// END HIDDEN TESTS\ng.Done()")
	}
	nb := &notebook.Notebook{Cells: []*notebook.Cell{
		md("Hidden checks: - **float32** inputs up to ±200"),
		code("func f() {}"),
		test("float32 inputs up to ±200", "ties at a tiny τ", "correct"),
		md("Part 2 mentions ties at a tiny τ, too late for part 1."),
		test("other shapes"),
		test("float32 inputs up to ±200", "Part 2 mentions"),
		md("Part 3"),
		test("Part 2 mentions"),
	}}
	var got []string
	for _, h := range unannounced(nb) {
		got = append(got, strconv.Itoa(h.cell)+":"+h.name)
	}
	want := []string{"2:ties at a tiny τ", "4:other shapes", "5:float32 inputs up to ±200", "7:Part 2 mentions"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("unannounced = %q, want %q", got, want)
	}
}
