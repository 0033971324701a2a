package notebook

import (
	"encoding/json"
	"strings"
	"testing"
)

func stream(name, text string) *Output { return &Output{OutputType: Stream, Name: name, Text: text} }

func display(mime, text string) *Output {
	b, _ := json.Marshal(text)
	return &Output{OutputType: DisplayData, Data: Object{mime: b}, Metadata: Object{}}
}

func TestStoredOutputs(t *testing.T) {
	n := PathNormalizer{Root: "/home/u/agx", Module: "github.com/goagx/agx"}
	in := []*Output{
		stream("stdout", "a\n"),
		stream("stdout", "b\n"),
		stream("stderr", "panic: boom\n\t/home/u/agx/agx/gradcheck.go:142\n\t/tmp/gonb_74347aaf/main.go:65 +0xe7\n"),
		stream("stderr", "exit status 2\n"),
		display("text/html", `<span>/var/tmp/gonb_0a1b2c3d/main.go:9</span>`),
		stream("stdout", "c\n"),
		{OutputType: ErrorOutput, Ename: "ERROR", Evalue: "at /home/u/agx/x.go", Traceback: []string{"/tmp/gonb_abcdef/main.go"}},
	}
	got := StoredOutputs(in, n)
	want := []struct{ typ, name, text string }{
		{Stream, "stdout", "a\nb\n"},
		{Stream, "stderr", "panic: boom\n\tgithub.com/goagx/agx/agx/gradcheck.go:142\n\tgonb/main.go:65 +0xe7\nexit status 2\n"},
		{DisplayData, "", "<span>gonb/main.go:9</span>"},
		{Stream, "stdout", "c\n"},
		{ErrorOutput, "", "at github.com/goagx/agx/x.go"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d outputs, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		o := got[i]
		text := o.Text
		switch o.OutputType {
		case DisplayData:
			text, _ = o.DataText("text/html")
		case ErrorOutput:
			text = o.Evalue
			if o.Traceback[0] != "gonb/main.go" {
				t.Errorf("traceback not normalized: %q", o.Traceback)
			}
		}
		if o.OutputType != w.typ || o.Name != w.name || text != w.text {
			t.Errorf("output %d: got %s %s %q, want %s %s %q", i, o.OutputType, o.Name, text, w.typ, w.name, w.text)
		}
	}
	if in[0].Text != "a\n" {
		t.Error("StoredOutputs changed its input")
	}
}

func TestCompareStored(t *testing.T) {
	base := []*Output{stream("stdout", "x = 1\n"), display("text/html", "<b>1</b>"), stream("stdout", "done\n")}
	tests := []struct {
		name     string
		stored   []*Output
		fresh    []*Output
		wantDiff []string // lines of the diff; nil: equal
	}{
		{"equal", base, base, nil},
		{"a number changed", base, []*Output{stream("stdout", "x = 2\n"), display("text/html", "<b>1</b>"), stream("stdout", "done\n")},
			[]string{"  [stdout]", "- x = 1", "+ x = 2", "  [display_data text/html]"}},
		{"display before text", base, []*Output{display("text/html", "<b>1</b>"), stream("stdout", "x = 1\n"), stream("stdout", "done\n")},
			[]string{"- [stdout]", "- x = 1", "  [display_data text/html]", "  [stdout]", "+ x = 1", "  done"}},
		{"an output is missing", base, base[:2], []string{"  <b>1</b>", "- [stdout]", "- done"}},
		{"stack frames and offsets do not count",
			[]*Output{stream("stderr", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\tgonb/main.go:65 +0xe7\nexit status 2\n")},
			[]*Output{stream("stderr", "panic: boom\n\ngoroutine 7 [running]:\nmain.main()\n\tgonb/main.go:66 +0x1f\n"), stream("stderr", "exit status 2\n")},
			nil},
		{"the panic message counts",
			[]*Output{stream("stderr", "panic: boom\n")},
			[]*Output{stream("stderr", "panic: bang\n")},
			[]string{"  [stderr]", "- panic: boom", "+ panic: bang"}},
		{"stderr apart from stdout",
			[]*Output{stream("stdout", "a\n"), stream("stderr", "log\n"), stream("stdout", "b\n")},
			[]*Output{stream("stderr", "log\n"), stream("stdout", "a\n"), stream("stdout", "b\n")},
			nil},
		{"a long line shown from its first difference",
			[]*Output{display("text/html", strings.Repeat("<td>1</td>", 30)+"<caption style=\"a\">")},
			[]*Output{display("text/html", strings.Repeat("<td>1</td>", 30)+"<caption style=\"b\">")},
			// The lines first differ at rune 316; the diff starts 60 runes before.
			[]string{"  [display_data text/html]", "- …" + (strings.Repeat("<td>1</td>", 30) + "<caption style=\"a\">")[256:], "+ …" + (strings.Repeat("<td>1</td>", 30) + "<caption style=\"b\">")[256:]}},
		{"error value", []*Output{{OutputType: ErrorOutput, Ename: "ERROR", Evalue: "exit status 2"}},
			[]*Output{{OutputType: ErrorOutput, Ename: "ERROR", Evalue: "exit status 1"}},
			[]string{"- [error] ERROR: exit status 2", "+ [error] ERROR: exit status 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CompareStored(tc.stored, tc.fresh)
			if tc.wantDiff == nil {
				if got != "" {
					t.Fatalf("want equal, got diff:\n%s", got)
				}
				return
			}
			if want := strings.Join(tc.wantDiff, "\n"); got != want {
				t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestVolatileAndHasStoredOutputs(t *testing.T) {
	nb, err := Parse([]byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
	 {"cell_type": "code", "metadata": {"agx": {"volatile": true}}, "source": "", "outputs": [], "execution_count": null},
	 {"cell_type": "code", "metadata": {"agx": {"volatile": "yes"}}, "source": "", "outputs": [], "execution_count": null},
	 {"cell_type": "code", "metadata": {}, "source": "", "outputs": [], "execution_count": null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, false} {
		if got := nb.Cells[i].Volatile(); got != want {
			t.Errorf("cell %d: Volatile() = %v, want %v", i, got, want)
		}
	}
	if nb.HasStoredOutputs() {
		t.Error("HasStoredOutputs() = true for a notebook without outputs")
	}
	one := 1
	nb.Cells[2].ExecutionCount = &one
	if !nb.HasStoredOutputs() {
		t.Error("HasStoredOutputs() = false with an execution count")
	}
}
