package notebook

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The course notebooks must reproduce every example of the sources in the
// ranges A1–A10, C1–C22, D1–D11 and E1–E3 (A10 and C16, the CUDA kernels, in
// the GPU notebook 12; C20–C22 in 11), and the exercise notebooks
// (notebooks/exercises) cover B1–B4 and C23–C25: each ID appears in an
// `// example ID` comment of a code cell.
func TestNotebooksCoverEveryExample(t *testing.T) {
	var want []string
	add := func(prefix string, from, to int) {
		for i := from; i <= to; i++ {
			want = append(want, fmt.Sprintf("%s%d", prefix, i))
		}
	}
	add("A", 1, 10)
	add("C", 1, 22)
	add("D", 1, 11)
	add("E", 1, 3)
	add("B", 1, 4)
	add("C", 23, 25)

	paths, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks found: %v", err)
	}
	exercises, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "exercises", "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, exercises...)
	re := regexp.MustCompile(`//\s*examples?\s+([A-E][0-9]+(?:\s*(?:,|and|/)\s*[A-E][0-9]+)*)`)
	id := regexp.MustCompile(`[A-E][0-9]+`)
	seen := map[string][]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, ".executed.ipynb") {
			continue
		}
		nb, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range nb.Cells {
			if c.CellType != Code {
				continue
			}
			for _, m := range re.FindAllStringSubmatch(c.Source, -1) {
				for _, x := range id.FindAllString(m[1], -1) {
					seen[x] = append(seen[x], filepath.Base(p))
				}
			}
		}
	}
	for _, w := range want {
		if len(seen[w]) == 0 {
			t.Errorf("example %s appears in no notebook (add a `// example %s` cell)", w, w)
		}
	}
}
