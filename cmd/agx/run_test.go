package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

func TestAgxMainUsage(t *testing.T) {
	dir := t.TempDir()
	nb := filepath.Join(dir, "a.ipynb")
	executed := filepath.Join(dir, "a.executed.ipynb")
	for _, p := range []string{nb, executed} {
		if err := os.WriteFile(p, []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no arguments", nil, 2, "usage: agx COMMAND"},
		{"help", []string{"help"}, 0, "Commands:"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"run help", []string{"run", "-h"}, 0, "-cell-timeout"},
		{"run without notebooks", []string{"run"}, 2, "no notebooks to run"},
		{"run unknown flag", []string{"run", "--nope", nb}, 2, "flag provided but not defined: -nope"},
		{"run negative timeout", []string{"run", "--timeout", "-1s", nb}, 2, "must not be negative"},
		{"run no jobs", []string{"run", "-j", "0", nb}, 2, "run at least one notebook at a time"},
		{"run not a notebook", []string{"run", filepath.Join(dir, "x.go")}, 2, "is not a notebook"},
		{"run only executed copies", []string{"run", executed}, 2, "skipping " + executed},
		{"run missing file", []string{"run", filepath.Join(dir, "missing.ipynb")}, 1, "no such file"},
		{"bench gap with PyTorch", []string{"bench", "-gap", "40ms"}, 2, "-gap takes a positive duration and needs -no-torch"},
		{"bench negative gap", []string{"bench", "-no-torch", "-gap", "-1ms"}, 2, "-gap takes a positive duration"},
		{"bench help names gap", []string{"bench", "-h"}, 0, "-gap"},
		{"run -o onto itself", []string{"run", "-o", dir, nb}, 2, "would overwrite"},
		{"run store and check-stored", []string{"run", "--store", "--check-stored", nb}, 2, "--store and --check-stored exclude each other"},
		{"run help names store", []string{"run", "-h"}, 0, "-check-stored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := agxMain(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, stderr.String())
			}
		})
	}
}

func TestModulePath(t *testing.T) {
	for _, tc := range []struct{ gomod, want string }{
		{"module github.com/goagx/agx\n\ngo 1.26\n", "github.com/goagx/agx"},
		{"// comment\nmodule \"example.com/q\" // trailing\n", "example.com/q"},
		{"go 1.26\n", ""},
		{"", ""},
	} {
		if got := modulePath([]byte(tc.gomod)); got != tc.want {
			t.Errorf("modulePath(%q) = %q, want %q", tc.gomod, got, tc.want)
		}
	}
	n := pathNormalizer(filepath.Join("testdata", "pass.ipynb"))
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	if n.Root != root || n.Module != "github.com/goagx/agx" {
		t.Errorf("pathNormalizer(testdata/pass.ipynb) = %+v, want root %s, module github.com/goagx/agx", n, root)
	}
}

func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantPos []string
		wantO   string
	}{
		{"flags first", []string{"-o", "out", "a.ipynb", "b.ipynb"}, []string{"a.ipynb", "b.ipynb"}, "out"},
		{"flags last", []string{"a.ipynb", "-o", "out"}, []string{"a.ipynb"}, "out"},
		{"flags between", []string{"a.ipynb", "-o=out", "b.ipynb"}, []string{"a.ipynb", "b.ipynb"}, "out"},
		{"double dash", []string{"a.ipynb", "--", "-o", "b.ipynb"}, []string{"a.ipynb", "-o", "b.ipynb"}, ""},
		{"none", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			o := fs.String("o", "", "")
			pos, err := parseInterspersed(fs, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pos, tc.wantPos) || *o != tc.wantO {
				t.Errorf("got %q, -o %q; want %q, -o %q", pos, *o, tc.wantPos, tc.wantO)
			}
		})
	}
}

func TestPlanRunOutputs(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"x", "y"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "nb.ipynb"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x, y := filepath.Join(dir, "x", "nb.ipynb"), filepath.Join(dir, "y", "nb.ipynb")
	var stderr bytes.Buffer
	t.Run("beside", func(t *testing.T) {
		jobs, err := planRun([]string{x, y}, "", &stderr)
		if err != nil {
			t.Fatal(err)
		}
		if jobs[0].out != filepath.Join(dir, "x", "nb.executed.ipynb") || jobs[1].out != filepath.Join(dir, "y", "nb.executed.ipynb") {
			t.Errorf("outputs %+v", jobs)
		}
	})
	t.Run("out dir", func(t *testing.T) {
		out := filepath.Join(dir, "out")
		jobs, err := planRun([]string{x}, out, &stderr)
		if err != nil {
			t.Fatal(err)
		}
		if jobs[0].out != filepath.Join(out, "nb.ipynb") {
			t.Errorf("output %s", jobs[0].out)
		}
		if st, err := os.Stat(out); err != nil || !st.IsDir() {
			t.Errorf("-o directory not created: %v", err)
		}
	})
	t.Run("output is another input", func(t *testing.T) {
		if _, err := planRun([]string{x, y}, filepath.Join(dir, "y"), &stderr); err == nil || !strings.Contains(err.Error(), "would overwrite the notebook") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("collision", func(t *testing.T) {
		if _, err := planRun([]string{x, y}, filepath.Join(dir, "out"), &stderr); err == nil || !strings.Contains(err.Error(), "would both be written") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestPrintSummary(t *testing.T) {
	var b bytes.Buffer
	printSummary(&b, []runSummary{{"a.ipynb", 3, 0, 1.25}, {"long/b.ipynb", 10, 2, 3}})
	want := "NOTEBOOK      CELLS  FAILURES  SECONDS  RESULT\n" +
		"a.ipynb       3      0         1.2      ok\n" +
		"long/b.ipynb  10     2         3.0      FAIL\n" +
		"total         13     2         4.2      FAIL\n"
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestClipLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"this is too long", 8, "this is…"},
		{"ünïcödé", 4, "ünï…"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := clipLine(tc.in, tc.n); got != tc.want {
				t.Errorf("clipLine(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}

// writeNotebook writes a notebook of Go code cells for tests.
func writeNotebook(t *testing.T, path string, sources ...string) {
	t.Helper()
	nb := &notebook.Notebook{Nbformat: 4, NbformatMinor: 5}
	for _, src := range sources {
		nb.Cells = append(nb.Cells, &notebook.Cell{CellType: notebook.Code, Source: src})
	}
	if err := notebook.Write(path, nb); err != nil {
		t.Fatal(err)
	}
}
