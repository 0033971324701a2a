// Package studentview says which files of the repository students get, and
// finds reference solutions of graded exercises among them.
//
// Students get the agx module three ways: the student image's /opt/agx (the
// Dockerfile's stage student-src), the JupyterHub's shared copy
// (install-hub.sh, through docker/scripts/student-files.sh) and the module a
// grading kernel sees (internal/sandbox's module view). Each is the
// repository without the paths that docker/instructor-only lists: the
// instructor sources of the exercises (notebooks/exercises) and the reference
// solutions as Go code (functions/solutions, and what imports it).
//
// Solutions collects what a reference solution looks like: the methods and
// functions that the exercises' answer cells fill in between BEGIN SOLUTION
// markers, the Forward, Backward and Jvp methods of the solution packages,
// and the lines of the answer cells' solutions. Find reports every file of
// a set that declares one of them or holds one of those lines.
package studentview

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goagx/agx/internal/lazyre"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// ListPath is the list of instructor-only paths, relative to the repository
// root.
const ListPath = "docker/instructor-only"

// Parse reads the list: one path a line, relative to the root, a directory
// ending in "/"; blank lines and lines starting with # are skipped.
func Parse(src string) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		p := strings.TrimSuffix(l, "/")
		if p == "" || p == "." || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") ||
			strings.ContainsAny(p, "*?[\\ \t") {
			return nil, fmt.Errorf("%s:%d: %q is not a clean relative path", ListPath, n, l)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no path", ListPath)
	}
	return out, sc.Err()
}

// Load reads root's list.
func Load(root string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, ListPath))
	if err != nil {
		return nil, err
	}
	return Parse(string(b))
}

// Excluded reports whether rel (slash-separated, relative to the root) is one
// of the listed paths or inside a listed directory.
func Excluded(rel string, list []string) bool {
	rel = strings.TrimPrefix(path.Clean(filepath.ToSlash(rel)), "./")
	for _, p := range list {
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			if rel == dir || strings.HasPrefix(rel, p) {
				return true
			}
		} else if rel == p {
			return true
		}
	}
	return false
}

// Files returns the files students get: the files git tracks in root, but
// the excluded ones, sorted.
func Files(root string, list []string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" && !Excluded(f, list) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files, nil
}

// Solutions is what a reference solution looks like.
type Solutions struct {
	Methods map[string]string // "Type.Method" -> where it is a solution
	Funcs   map[string]string // function name -> where it is a solution
	Lines   map[string]string // a solution line, spaces collapsed -> where
}

// minLine is the length from which a solution line counts: shorter lines
// (return agx.Outputs(y), x := in[0]) are too common to tell anything.
const minLine = 30

// Collect gathers the solutions of root: the answer cells of every exercise
// in notebooks/exercises and the Go packages under the listed directories.
func Collect(root string, list []string) (*Solutions, error) {
	s := &Solutions{Methods: map[string]string{}, Funcs: map[string]string{}, Lines: map[string]string{}}
	nbs, err := filepath.Glob(filepath.Join(root, "notebooks", "exercises", "*.ipynb"))
	if err != nil {
		return nil, err
	}
	for _, p := range nbs {
		if strings.HasSuffix(p, ".executed.ipynb") {
			continue
		}
		nb, err := notebook.Read(p)
		if err != nil {
			return nil, err
		}
		for _, c := range nb.Cells {
			if c.CellType != notebook.Code || !nbgrader.HasSolution(c.Source) {
				continue
			}
			where := filepath.Base(p) + " (answer cell)"
			s.addCell(c.Source, where)
		}
	}
	for _, p := range list {
		dir, ok := strings.CutSuffix(p, "/")
		if !ok {
			continue
		}
		err := filepath.WalkDir(filepath.Join(root, dir), func(f string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
				return err
			}
			return s.addGo(f, filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator))))
		})
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	return s, nil
}

