package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
)

// TestDisplayOrder runs orderCells cells of each kind, each printing and
// displaying orderPairs times in turn.
const (
	orderCells = 5
	orderPairs = 4
)

// TestDisplayOrder runs, through the real kernel, cells that print text and
// then display something (agx/nb's Markdown, HTML and Println), and checks that
// the text comes first every time (orderCells x orderPairs = 20 times per
// kind). GoNB sends the two on different channels; agx/nb orders them
// (agx/nb/order.go). Without that, the display came first in about 1 of 5 runs.
func TestDisplayOrder(t *testing.T) {
	needJupyter(t)
	kinds := []struct{ name, display, marker string }{
		{"Markdown", `nb.Markdown("**shown second**")`, "text/markdown"},
		{"HTML", `nb.HTML("<b>shown second</b>")`, "text/html"},
		{"Println", `nb.Println("t =", agx.FromSlice([]float64{1, 2}))`, "text/html"},
	}
	nbk := &notebook.Notebook{Nbformat: 4, NbformatMinor: 5, Metadata: notebook.Object{}}
	nbk.Cells = append(nbk.Cells, &notebook.Cell{CellType: notebook.Code, Source: "import (\n\t\"fmt\"\n\n\t\"github.com/goagx/agx/agx\"\n\t\"github.com/goagx/agx/agx/nb\"\n)\n\nvar _ = agx.FromSlice\nvar _ = fmt.Println\nvar _ = nb.HTML"})
	for i := 0; i < orderCells; i++ {
		for _, k := range kinds {
			src := fmt.Sprintf("%%%%\nfor i := range %d {\n\tfmt.Println(\"printed first\", i)\n\t%s\n}", orderPairs, k.display)
			nbk.Cells = append(nbk.Cells, &notebook.Cell{CellType: notebook.Code, Source: src, Metadata: notebook.Object{}})
		}
	}
	for i, c := range nbk.Cells {
		c.ID = fmt.Sprintf("order-%d", i)
		if c.Metadata == nil {
			c.Metadata = notebook.Object{}
		}
	}
	path := filepath.Join(t.TempDir(), "order.ipynb")
	if err := notebook.Write(path, nbk); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := jupyter.Execute(ctx, path, jupyter.Options{Kernel: testKernel(), CellTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	wrong := map[string]int{}
	for i, c := range res.Notebook.Cells[1:] {
		k := kinds[i%len(kinds)]
		var order []string
		for _, o := range c.Outputs {
			switch {
			case o.OutputType == notebook.Stream && o.Name == "stdout":
				if n := len(order); n > 0 && order[n-1] == "text" {
					continue // one print can arrive in pieces
				}
				order = append(order, "text")
			case o.OutputType == notebook.DisplayData:
				if _, ok := o.Data[k.marker]; ok {
					order = append(order, "display")
				}
			default:
				order = append(order, o.OutputType+" "+o.Name)
			}
		}
		want := strings.TrimSuffix(strings.Repeat("text,display,", orderPairs), ",")
		if got := strings.Join(order, ","); got != want {
			wrong[k.name]++
			t.Errorf("cell %d (%s): outputs %s, want %s", i+2, k.name, got, want)
		}
	}
	for _, k := range kinds {
		t.Logf("%s: %d of %d cells (%d pairs each) out of order", k.name, wrong[k.name], orderCells, orderPairs)
	}
	_ = os.Remove(path)
}
