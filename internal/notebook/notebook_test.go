package notebook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testdata/roundtrip.ipynb was written by Python's nbformat.write (nbformat
// 5.5), with attachments, unknown keys at every level, all output types and
// non-ASCII text. Writing it back must give the same bytes.
func TestRoundTripMatchesNbformat(t *testing.T) {
	want, err := os.ReadFile("testdata/roundtrip.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Parse(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < min(len(gl), len(wl)); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs:\n got: %q\nwant: %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("output has %d lines, want %d", len(gl), len(wl))
	}
}

func TestParseFields(t *testing.T) {
	nb, err := Read("testdata/roundtrip.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if nb.Nbformat != 4 || len(nb.Cells) != 4 {
		t.Fatalf("nbformat %d, %d cells; want 4, 4", nb.Nbformat, len(nb.Cells))
	}
	md, code := nb.Cells[0], nb.Cells[1]
	t.Run("markdown", func(t *testing.T) {
		if md.CellType != Markdown || !strings.HasPrefix(md.Source, "# Title\n\nSome") {
			t.Errorf("cell 0: type %q source %q", md.CellType, md.Source)
		}
		if _, ok := md.Extra["attachments"]; !ok {
			t.Errorf("attachments not kept in Extra: %v", md.Extra)
		}
	})
	t.Run("code", func(t *testing.T) {
		if code.Source != "%%\nfmt.Println(\"hello\")\nfmt.Println(1.5, 2)" {
			t.Errorf("source %q", code.Source)
		}
		if code.ExecutionCount == nil || *code.ExecutionCount != 3 {
			t.Errorf("execution_count %v", code.ExecutionCount)
		}
		if !code.HasTag("raises-exception") || code.HasTag("other") {
			t.Errorf("tags %v", code.Tags())
		}
		if got := code.FirstLine(); got != `fmt.Println("hello")` {
			t.Errorf("FirstLine %q", got)
		}
	})
	t.Run("outputs", func(t *testing.T) {
		outs := code.Outputs
		if len(outs) != 5 {
			t.Fatalf("%d outputs, want 5", len(outs))
		}
		if outs[0].OutputType != Stream || outs[0].Name != "stdout" || outs[0].Text != "hello\n1.5 2\n" {
			t.Errorf("stream output %+v", outs[0])
		}
		if string(outs[0].Extra["transient_extra"]) != `"kept"` {
			t.Errorf("unknown output key lost: %v", outs[0].Extra)
		}
		if s, ok := outs[2].DataText("text/html"); !ok || s != "<div>\n<b>x</b>\n</div>\n" {
			t.Errorf("text/html %q %v", s, ok)
		}
		if _, ok := outs[2].DataText("application/vnd.agx.grade+json"); ok {
			t.Errorf("a JSON object is not text")
		}
		if s, _ := outs[3].DataText("text/plain"); s != "tensor([4., 6.], grad_fn=<SquareBackward>)" {
			t.Errorf("execute_result text/plain %q", s)
		}
		e := outs[4]
		if e.Ename != "ERROR" || e.Evalue != "exit status 2" || !reflect.DeepEqual(e.Traceback, []string{"exit status 2", "second"}) {
			t.Errorf("error output %+v", e)
		}
	})
	t.Run("extra", func(t *testing.T) {
		if _, ok := nb.Extra["extra_top"]; !ok {
			t.Errorf("unknown top-level key lost")
		}
	})
}

func TestWriteNewNotebook(t *testing.T) {
	n := 1
	nb := &Notebook{Nbformat: 4, NbformatMinor: 5, Cells: []*Cell{
		{ID: "a", CellType: Code, Source: "x\ny\n", ExecutionCount: &n, Outputs: []*Output{
			{OutputType: Stream, Name: "stdout", Text: "1\n2"},
			{OutputType: ExecuteResult, Data: Object{"text/plain": json.RawMessage(`"v\n"`)}, ExecutionCount: &n},
		}},
		{ID: "b", CellType: Markdown, Source: ""},
	}}
	path := filepath.Join(t.TempDir(), "new.ipynb")
	if err := Write(path, nb); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := nb.Marshal()
	b2, _ := back.Marshal()
	if !bytes.Equal(b1, b2) {
		t.Fatalf("write/read/write changed the notebook:\n%s\n---\n%s", b1, b2)
	}
	for _, want := range []string{
		`"text": [` + "\n" + `      "1\n",` + "\n" + `      "2"`,
		`"text/plain": [` + "\n" + `       "v\n"`,
		`"outputs": [`,
		`"source": []`,
	} {
		if !bytes.Contains(b1, []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, b1)
		}
	}
	if bytes.Contains(b1, []byte(`"outputs": [],`+"\n"+`   "source": []`)) {
		t.Errorf("markdown cell got outputs")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"not json", "{"},
		{"nbformat 3", `{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}`},
		{"bad source", `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "source": 3}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.in)); err == nil {
				t.Errorf("Parse(%q) succeeded", tc.in)
			}
		})
	}
}

func TestSplitLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", []string{}},
		{"no newline", "a", []string{"a"}},
		{"trailing newline", "a\nb\n", []string{"a\n", "b\n"}},
		{"crlf and cr", "a\r\nb\rc", []string{"a\r\n", "b\r", "c"}},
		{"python boundaries", "a\vb\fc\u2028d\x1ce", []string{"a\v", "b\f", "c\u2028", "d\x1c", "e"}},
		{"blank lines", "\n\n", []string{"\n", "\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitLines(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("splitLines(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
