package nbgrader

import (
	"strings"
	"testing"
)

const stubLine = `panic("agx: not implemented yet: write your solution here (exercise ex)")`

func TestClearSolutions(t *testing.T) {
	for _, tc := range []struct {
		name, src, want, err string
	}{
		{name: "function body",
			src:  "func GELU(x *agx.Tensor) *agx.Tensor {\n\t// BEGIN SOLUTION\n\treturn x.GELU()\n\t// END SOLUTION\n}\n",
			want: "func GELU(x *agx.Tensor) *agx.Tensor {\n\t// YOUR CODE HERE\n\t" + stubLine + "\n}\n"},
		{name: "method, nested and indented",
			src:  "type G struct{}\n\nfunc (G) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {\n\tif true {\n\t\t// BEGIN SOLUTION\n\t\ty := in[0]\n\t\treturn agx.Outputs(y)\n\t\t// END SOLUTION\n\t}\n\treturn nil\n}",
			want: "type G struct{}\n\nfunc (G) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {\n\tif true {\n\t\t// YOUR CODE HERE\n\t\t" + stubLine + "\n\t}\n\treturn nil\n}"},
		{name: "two regions",
			src:  "func A() int {\n  // BEGIN SOLUTION\n  return 1\n  // END SOLUTION\n}\nfunc B() (int, error) {\n  // BEGIN SOLUTION\n  return 2, nil\n  // END SOLUTION\n}\n",
			want: "func A() int {\n  // YOUR CODE HERE\n  " + stubLine + "\n}\nfunc B() (int, error) {\n  // YOUR CODE HERE\n  " + stubLine + "\n}\n"},
		{name: "top level",
			src:  "// BEGIN SOLUTION\nfunc helper() {}\n// END SOLUTION\nvar x = 1\n",
			want: "// YOUR CODE HERE\nvar x = 1\n"},
		{name: "after %%",
			src:  "%%\n// BEGIN SOLUTION\nanswer = \"b\"\n// END SOLUTION\nfmt.Println(answer)\n",
			want: "%%\n// YOUR CODE HERE\n" + stubLine + "\nfmt.Println(answer)\n"},
		{name: "braces in strings and comments",
			src:  "var s = \"{\" // {\nvar r = '{'\nvar q = `{{`\n/* { */\n// BEGIN SOLUTION\nfunc f() {}\n// END SOLUTION\n",
			want: "var s = \"{\" // {\nvar r = '{'\nvar q = `{{`\n/* { */\n// YOUR CODE HERE\n"},
		{name: "no markers", src: "func f() {}\n", want: "func f() {}\n"},
		{name: "begin without end", src: "func f() {\n// BEGIN SOLUTION\n}\n", err: "line 2: BEGIN SOLUTION without END SOLUTION"},
		{name: "end without begin", src: "x\n// END SOLUTION\n", err: "line 2: END SOLUTION without BEGIN SOLUTION"},
		{name: "nested", src: "// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n// END SOLUTION\n", err: "line 2: BEGIN SOLUTION inside the BEGIN SOLUTION of line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ClearSolutions(tc.src, "ex")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestRemoveHiddenTests(t *testing.T) {
	for _, tc := range []struct{ name, src, want, err string }{
		{"one block", "g := grade.New(\"a\")\n// BEGIN HIDDEN TESTS\ng.Hidden()\ng.Check(\"h\", 1, f)\n// END HIDDEN TESTS\ng.Done()\n", "g := grade.New(\"a\")\ng.Done()\n", ""},
		{"two blocks, no final newline", "a\n// BEGIN HIDDEN TESTS\nb\n// END HIDDEN TESTS\nc\n  // BEGIN HIDDEN TESTS\nd\n  // END HIDDEN TESTS", "a\nc", ""},
		{"unbalanced", "// BEGIN HIDDEN TESTS\nx\n", "", "line 1: BEGIN HIDDEN TESTS without END HIDDEN TESTS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RemoveHiddenTests(tc.src)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestInsertNonce(t *testing.T) {
	src := "%%\ng := grade.New(\"gelu-forward\")\ng.Done()\n"
	got, err := InsertNonce(src, "gelu-forward", "Z9")
	if err != nil || !strings.Contains(got, `g := grade.New("gelu-forward").Nonce("Z9")`) {
		t.Errorf("got %q, %v", got, err)
	}
	if a, b := NewNonce(), NewNonce(); len(a) != 32 || a == b {
		t.Errorf("NewNonce: %q, %q", a, b)
	}
	if _, err := InsertNonce(src, "other", "Z9"); err == nil {
		t.Error("no error for a cell without the call")
	}
}
