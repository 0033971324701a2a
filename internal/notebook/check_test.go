package notebook

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParseNumbers(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name string
		in   string
		want []float64
	}{
		{"tensor with grad_fn", "tensor([4., 6.], grad_fn=<SquareBackward>)", []float64{4, 6}},
		{"digit in node name", "tensor([-1.5000, 2.2500], grad_fn=<MulBackward0>)", []float64{-1.5, 2.25}},
		{"matrix", "tensor([[1, 2],\n        [3, 4]])", []float64{1, 2, 3, 4}},
		{"exponents", "1e-06 2.5E+03 -3e2 .5", []float64{1e-6, 2500, -300, 0.5}},
		{"dtype and identifiers skipped", "x1 float32 t_2 3rd 0x1F", nil},
		{"go print", "1.5 2\n", []float64{1.5, 2}},
		{"sentence end", "loss is 0.25.", []float64{0.25}},
		{"version skipped", "go1.26.8 v0.11.4 1.5.2", nil},
		{"shape", "shape [2 3], dtype float64", []float64{2, 3}},
		{"key value", "step=10 loss:0.5", []float64{10, 0.5}},
		{"signs", "+1 -2 (-3)", []float64{1, -2, -3}},
		{"special", "NaN +Inf -inf infinity info nano", []float64{nan, inf, -inf, inf}},
		{"empty", "", nil},
		{"docs example", "x1 float32 go1.26.8 v0.11.4", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseNumbers(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("ParseNumbers(%q) = %v, want %v", tc.in, got, tc.want)
			}
			for i := range got {
				if !(got[i] == tc.want[i] || math.IsNaN(got[i]) && math.IsNaN(tc.want[i])) {
					t.Fatalf("ParseNumbers(%q) = %v, want %v", tc.in, got, tc.want)
				}
			}
		})
	}
}

func TestCompareNumbers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want []float64
		tol       float64
		ok        bool
	}{
		{"exact", []float64{4, 6}, []float64{4, 6}, 0, true},
		{"within abs tol", []float64{1e-7}, []float64{0}, 1e-6, true},
		{"outside abs tol", []float64{2e-6}, []float64{0}, 1e-6, false},
		{"relative for large", []float64{1e6 + 0.5}, []float64{1e6}, 1e-6, true},
		{"count differs", []float64{1, 2, 3}, []float64{1, 2}, 1e-6, false},
		{"nan", []float64{math.NaN()}, []float64{math.NaN()}, 0, true},
		{"nan vs number", []float64{math.NaN()}, []float64{1}, 1, false},
		{"inf", []float64{math.Inf(-1)}, []float64{math.Inf(-1)}, 0, true},
		{"inf sign", []float64{math.Inf(1)}, []float64{math.Inf(-1)}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := CompareNumbers(tc.got, tc.want, tc.tol)
			if (msg == "") != tc.ok {
				t.Errorf("CompareNumbers(%v, %v, %g) = %q, want ok=%v", tc.got, tc.want, tc.tol, msg, tc.ok)
			}
		})
	}
}

func stdout(s string) *Output { return &Output{OutputType: Stream, Name: "stdout", Text: s} }
func stderr(s string) *Output { return &Output{OutputType: Stream, Name: "stderr", Text: s} }
func result(s string) *Output {
	b, _ := json.Marshal(s)
	return &Output{OutputType: ExecuteResult, Data: Object{"text/plain": b}}
}
func htmlOut(s string) *Output {
	b, _ := json.Marshal(s)
	return &Output{OutputType: DisplayData, Data: Object{"text/html": b}}
}
func errOut(evalue string) *Output {
	return &Output{OutputType: ErrorOutput, Ename: "ERROR", Evalue: evalue, Traceback: []string{evalue}}
}

// GoNB's outputs for `panic("boom")`.
var panicOutputs = []*Output{
	stderr("panic: "),
	stderr("boom\n\ngoroutine 1 [running]:\nmain.main()\n\t \x1b[7m[[ Cell [2] Line 2 ]]\x1b[0m /tmp/gonb_1/main.go:10 +0x65\n"),
	stderr("exit status 2\n"),
	errOut("exit status 2"),
}

// GoNB's outputs for a compile error.
var compileOutputs = []*Output{
	htmlOut("<style>.x{}</style><div><span>Cell[3]: Line 2</span> <span>./main.go:10:6: </span></span>undefined: undefinedThing</div>"),
	errOut(`failed to run "go build -o /tmp/gonb_1/gonb_1": exit status 1`),
}

func cell(meta string, outs ...*Output) *Cell {
	c := &Cell{CellType: Code, Outputs: outs, Metadata: Object{}}
	if meta != "" {
		if err := json.Unmarshal([]byte(meta), &c.Metadata); err != nil {
			panic(err)
		}
	}
	return c
}

