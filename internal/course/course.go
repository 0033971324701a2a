// Package course builds the course map of notebooks/00-welcome.ipynb and the
// index docs/notebooks-index.md from the notebooks themselves, so that neither
// can drift from what the notebooks contain.
//
// The single source of truth is the example tag: a code cell that reproduces
// an example of the sources carries a comment `// example ID` (or `// examples
// ID and ID`, `// example ID / ID: what it shows`), where ID is A1, C16, E3 and
// so on (docs/examples.md in the project's shared docs). A lesson's one-line
// description is the notebook-level metadata `agx.summary`; an exercise's is
// its first heading.
//
// Regenerate both files with
//
//	go run ./internal/course/coursegen
//
// from the repository root; the package's test fails when either file differs
// from what that command would write.
package course

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goagx/agx/internal/notebook"
)

//go:generate go run ./coursegen -root ../..

// Paths of the generated files, relative to the repository root.
const (
	WelcomePath = "notebooks/00-welcome.ipynb"
	IndexPath   = "docs/notebooks-index.md"
	// MapCellKey marks the generated markdown cell of the welcome notebook:
	// its metadata holds "agx": {"generated": MapCellKey}.
	MapCellKey = "course-map"
	// ReferencePath is the students' API reference: a notebook beside the
	// lessons, but not a lesson (no summary, no example), so Scan skips it.
	ReferencePath = "notebooks/reference.ipynb"
	// IDsCellKey marks the generated markdown cell of the reference notebook
	// that lists the example IDs: "agx": {"generated": IDsCellKey}.
	IDsCellKey = "example-ids"
)

// tagRE matches an example tag comment; group 1 holds the IDs.
var (
	tagRE = regexp.MustCompile(`//\s*examples?\s+([A-E][0-9]+(?:\s*(?:,|and|/)\s*[A-E][0-9]+)*)`)
	idRE  = regexp.MustCompile(`[A-E][0-9]+`)
)

// Entry is one notebook of the course.
type Entry struct {
	Path     string   // relative to the repository root, with slashes
	Name     string   // file name without .ipynb
	Summary  string   // one line: what the notebook covers
	IDs      []string // example IDs of its tags, sorted, without repeats
	Exercise bool     // under notebooks/exercises
	// Sections maps each of IDs to the heading of the section holding the
	// first code cell tagged with it ("" when no heading comes before it).
	Sections map[string]string
}

// exampleSections returns, for each example ID tagged in the notebook's code
// cells, the text of the last markdown heading before its first tagged cell.
func exampleSections(nb *notebook.Notebook) map[string]string {
	sections := map[string]string{}
	heading := ""
	for _, c := range nb.Cells {
		if c.CellType == notebook.Markdown {
			for line := range strings.Lines(c.Source) {
				if h, ok := strings.CutPrefix(strings.TrimSpace(line), "#"); ok {
					heading = strings.TrimSpace(strings.TrimLeft(h, "#"))
				}
			}
			continue
		}
		if c.CellType != notebook.Code {
			continue
		}
		for _, m := range tagRE.FindAllStringSubmatch(c.Source, -1) {
			for _, id := range idRE.FindAllString(m[1], -1) {
				if _, seen := sections[id]; !seen {
					sections[id] = heading
				}
			}
		}
	}
	return sections
}

// ExampleIDs returns the example IDs tagged in the notebook's code cells,
// sorted by letter and number, without repeats.
func ExampleIDs(nb *notebook.Notebook) []string {
	var ids []string
	for _, c := range nb.Cells {
		if c.CellType != notebook.Code {
			continue
		}
		for _, m := range tagRE.FindAllStringSubmatch(c.Source, -1) {
			ids = append(ids, idRE.FindAllString(m[1], -1)...)
		}
	}
	SortIDs(ids)
	return slices.Compact(ids)
}

// SortIDs sorts example IDs by letter, then by number (C2 before C10).
func SortIDs(ids []string) {
	slices.SortFunc(ids, func(a, b string) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		na, _ := strconv.Atoi(a[1:])
		nb, _ := strconv.Atoi(b[1:])
		return cmp.Compare(na, nb)
	})
}

// FormatIDs joins sorted IDs with ", ", writing three or more consecutive
// numbers of one letter as a range: A1, C1–C3, D5.
func FormatIDs(ids []string) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1][0] == ids[i][0] && num(ids[j+1]) == num(ids[j])+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, ids[i]+"–"+ids[j])
		case j == i+1:
			parts = append(parts, ids[i], ids[j])
		default:
			parts = append(parts, ids[i])
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func num(id string) int {
	n, _ := strconv.Atoi(id[1:])
	return n
}

