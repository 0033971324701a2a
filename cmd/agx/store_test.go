package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

// TestStoreThenCheckStored stores a notebook's outputs with --store, checks
// them with --check-stored, then changes one stored line and expects the
// check to fail with a diff.
func TestStoreThenCheckStored(t *testing.T) {
	needJupyter(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "pass.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "pass.ipynb")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var lastStdout string
	run := func(flag string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := agxMain(context.Background(), []string{"run", flag, "--kernel", testKernel(), "-o", filepath.Join(dir, "out"), path}, &stdout, &stderr)
		lastStdout = stdout.String()
		return code, stderr.String()
	}

	if code, _ := run("--check-stored"); code != 1 {
		t.Errorf("--check-stored before --store: exit status %d, want 1 (nothing stored)", code)
	}
	if code, stderr := run("--store"); code != 0 || !strings.Contains(stderr, "stored the outputs in") {
		t.Fatalf("--store: exit status %d\n%s", code, stderr)
	}
	nb, err := notebook.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !nb.HasStoredOutputs() {
		t.Fatal("--store stored no outputs")
	}
	var li struct{ Name, Version, Mimetype string }
	if err := json.Unmarshal(nb.Metadata["language_info"], &li); err != nil || li.Name != "go" || li.Mimetype != "text/x-go" || !strings.HasPrefix(li.Version, "go") {
		t.Errorf("metadata.language_info = %s, want the kernel's (GoNB: name go, its Go version, mimetype text/x-go)", nb.Metadata["language_info"])
	}
	cell := nb.Cells[1]
	if len(cell.Outputs) != 1 || cell.Outputs[0].Text != "hello agx\nx = [4 6]\n" || cell.ExecutionCount == nil {
		t.Fatalf("stored outputs of cell 1: %+v (want one merged stdout stream and an execution count)", cell.Outputs)
	}
	if code, stderr := run("--check-stored"); code != 0 {
		t.Fatalf("--check-stored right after --store: exit status %d\n%s", code, stderr)
	}

	cell.Outputs[0].Text = "hello agx\nx = [4 7]\n"
	if err := notebook.Write(path, nb); err != nil {
		t.Fatal(err)
	}
	code, stderr := run("--check-stored")
	for _, want := range []string{"the stored outputs differ", "- x = [4 7]", "+ x = [4 6]"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--check-stored after an edit: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != 1 {
		t.Errorf("--check-stored after an edit: exit status %d, want 1", code)
	}
	if row := summaryRows(lastStdout)[path]; len(row) != 4 || row[1] != "1" {
		t.Errorf("summary row %q, want 1 failure (the edited cell)\n%s", row, lastStdout)
	}

	// A volatile cell is not compared.
	cell.Metadata["agx"] = []byte(`{"volatile": true, "expect": ["hello agx", "x = [4 6]"]}`)
	if err := notebook.Write(path, nb); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run("--check-stored"); code != 0 {
		t.Errorf("--check-stored with the edited cell volatile: exit status %d\n%s", code, stderr)
	}
}
