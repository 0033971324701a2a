package agx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFrameLocation(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cell := "package main\n\nfunc main() {\n\tx := agx.FromSlice([]float64{0})\n\ty := agx.Apply(Norm{}, x) // the forward\n}\n"
	gonbMain := write("gonb_1a2b3c4d/main.go", cell)
	kernelMain := write("kernel-tmp/main.go", cell) // named by GONB_TMP_DIR only
	otherMain := write("project/main.go", cell)     // an ordinary program's main.go
	helper := write("gonb_1a2b3c4d/helper.go", cell)
	long := write("gonb_99aa/main.go", "\t"+strings.Repeat("x", 150)+"\n")
	missing := filepath.Join(root, "gonb_dead/main.go")

	cases := []struct {
		name string
		gonb string // GONB_TMP_DIR
		file string
		line int
		want string
	}{
		{"ordinary frame", "", "/src/agx/ops.go", 42, "/src/agx/ops.go:42"},
		{"ordinary main.go", "", otherMain, 5, otherMain + ":5"},
		{"cell line", "", gonbMain, 5, "in your notebook cell: y := agx.Apply(Norm{}, x) // the forward"},
		{"cell line in GONB_TMP_DIR", filepath.Join(root, "kernel-tmp"), kernelMain, 4, "in your notebook cell: x := agx.FromSlice([]float64{0})"},
		{"GONB_TMP_DIR of another kernel", filepath.Join(root, "elsewhere"), kernelMain, 4, kernelMain + ":4"},
		{"other file in GoNB's directory", "", helper, 5, helper + ":5"},
		{"line past the end", "", gonbMain, 99, "in your notebook cell"},
		{"line zero", "", gonbMain, 0, "in your notebook cell"},
		{"file gone", "", missing, 3, "in your notebook cell"},
		{"long line clipped", "", long, 1, "in your notebook cell: " + strings.Repeat("x", maxCodeShown-1) + "…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GONB_TMP_DIR", tc.gonb)
			if got := frameLocation(tc.file, tc.line); got != tc.want {
				t.Errorf("frameLocation(%q, %d) = %q, want %q", tc.file, tc.line, got, tc.want)
			}
		})
	}
}
