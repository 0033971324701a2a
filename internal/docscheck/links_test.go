package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile("(?m)^#+ +(.+)$")
)

// slug is GitHub's anchor of a heading: lower case, spaces to hyphens,
// punctuation other than hyphens and underscores dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestLinks checks the relative links of README.md, docs/*.md and
// notebooks/*.md.
func TestLinks(t *testing.T) {
	root := "../.."
	var files []string
	for _, g := range []string{"README.md", "docs/*.md", "notebooks/*.md"} {
		m, _ := filepath.Glob(filepath.Join(root, g))
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("found only %d documents", len(files))
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		if b, err := os.ReadFile(path); err == nil {
			for _, m := range heading.FindAllStringSubmatch(string(b), -1) {
				a[slug(strings.ReplaceAll(m[1], "`", ""))] = true
			}
		}
		anchors[path] = a
		return a
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		// Links inside code spans and blocks are not links.
		text = regexp.MustCompile("(?s)```.*?```").ReplaceAllString(text, "")
		text = regexp.MustCompile("`[^`\n]*`").ReplaceAllString(text, "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link to %s: no such file", rel(root, f), target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
				t.Errorf("%s: link to %s: no heading with that anchor", rel(root, f), target)
			}
		}
	}
}

func rel(root, f string) string {
	r, err := filepath.Rel(root, f)
	if err != nil {
		return f
	}
	return r
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"The course exercises":             "the-course-exercises",
		"Beyond one machine: sizing":       "beyond-one-machine-sizing",
		"Checks (docker/scripts/x.sh, ok)": "checks-dockerscriptsxsh-ok",
		"`agx autograde`":                  "agx-autograde",
	} {
		if got := slug(strings.ReplaceAll(h, "`", "")); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