// Scan reads the lessons (notebooks/*.ipynb) and the exercises
// (notebooks/exercises/*.ipynb) under root, in file-name order. Executed
// copies (*.executed.ipynb) and the API reference (ReferencePath) are
// skipped. A lesson without agx.summary is an
// error: the map would have an empty row.
func Scan(root string) ([]Entry, error) {
	var entries []Entry
	for _, dir := range []string{"notebooks", "notebooks/exercises"} {
		paths, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.ipynb"))
		if err != nil {
			return nil, err
		}
		slices.Sort(paths)
		for _, p := range paths {
			if strings.HasSuffix(p, ".executed.ipynb") || dir+"/"+filepath.Base(p) == ReferencePath {
				continue
			}
			nb, err := notebook.Read(p)
			if err != nil {
				return nil, err
			}
			e := Entry{
				Path:     dir + "/" + filepath.Base(p),
				Name:     strings.TrimSuffix(filepath.Base(p), ".ipynb"),
				IDs:      ExampleIDs(nb),
				Exercise: dir != "notebooks",
				Sections: exampleSections(nb),
			}
			if e.Exercise {
				e.Summary = firstHeading(nb)
			} else if e.Summary, err = summary(nb); err != nil {
				return nil, fmt.Errorf("%s: %w", e.Path, err)
			}
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("no notebooks under %s", filepath.Join(root, "notebooks"))
	}
	return entries, nil
}

// summary reads the notebook metadata agx.summary.
func summary(nb *notebook.Notebook) (string, error) {
	var meta struct {
		Summary string `json:"summary"`
	}
	if raw, ok := nb.Metadata["agx"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return "", fmt.Errorf("metadata.agx: %w", err)
		}
	}
	if strings.TrimSpace(meta.Summary) == "" {
		return "", fmt.Errorf(`no notebook metadata "agx": {"summary": "..."} (one line for the course map)`)
	}
	return strings.TrimSpace(meta.Summary), nil
}

// firstHeading returns the text of the first markdown heading, without the
// leading #s and a "Kind:" prefix ("Exercise: GELU" gives "GELU").
func firstHeading(nb *notebook.Notebook) string {
	for _, c := range nb.Cells {
		if c.CellType != notebook.Markdown {
			continue
		}
		for line := range strings.Lines(c.Source) {
			if h, ok := strings.CutPrefix(strings.TrimSpace(line), "#"); ok {
				h = strings.TrimSpace(strings.TrimLeft(h, "#"))
				if kind, rest, ok := strings.Cut(h, ": "); ok && !strings.Contains(kind, " ") {
					h = rest
				}
				return h
			}
		}
	}
	return ""
}

