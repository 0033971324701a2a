package autograde

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/rebuild"
)

func TestToolingFailure(t *testing.T) {
	errOut := func(evalue string) *notebook.Output {
		return &notebook.Output{OutputType: notebook.ErrorOutput, Ename: "ERROR", Evalue: evalue}
	}
	htmlOut := func(text string) *notebook.Output {
		raw, _ := json.Marshal(text)
		return &notebook.Output{OutputType: notebook.DisplayData, Data: notebook.Object{"text/html": raw}}
	}
	stderr := func(text string) *notebook.Output {
		return &notebook.Output{OutputType: notebook.Stream, Name: "stderr", Text: text}
	}
	const (
		goGet     = `failed to run "/opt/agx/docker/scripts/kernel-bin/go get": exit status 1`
		goBuild   = `failed to run "/opt/agx/docker/scripts/kernel-bin/go build -o /scratch/gonb_1/gonb_1": exit status 1`
		goImports = `failed to run "/home/u/.local/share/agx/bin/goimports -w /scratch/gonb_1/main.go": exit status 1`
	)
	lookup := htmlOut("<pre>failed to run \"go get\": exit status 1\n\ngo: downloading gonum.org/v1/plot v0.16.0\n" +
		"go: gonb_d64ee1c9 imports\n\tgonum.org/v1/plot: module lookup disabled by GOPROXY=off</pre>")
	for _, tc := range []struct {
		name    string
		origin  string // of the cell that shows the outputs
		ran     bool
		outputs []*notebook.Output
		want    string // substring of the reason; "" for none
	}{
		{"go get in a test cell", rebuild.FromSource, true, []*notebook.Output{lookup, errOut(goGet)}, "`go get` failed: go: gonb_… imports gonum.org/v1/plot: module lookup disabled"},
		{"go get in a stub", rebuild.FromStub, true, []*notebook.Output{errOut(goGet)}, "`go get` failed"},
		{"go get in the student's cell", rebuild.FromSubmission, true, []*notebook.Output{lookup, errOut(goGet)}, ""},
		{"go get in a cell the student added", rebuild.FromStudent, true, []*notebook.Output{errOut(goGet)}, ""},
		{"goimports in a test cell", rebuild.FromSource, true, []*notebook.Output{stderr("main.go:3:1: expected declaration"), errOut(goImports)}, "goimports failed"},
		{"module error in a test cell's build", rebuild.FromSource, true, []*notebook.Output{stderr("go: updates to go.mod needed; to update it:\n\tgo mod tidy\n"), errOut(goBuild)}, "the build failed in the go command: go: updates to go.mod needed"},
		{"missing module in a test cell's build", rebuild.FromSource, true, []*notebook.Output{htmlOut("<pre>main.go:5:2: no required module provides package github.com/goagx/agx/grade; to add it:\n\tgo get github.com/goagx/agx/grade</pre>"), errOut(goBuild)},
			"the build failed in the go command: main.go:5:2: no required module provides package github.com/goagx/agx/grade"},
		{"compile error in a test cell", rebuild.FromSource, true, []*notebook.Output{htmlOut("<pre>./main.go:12:9: undefined: GELU</pre>"), errOut(goBuild)}, ""},
		{"panic in a test cell", rebuild.FromSource, true, []*notebook.Output{stderr("panic: boom\n"), errOut("exit status 2")}, ""},
		{"go get in a test cell that did not run", rebuild.FromSource, false, []*notebook.Output{errOut(goGet)}, ""},
		{"no outputs", rebuild.FromSource, true, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := &notebook.Notebook{Cells: []*notebook.Cell{
				{CellType: notebook.Markdown, Source: "# Exercise"},
				{CellType: notebook.Code, Source: "func GELU() {}"},
				{CellType: notebook.Code, Source: "%%\ng := grade.New(\"t\")", Outputs: tc.outputs},
			}}
			rb := &rebuild.Rebuilt{Notebook: nb, Cells: []*rebuild.RebuiltCell{
				{Index: 0, Origin: rebuild.FromSource},
				{Index: 1, GradeID: "code", Origin: rebuild.FromSubmission},
				{Index: 2, GradeID: "t", Kind: "test", Origin: tc.origin},
			}}
			res := &jupyter.Result{Notebook: nb, Cells: []*jupyter.CellRun{{Index: 1, Ran: true}, {Index: 2, Ran: tc.ran}}}
			got := toolingFailure(rb, res)
			switch {
			case tc.want == "" && got != "":
				t.Errorf("toolingFailure = %q, want none", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("toolingFailure = %q, want it to contain %q", got, tc.want)
			case tc.want != "" && !strings.Contains(got, "in t, which holds no student code"):
				t.Errorf("toolingFailure = %q does not name the cell", got)
			}
		})
	}
}
