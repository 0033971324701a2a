package autograde

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
)

func TestFindSubmissions(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"class/alice/gelu.ipynb", "class/bob/gelu.ipynb", "class/carol/other.ipynb", "dave.ipynb"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	subs, warnings, err := FindSubmissions("gelu.ipynb", []string{filepath.Join(dir, "class"), filepath.Join(dir, "dave.ipynb")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range subs {
		got = append(got, s.Student)
	}
	if strings.Join(got, ",") != "alice,bob,dave" || len(warnings) != 1 || !strings.Contains(warnings[0], "carol") {
		t.Errorf("students %v, warnings %v", got, warnings)
	}
	if _, _, err := FindSubmissions("gelu.ipynb", []string{filepath.Join(dir, "dave.ipynb"), filepath.Join(dir, "dave.ipynb")}); err == nil {
		t.Error("a student twice: no error")
	}
}

// TestBonusMaximum: a bonus cell's points count in the score, not in the maximum.
func TestBonusMaximum(t *testing.T) {
	for _, tc := range []struct {
		name              string
		cells             []*gradebook.CellGrade
		score, max, autoS float64
	}{
		{"no bonus", []*gradebook.CellGrade{{GradeID: "a", AutoPoints: 3, MaxPoints: 3}, {GradeID: "b", AutoPoints: 2, MaxPoints: 4}}, 5, 7, 5},
		{"bonus earned", []*gradebook.CellGrade{{GradeID: "a", AutoPoints: 3, MaxPoints: 3}, {GradeID: "t", AutoPoints: 2, MaxPoints: 2, Bonus: true}}, 5, 3, 5},
		{"bonus missed", []*gradebook.CellGrade{{GradeID: "a", AutoPoints: 1, MaxPoints: 3}, {GradeID: "t", MaxPoints: 2, Bonus: true}}, 1, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &gradebook.Entry{Status: gradebook.Graded, Cells: tc.cells}
			e.ApplyOverrides(nil)
			if e.Score != tc.score || e.MaxScore != tc.max || e.AutoScore != tc.autoS {
				t.Errorf("score %v auto %v max %v, want %v %v %v", e.Score, e.AutoScore, e.MaxScore, tc.score, tc.autoS, tc.max)
			}
		})
	}
}