// MapMarkdown is the source of the welcome notebook's map cell.
func MapMarkdown(entries []Entry) string {
	var b strings.Builder
	b.WriteString("## A map of the course\n\n")
	b.WriteString("The example IDs (A1, C24, …) name the examples of the course's sources that the notebooks reproduce; the last section of ")
	b.WriteString("the [reference notebook](reference.ipynb) says what each one is and where it is shown. This cell and `docs/notebooks-index.md` ")
	b.WriteString("are generated from the `// example` tags of the notebooks' code cells (`go run ./internal/course/coursegen`), so they list ")
	b.WriteString("exactly what each notebook shows.\n\n")
	b.WriteString("| Notebook | What it covers | Examples |\n|---|---|---|\n")
	for _, e := range entries {
		if !e.Exercise {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", e.Name, cell(e.Summary), FormatIDs(e.IDs))
		}
	}
	b.WriteString("\nThe graded exercises live in `notebooks/exercises/`; each gives you a stub to fill in and test cells that grade your work in the notebook.\n\n")
	b.WriteString("| Exercise | What it asks | Examples |\n|---|---|---|\n")
	for _, e := range entries {
		if e.Exercise {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", e.Name, cell(e.Summary), FormatIDs(e.IDs))
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cell escapes a table cell's pipes.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// IndexMarkdown is the content of docs/notebooks-index.md.
func IndexMarkdown(entries []Entry) string {
	var b strings.Builder
	b.WriteString("# Course notebooks and the source examples they cover\n\n")
	b.WriteString("<!-- Code generated by go run ./internal/course/coursegen; DO NOT EDIT. -->\n\n")
	b.WriteString("One line per notebook: the notebook, what it covers, then the example IDs of docs/examples.md\n")
	b.WriteString("(in the project's shared docs) that it reproduces. The list is generated from the notebooks'\n")
	b.WriteString("code cells: each example cell carries a `// example ID` comment, and the numbers the sources\n")
	b.WriteString("give are checked by `agx run` through the cell's `metadata.agx`. To change a line, change the\n")
	b.WriteString("notebook (its tags, or its `agx.summary` metadata) and run `go run ./internal/course/coursegen`;\n")
	b.WriteString("`go test ./internal/course` fails while this file or the map in 00-welcome is stale.\n\n")
	b.WriteString("## Lessons\n\n")
	for _, e := range entries {
		if !e.Exercise {
			writeIndexLine(&b, e)
		}
	}
	b.WriteString("\n## Graded exercises\n\n")
	for _, e := range entries {
		if e.Exercise {
			writeIndexLine(&b, e)
		}
	}
	b.WriteString("\n## The example IDs\n\n")
	b.WriteString("What each example ID stands for, then the notebooks that show it, with the section where it first appears.\n")
	b.WriteString("The same list ends the students' reference notebook, `notebooks/reference.ipynb`.\n\n")
	writeIDList(&b, entries, "../notebooks/")
	return b.String()
}

// IDsMarkdown is the source of the reference notebook's cell that lists the
// example IDs; its links are relative to notebooks/.
func IDsMarkdown(entries []Entry) string {
	var b strings.Builder
	b.WriteString("## The example IDs\n\n")
	b.WriteString("The lessons and exercises mark each example of the course's sources with an ID: A for the article on custom ")
	b.WriteString("Functions, B for the course exercise, C for the textbook chapter, D for the reference notes, E for the questions ")
	b.WriteString("and answers. Here is what each ID stands for, then where it is shown (the notebook, and the section where it first ")
	b.WriteString("appears). The course map in [00-welcome](00-welcome.ipynb) gives the IDs per notebook.\n\n")
	writeIDList(&b, entries, "")
	return strings.TrimSuffix(b.String(), "\n")
}

// writeIDList writes one line per example of Examples; link prefixes the
// notebooks' paths relative to notebooks/.
func writeIDList(b *strings.Builder, entries []Entry, link string) {
	for _, ex := range Examples {
		var where []string
		for _, e := range entries {
			sec, ok := e.Sections[ex.ID]
			if !ok {
				continue
			}
			rel := strings.TrimPrefix(e.Path, "notebooks/")
			w := fmt.Sprintf("[%s](%s%s)", strings.TrimSuffix(rel, ".ipynb"), link, rel)
			if sec != "" {
				w += " › " + sec
			}
			where = append(where, w)
		}
		if len(where) == 0 {
			where = []string{"(not shown yet)"}
		}
		fmt.Fprintf(b, "- **%s** — %s. Shown in: %s\n", ex.ID, ex.What, strings.Join(where, "; "))
	}
}

func writeIndexLine(b *strings.Builder, e Entry) {
	ids := FormatIDs(e.IDs)
	if ids == "" {
		ids = "(no source example)"
	}
	rel := strings.TrimPrefix(e.Path, "notebooks/")
	fmt.Fprintf(b, "- [%s](../notebooks/%s) — %s → %s\n", strings.TrimSuffix(rel, ".ipynb"), rel, e.Summary, ids)
}

// Generate returns the generated files under root (paths relative to root,
// with slashes) and their new content.
func Generate(root string) (map[string][]byte, error) {
	entries, err := Scan(root)
	if err != nil {
		return nil, err
	}
	welcome, err := notebook.Read(filepath.Join(root, filepath.FromSlash(WelcomePath)))
	if err != nil {
		return nil, err
	}
	c, err := mapCell(welcome)
	if err != nil {
		return nil, err
	}
	c.Source = MapMarkdown(entries)
	nbBytes, err := welcome.Marshal()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		WelcomePath: nbBytes,
		IndexPath:   []byte(IndexMarkdown(entries)),
	}
	refPath := filepath.Join(root, filepath.FromSlash(ReferencePath))
	ref, err := notebook.Read(refPath)
	if err != nil {
		return nil, err
	}
	if c, err = generatedCell(ref, ReferencePath, IDsCellKey); err != nil {
		return nil, err
	}
	c.Source = IDsMarkdown(entries)
	if files[ReferencePath], err = ref.Marshal(); err != nil {
		return nil, err
	}
	return files, nil
}

// mapCell finds the one markdown cell marked with agx.generated = MapCellKey.
func mapCell(nb *notebook.Notebook) (*notebook.Cell, error) {
	return generatedCell(nb, WelcomePath, MapCellKey)
}

// generatedCell finds the one markdown cell of nb (read from path) marked
// with agx.generated = key.
func generatedCell(nb *notebook.Notebook, path, key string) (*notebook.Cell, error) {
	var found *notebook.Cell
	for _, c := range nb.Cells {
		raw, ok := c.Metadata["agx"]
		if !ok {
			continue
		}
		var meta struct {
			Generated string `json:"generated"`
		}
		if json.Unmarshal(raw, &meta) != nil || meta.Generated != key {
			continue
		}
		if found != nil || c.CellType != notebook.Markdown {
			return nil, fmt.Errorf("%s: want exactly one markdown cell with metadata \"agx\": {\"generated\": %q}", path, key)
		}
		found = c
	}
	if found == nil {
		return nil, fmt.Errorf("%s: no markdown cell with metadata \"agx\": {\"generated\": %q}", path, key)
	}
	return found, nil
}