// decl matches a Go method or function declaration: group 1 the receiver's
// type (empty for a function), group 2 the name.
var decl = lazyre.New(`(?m)^[ \t]*func[ \t]*(?:\([ \t]*(?:\w+[ \t]+)?\*?(\w+)[ \t]*\)[ \t]*)?(\w+)[ \t]*[\[(]`)

// addCell records the declarations of an answer cell whose bodies hold a
// solution, and the solution lines.
func (s *Solutions) addCell(src, where string) {
	locs := decl().FindAllStringSubmatchIndex(src, -1)
	for i, m := range locs {
		end := len(src)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		if !strings.Contains(src[m[0]:end], nbgrader.BeginSolution) {
			continue
		}
		name := src[m[4]:m[5]]
		if m[2] >= 0 {
			s.Methods[src[m[2]:m[3]]+"."+name] = where
		} else {
			s.Funcs[name] = where
		}
	}
	in := false
	for _, l := range strings.Split(src, "\n") {
		switch {
		case strings.Contains(l, nbgrader.BeginSolution):
			in = true
		case strings.Contains(l, nbgrader.EndSolution):
			in = false
		case in:
			if k := collapse(l); len(k) >= minLine && formula(k) {
				s.Lines[k] = where
			}
		}
	}
}

// addGo records the Forward, Backward and Jvp methods of a solution package's
// file: the code of a custom Function.
func (s *Solutions) addGo(file, rel string) error {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
			continue
		}
		switch fd.Name.Name {
		case "Forward", "Backward", "Jvp":
		default:
			continue
		}
		t := fd.Recv.List[0].Type
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		if id, ok := t.(*ast.Ident); ok {
			s.Methods[id.Name+"."+fd.Name.Name] = rel
		}
	}
	return nil
}

func collapse(l string) string { return strings.Join(strings.Fields(l), " ") }

// plumbing is what a Function's code calls to move tensors about, not to
// compute: a line that calls nothing else (softmax := ctx.SavedTensors()[0])
// is no formula.
var (
	plumbing = lazyre.New(`\bctx\.(SavedTensors|SaveForBackward)\(|\bagx\.Outputs\(`)
	call     = lazyre.New(`\.\w+\(`)
)

// formula reports whether a solution line computes something.
func formula(l string) bool { return call().MatchString(plumbing().ReplaceAllString(l, "")) }

// Find reports, one line each, every file of files (relative to root) that
// declares a solution's method or function or holds a solution line. Files
// with a NUL byte (binaries) are skipped.
func (s *Solutions) Find(root string, files []string) ([]string, error) {
	var probs []string
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the working tree
			}
			return nil, err
		}
		if bytes.IndexByte(b, 0) >= 0 {
			continue
		}
		text := string(b)
		if strings.HasSuffix(rel, ".ipynb") {
			text = notebookText(b, text)
		}
		for _, m := range decl().FindAllStringSubmatch(text, -1) {
			name := m[2]
			if m[1] != "" {
				name = m[1] + "." + m[2]
				if where, ok := s.Methods[name]; ok {
					probs = append(probs, fmt.Sprintf("%s declares %s, a reference solution (%s)", rel, name, where))
				}
			} else if where, ok := s.Funcs[name]; ok {
				probs = append(probs, fmt.Sprintf("%s declares %s, a reference solution (%s)", rel, name, where))
			}
		}
		for n, l := range strings.Split(text, "\n") {
			if where, ok := s.Lines[collapse(l)]; ok {
				probs = append(probs, fmt.Sprintf("%s:%d holds a line of a reference solution (%s): %s", rel, n+1, where, collapse(l)))
			}
		}
	}
	return probs, nil
}

// notebookText is the source of a notebook's cells, one after the other (the
// JSON strings quote newlines and tabs); the raw text when it does not parse.
func notebookText(b []byte, raw string) string {
	nb, err := notebook.Parse(b)
	if err != nil {
		return raw
	}
	var sb strings.Builder
	for _, c := range nb.Cells {
		sb.WriteString(c.Source)
		sb.WriteString("\n")
	}
	return sb.String()
}
