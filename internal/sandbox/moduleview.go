package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/goagx/agx/internal/studentview"
)

// The kernel imports agx from a checkout (AGX_ROOT), and a checkout holds
// more than the module's Go packages: notebooks/exercises (the instructor
// sources, with solutions and hidden tests), test data, docs, .git. Student
// code could read all of it. So the kernel does not see the checkout: at the
// checkout's path it sees a copy of only what building the module's packages
// needs (moduleView), bind-mounted read-only in the notebook driver's mount
// namespace. Paths are unchanged, so the build cache still hits.

// skippedDirs are never copied into the module view: instructor material
// (notebooks, with the exercises' sources), docs and test data.
var skippedDirs = map[string]bool{"notebooks": true, "docs": true, "testdata": true}

// buildExt are the files a package build may read: Go, assembly and cgo
// sources, and the files the module's packages embed.
var buildExt = map[string]bool{".go": true, ".s": true, ".c": true, ".h": true, ".cu": true, ".py": true}

// moduleView copies into dst what the kernel needs of the checkout root:
// go.mod, go.sum, the non-test Go sources and embedded files of every
// package (no notebooks, docs, test data, hidden or _ directories, _test.go
// files, and none of the instructor-only paths that root's
// docker/instructor-only lists: the reference solutions, which a submission
// must not be able to call), and every file of the directories in keep (the
// kernel's own scripts), which must lie inside root. Everything is readable
// by all. A root without that list (not an agx checkout) has no
// instructor-only paths; one whose list does not parse is refused.
func moduleView(root, dst string, keep []string) error {
	root = filepath.Clean(root)
	instructorOnly, err := studentview.Load(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	keepDir := map[string]bool{}
	for _, k := range keep {
		rel, err := filepath.Rel(root, k)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return fmt.Errorf("%s is not inside %s", k, root)
		}
		keepDir[rel] = true
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		name := d.Name()
		if rel != "." && studentview.Excluded(rel, instructorOnly) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if rel != "." && (skippedDirs[name] || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		inKept := false
		for k := range keepDir {
			inKept = inKept || within(k, rel)
		}
		switch {
		case inKept:
		case rel == "go.mod" || rel == "go.sum":
		case strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, ".") || !buildExt[filepath.Ext(name)]:
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // links and devices are not copied
		}
		return copyFile(path, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm()|0o444)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, st.Mode().Perm()|0o444) // the umask may have cleared bits
}
