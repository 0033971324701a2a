package testenv

import (
	"fmt"
	"strings"
	"testing"
)

// recorder stands in for a test: it records Skip and Fatalf instead of
// ending the goroutine.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Skip(args ...any)               { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }

func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		name, env  string
		requireAll bool
	}{
		{"unset", "", false},
		{"zero", "0", false},
		{"other", "yes", false},
		{"one", "1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(RequireAllVar, tc.env)
			if got := RequireAll(); got != tc.requireAll {
				t.Errorf("RequireAll() with %s=%q = %v, want %v", RequireAllVar, tc.env, got, tc.requireAll)
			}
			r := &recorder{TB: t}
			Missing(r, "dot not found (apt-get install %s)", "graphviz")
			const msg = "dot not found (apt-get install graphviz)"
			if tc.requireAll {
				if r.skipped != "" || !strings.HasPrefix(r.failed, msg) || !strings.Contains(r.failed, RequireAllVar+"=1") {
					t.Errorf("want a failure starting %q naming %s, got skip %q, failure %q", msg, RequireAllVar, r.skipped, r.failed)
				}
			} else if r.failed != "" || r.skipped != msg {
				t.Errorf("want the skip %q, got skip %q, failure %q", msg, r.skipped, r.failed)
			}
		})
	}
}
