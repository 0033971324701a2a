// Package testenv decides what a test does when something it needs from the
// machine is missing: a program (Graphviz's dot, Jupyter, the Go kernel), a
// Python module (PyTorch, NumPy, ONNX) or a facility (a network namespace).
//
// Under a developer's plain `go test` such a test skips, with a message that
// says how to install what is missing. Under `make test`, which installs
// everything its checks need first (docker/scripts/install-all.sh with
// AGX_WITH_TEST_DEPS=1) and sets AGX_TEST_REQUIRE_ALL=1, the same test fails:
// a missing tool there is a broken install, and a skipped check would hide it.
//
// Skips that do not depend on the install stay plain t.Skip: -short, opt-in
// variables such as AGX_TEST_FULL_CLASS, CPU-count and child-process guards.
// `make test` counts and names every skipped test (internal/testsum).
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// RequireAllVar is the environment variable that `make test` sets to 1.
const RequireAllVar = "AGX_TEST_REQUIRE_ALL"

// RequireAll reports whether tests must fail rather than skip when something
// they need is missing (RequireAllVar is 1).
func RequireAll() bool { return os.Getenv(RequireAllVar) == "1" }

// Missing ends t because something it needs is missing; the message says what
// and how to install it. It skips t, or fails it when RequireAll.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if RequireAll() {
		t.Fatalf("%s\n(%s=1, as in `make test`: a test may not skip for a missing tool; `make deps-test` installs them)", msg, RequireAllVar)
		return
	}
	t.Skip(msg)
}
