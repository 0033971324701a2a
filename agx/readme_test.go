package agx_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESnippet checks that the Go block of README.md is the code of
// example_readme_test.go (which go test compiles and runs as Example_readme)
// and that the values the README's comments promise are the example's
// checked output. Editing one without the other fails here.
func TestREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) != 1 {
		t.Fatalf("README.md has %d Go blocks, want 1 (the one example_readme_test.go holds)", len(blocks))
	}
	src, err := os.ReadFile("example_readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	regions := regexp.MustCompile(`(?s)// README begin\n(.*?)// README end`).FindAllStringSubmatch(string(src), -1)
	if len(regions) == 0 {
		t.Fatal("example_readme_test.go has no README begin/end region")
	}
	var code strings.Builder
	for _, r := range regions {
		code.WriteString(r[1])
	}
	want, got := normalize(code.String()), normalize(blocks[0][1])
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Fatalf("README.md's Go block differs from example_readme_test.go at statement line %d:\n README:  %q\n example: %q", i+1, g, w)
		}
	}

	// Every "// tensor(...)" comment of the README is a line of the
	// example's // Output: block, which go test compares with what it prints.
	out := string(src)[strings.Index(string(src), "// Output:"):]
	promised := regexp.MustCompile(`// (tensor\(.*\))\s*$`)
	n := 0
	for _, line := range strings.Split(blocks[0][1], "\n") {
		if m := promised.FindStringSubmatch(line); m != nil {
			n++
			if !strings.Contains(out, "// "+m[1]+"\n") {
				t.Errorf("README.md promises %s, which Example_readme's output does not contain", m[1])
			}
		}
	}
	if n == 0 {
		t.Error("README.md's Go block shows no printed value to check")
	}
}

// normalize drops blank lines and trims and collapses the spaces of the
// others, so that gofmt's alignment of comments does not matter.
func normalize(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
