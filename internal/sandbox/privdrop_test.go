package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNSPlan: a directory other users may not enter on the way to a needed
// path is hidden and the path exposed; reachable paths need nothing; a path
// closed itself cannot be exposed.
func TestNSPlan(t *testing.T) {
	base, err := os.MkdirTemp("", "agx-nsplan-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	mk := func(rel string, mode os.FileMode) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home := mk("home", 0o700)
	mod := mk("home/go/pkg/mod", 0o755)
	bin := mk("home/bin", 0o755)
	inner := mk("home/go/pkg/mod/cache", 0o755)
	open := mk("open/src", 0o755)
	closed := mk("open/closed", 0o700)

	for _, tc := range []struct {
		name    string
		paths   []string
		hides   map[string][]string
		wantErr string
	}{
		{"reachable", []string{open, ""}, map[string][]string{}, ""},
		{"under a closed directory", []string{mod, bin, open}, map[string][]string{home: {bin, mod}}, ""},
		{"nested", []string{inner, mod}, map[string][]string{home: {mod}}, ""},
		{"closed itself", []string{closed}, nil, "may not read"},
		{"missing", []string{filepath.Join(base, "nothing")}, nil, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &nsPlan{stage: filepath.Join(base, "stage"), gocache: filepath.Join(home, "cache")}
			err := p.expose(tc.paths)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, h := range p.hides {
				got[h.dir] = h.expose
			}
			if len(got) != len(tc.hides) {
				t.Fatalf("hides %v, want %v", got, tc.hides)
			}
			for d, want := range tc.hides {
				if strings.Join(got[d], " ") != strings.Join(want, " ") {
					t.Errorf("%s exposes %v, want %v", d, got[d], want)
				}
			}
			var b strings.Builder
			p.write(&b)
			script := b.String()
			for _, h := range p.hides {
				if !strings.Contains(script, "agx-hidden "+shQuote(h.dir)) {
					t.Errorf("the script does not hide %s:\n%s", h.dir, script)
				}
				for _, e := range h.expose {
					if !strings.Contains(script, "mount -o remount,bind,ro "+shQuote(e)) {
						t.Errorf("the script does not expose %s read-only:\n%s", e, script)
					}
				}
			}
			// Root's build cache is the overlay's lower layer, read
			// through the staged view when it is hidden.
			lower := "lowerdir=" + p.gocache
			if len(p.hides) > 0 {
				lower = "lowerdir=" + filepath.Join(p.stage, "0", "cache")
			}
			if !strings.Contains(script, lower+",") {
				t.Errorf("the script lacks %s:\n%s", lower, script)
			}
		})
	}
}

func TestShQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "'plain'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := shQuote(tc.in); got != tc.want {
				t.Errorf("shQuote(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
