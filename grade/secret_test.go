package grade

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecret runs a program that asks for results the way a test cell does
// and the ways other cells' code could: only the test cell's own New, in
// main, receives the secret, once, and the file is gone before any code of
// package main runs.
func TestSecret(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"armed", "cell s3cret\n", `var="" file=false init="" helper="" goroutine="" other="" main="s3cret" again=""`},
		{"another grade_id", "other s3cret", `var="" file=false init="" helper="" goroutine="" other="s3cret" main="" again=""`},
		{"no such cell", "elsewhere s3cret", `var="" file=false init="" helper="" goroutine="" other="" main="" again=""`},
		{"malformed", "s3cret", `var="" file=false init="" helper="" goroutine="" other="" main="" again=""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secret")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(goBin, "run", "./testdata/armed")
			cmd.Env = append(os.Environ(), SecretEnv+"="+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			_, got, ok := strings.Cut(string(out), "RESULT ")
			if !ok || strings.TrimSpace(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("the secret file is still there: %v", err)
			}
		})
	}
}
