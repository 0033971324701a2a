package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestExchangeUsage checks the exchange commands' usage errors and help.
func TestExchangeUsage(t *testing.T) {
	ex := filepath.Join(t.TempDir(), "ex")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"fetch"}, 2, "give one assignment"},
		{[]string{"submit", "a", "b"}, 2, "give one assignment"},
		{[]string{"fetch", "../x"}, 2, "one path element"},
		{[]string{"release", "ps1"}, 2, "give the assignment and its sources"},
		{[]string{"release", "--deadline", "tomorrow", "ps1", "x.ipynb"}, 2, "RFC 3339"},
		{[]string{"release", "ps1", "data.csv"}, 2, "no notebooks given"},
		{[]string{"collect", "--deadline", "2025-13-01", "ps1"}, 2, "RFC 3339"},
		{[]string{"exchange"}, 2, "init or status"},
		{[]string{"exchange", "frob"}, 2, "unknown subcommand"},
		{[]string{"exchange", "--exchange", ex, "status", "ps1"}, 1, "agx exchange init"},
		{[]string{"fetch", "--exchange", ex, "ps1"}, 1, "agx exchange init"},
		{[]string{"submit", "-h"}, 0, "latest submission counts"},
		{[]string{"collect", "-h"}, 0, "late.txt"},
	} {
		var stdout, stderr bytes.Buffer
		code := agxMain(context.Background(), c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stdout.String()+stderr.String(), c.says) {
			t.Errorf("agx %v: exit %d, want %d saying %q:\n%s%s", c.args, code, c.code, c.says, stdout.String(), stderr.String())
		}
	}
}
