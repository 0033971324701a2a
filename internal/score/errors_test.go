package score

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

// gonbCompileError is the shape of GoNB's (v0.11.4) HTML block for a compile
// error, the only output that carries the compiler's message (styles cut).
const gonbCompileError = "\n<style>\n.gonb-err-location {\n\tbackground: var(--jp-err-color2);\n}\n</style>\n" +
	`<div class="jp-RenderedText" data-mime-type="application/vnd.jupyter.stderr" style="font-family: monospace;">` + "\n\n" +
	`<div style="white-space: pre-wrap;"> # gonb_81b69b18</div>` + "\n\n" +
	`<div style="white-space: pre-wrap;"><span class="gonb-err-hover-area"><span class="gonb-cell-line-info">Cell[1]: Line 1</span> <span class="gonb-err-location">./main.go:7:23: </span></span>cannot use "x" (untyped string constant) as int value in return statement` +
	`<div class="gonb-err-context">` + "\t&#34;flag&#34;\n)\n\n" + `<div class="gonb-err-line">func F() int { return &#34;SECRET&#34; }` + "\n</div>\n\n</div></div>\n\n" +
	`<div style="white-space: pre-wrap;"> </div>` + "\n\n</div>\n"

func htmlOutput(t *testing.T, h string) *notebook.Output {
	t.Helper()
	raw, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return &notebook.Output{OutputType: notebook.DisplayData, Data: notebook.Object{"text/html": raw}}
}

func TestCellErrors(t *testing.T) {
	buildErr := &notebook.Output{OutputType: notebook.ErrorOutput, Ename: "ERROR", Evalue: `failed to run ".../go build -o …": exit status 1`}
	for _, tc := range []struct {
		name    string
		outputs []*notebook.Output
		failed  bool
		want    []string // substrings, in order, of the messages joined
		notWant []string
	}{
		{"compile error", []*notebook.Output{htmlOutput(t, gonbCompileError), buildErr}, true,
			[]string{`Cell[1]: Line 1 ./main.go:7:23: cannot use "x" (untyped string constant) as int value in return statement`, "exit status 1"},
			[]string{"gonb_81b69b18", "SECRET", "<", "background"}},
		{"panic: stderr first, the HTML block repeats it", []*notebook.Output{
			{OutputType: notebook.Stream, Name: "stderr", Text: "panic: \x1b[31mboom\x1b[0m\n\n\t \x1b[7m[[ Cell [2] Line 2 ]]\x1b[0m main.go:10\n"},
			htmlOutput(t, `<div class="gonb-err-hover-area">Cell[2]: Line 2 REPEATED</div>`),
			{OutputType: notebook.ErrorOutput, Ename: "ERROR", Evalue: "exit status 2"}}, true,
			[]string{"panic: boom", "[[ Cell [2] Line 2 ]] main.go:10", "ERROR: exit status 2"},
			[]string{"\x1b", "REPEATED"}},
		{"other HTML is not an error", []*notebook.Output{htmlOutput(t, "<b>a table</b>")}, false, nil, []string{"a table"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, failed := cellErrors(&notebook.Cell{CellType: notebook.Code, Outputs: tc.outputs})
			if failed != tc.failed {
				t.Errorf("failed = %v, want %v", failed, tc.failed)
			}
			all := strings.Join(msgs, "\n")
			rest := all
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("messages %q lack %q (in order)", msgs, w)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.notWant {
				if strings.Contains(all, w) {
					t.Errorf("messages %q contain %q", msgs, w)
				}
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[31mred\x1b[0m and \x1b[1;32mbold green\x1b[m", "red and bold green"},
		{"\x1b[7m[[ Cell [2] Line 2 ]]\x1b[0m /tmp/gonb_0a1b2c3d/main.go:10", "[[ Cell [2] Line 2 ]] …/main.go:10"},
		{"title\x1b]0;x\x07done", "titledone"},
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
