package rebuild

import (
	"encoding/json"
	"testing"

	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

func gradedCell(id string, meta string) *notebook.Cell {
	c := &notebook.Cell{CellType: notebook.Code, Metadata: notebook.Object{}}
	if id != "" {
		c.Metadata["nbgrader"] = json.RawMessage(`{"schema_version":3,"grade":true,"solution":false,"locked":true,"grade_id":"` + id + `","points":1}`)
	}
	if meta != "" {
		c.Metadata["agx"] = json.RawMessage(meta)
	}
	return c
}

func readOnlyCell(id string) *notebook.Cell {
	return &notebook.Cell{CellType: notebook.Markdown, Metadata: notebook.Object{
		"nbgrader": json.RawMessage(`{"schema_version":3,"grade":false,"solution":false,"locked":true,"grade_id":"` + id + `"}`)}}
}

func TestWrongNotebook(t *testing.T) {
	src := &notebook.Notebook{Cells: []*notebook.Cell{gradedCell("gelu-forward", ""), gradedCell("gelu-backward", "")}}
	for _, tc := range []struct {
		name  string
		cells []*notebook.Cell
		wrong bool
	}{
		{"same notebook", []*notebook.Cell{gradedCell("gelu-forward", ""), gradedCell("gelu-backward", "")}, false},
		{"one cell left", []*notebook.Cell{gradedCell("gelu-backward", ""), gradedCell("extra", "")}, false},
		{"no nbgrader metadata", []*notebook.Cell{gradedCell("", "")}, false},
		{"another assignment", []*notebook.Cell{gradedCell("silu-forward", ""), gradedCell("silu-backward", "")}, true},
		{"another assignment with the same read-only cell", []*notebook.Cell{readOnlyCell("gelu-forward"), gradedCell("silu-forward", "")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wrong, ids := WrongNotebook(src, &notebook.Notebook{Cells: tc.cells})
			if wrong != tc.wrong {
				t.Errorf("wrong = %v (%v), want %v", wrong, ids, tc.wrong)
			}
		})
	}
}

func TestIsBonus(t *testing.T) {
	for _, tc := range []struct {
		meta string
		want bool
	}{{"", false}, {`{"bonus": true}`, true}, {`{"bonus": false}`, false}, {`{"expect": ["x"]}`, false}, {`"bonus"`, false}} {
		if got := nbgrader.IsBonus(gradedCell("t", tc.meta)); got != tc.want {
			t.Errorf("metadata.agx %s: bonus %v, want %v", tc.meta, got, tc.want)
		}
	}
}