func TestCheck(t *testing.T) {
	raises := `{"tags": ["raises-exception"]}`
	for _, tc := range []struct {
		name string
		cell *Cell
		want []string // substrings, one per expected problem, in order
	}{
		{"plain output", cell("", stdout("hi\n")), nil},
		{"no output", cell(""), nil},
		{"stderr log is fine", cell("", stderr("loading...\n")), nil},
		{"unexpected panic", cell("", panicOutputs...), []string{"unexpected error: panic: boom"}},
		{"unexpected compile error", cell("", compileOutputs...), []string{"unexpected error: Cell[3]: Line 2 undefined: undefinedThing"}},
		{"panic on stderr only", cell("", stderr("panic: runtime error: index out of range [3] with length 2\n")),
			[]string{"unexpected Go failure on stderr: panic: runtime error: index out of range"}},
		{"raises and raised", cell(raises, panicOutputs...), nil},
		{"raises but did not", cell(raises, stdout("fine\n")), []string{"expected an error"}},
		{"expect lines ok", cell(`{"agx": {"expect": ["a = 1", "b = 2"]}}`, stdout("a = 1  \r\nb = 2\n")), nil},
		{"expect lines from text/plain", cell(`{"agx": {"expect": ["tensor([4., 6.])"]}}`, result("tensor([4., 6.])")), nil},
		{"expect line missing", cell(`{"agx": {"expect": ["a = 1", "c = 3"]}}`, stdout("a = 1\nb = 2\n")),
			[]string{`expected output line "c = 3" not found`, "output was:\n    a = 1\n    b = 2"}},
		{"expect line ignores stderr", cell(`{"agx": {"expect": ["x"]}}`, stderr("x\n")), []string{`"x" not found`, "(no text output)"}},
		{"numbers ok", cell(`{"agx": {"expect_numbers": {"values": [4, 6]}}}`,
			result("tensor([4., 6.], grad_fn=<SquareBackward>)")), nil},
		{"numbers within tol", cell(`{"agx": {"expect_numbers": {"values": [0.333], "tol": 1e-3}}}`, stdout("0.3333333\n")), nil},
		{"numbers docs example", cell(`{"agx": {"expect_numbers": {"values": [4, 6.1], "tol": 1e-3}}}`,
			result("tensor([4., 6.], grad_fn=<SquareBackward>)")), []string{"number 2: got 6, want 6.1 (tol 0.001)"}},
		{"numbers off", cell(`{"agx": {"expect_numbers": {"values": [4, 7]}}}`, stdout("4 6\n")),
			[]string{"number 2: got 6, want 7"}},
		{"numbers nan string", cell(`{"agx": {"expect_numbers": {"values": ["nan", "-inf"]}}}`, stdout("NaN -Inf\n")), nil},
		{"bad numbers", cell(`{"agx": {"expect_numbers": {"values": ["x"]}}}`, stdout("1\n")), []string{"not a number"}},
		{"negative tol", cell(`{"agx": {"expect_numbers": {"values": [1], "tol": -1}}}`, stdout("1\n")), []string{"tol must be >= 0"}},
		{"expect_error ok", cell(`{"tags": ["raises-exception"], "agx": {"expect_error": "boom"}}`, panicOutputs...), nil},
		{"expect_error compile", cell(`{"tags": ["raises-exception"], "agx": {"expect_error": "undefined: undefinedThing"}}`, compileOutputs...), nil},
		{"expect_error wrong", cell(`{"tags": ["raises-exception"], "agx": {"expect_error": "shape mismatch"}}`, panicOutputs...),
			[]string{`expected an error containing "shape mismatch", got: panic: boom`}},
		{"expect_error untagged", cell(`{"agx": {"expect_error": "boom"}}`, panicOutputs...),
			[]string{"unexpected error", "not tagged raises-exception"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.cell.Check()
			if len(got) != len(tc.want) {
				t.Fatalf("Check() = %q, want %d problems like %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	c := cell("", compileOutputs...)
	text := c.ErrorText()
	for _, want := range []string{"undefined: undefinedThing", "ERROR: failed to run"} {
		if !strings.Contains(text, want) {
			t.Errorf("ErrorText() = %q, lacks %q", text, want)
		}
	}
	if strings.Contains(text, "<span>") || strings.Contains(text, ".x{}") {
		t.Errorf("ErrorText() kept HTML: %q", text)
	}
}

func TestExpectations(t *testing.T) {
	c := cell(`{"agx": {"expect": ["a"], "expect_numbers": {"values": [1, "inf"], "tol": 0.5}, "expect_error": "e", "future_key": 1}}`)
	e, err := c.Expectations()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e.Lines, []string{"a"}) || *e.Error != "e" || *e.Numbers.Tol != 0.5 ||
		len(e.Numbers.Values) != 2 || !math.IsInf(float64(e.Numbers.Values[1]), 1) {
		t.Errorf("Expectations() = %+v", e)
	}
	if e, err := cell("").Expectations(); e != nil || err != nil {
		t.Errorf("no metadata: %v, %v", e, err)
	}
}
