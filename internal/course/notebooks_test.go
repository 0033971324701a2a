package course

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

// The tests' helpers, apart from the answer keys (answers_test.go, which
// students do not get).

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// readAll reads the notebooks of the repository matching pattern, by name.
func readAll(t *testing.T, pattern string) map[string]*notebook.Notebook {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, pattern))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks match %s: %v", pattern, err)
	}
	nbs := map[string]*notebook.Notebook{}
	for _, p := range paths {
		if strings.HasSuffix(p, ".executed.ipynb") {
			continue
		}
		nb, err := notebook.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		nbs[strings.TrimSuffix(filepath.Base(p), ".ipynb")] = nb
	}
	return nbs
}
