package autograde

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/goagx/agx/internal/notebook"
)

// A Flag marks something in a submission for a person to review. Flags do
// not change the score.
type Flag struct {
	Kind    string `json:"kind"`
	Cell    string `json:"cell"`           // grade_id, or "cell N" (index in the rebuilt notebook)
	Line    int    `json:"line,omitempty"` // 1-based line of the cell's source, when known
	Message string `json:"message"`
}

// Flag kinds.
const (
	FlagMagic         = "magic"          // a `!` shell or `%` magic line in student code
	FlagInit          = "init"           // an init function (or GoNB's init_NAME)
	FlagRedefinition  = "redefinition"   // redefines the grade kit or a name of a locked cell
	FlagExit          = "os_exit"        // os.Exit in student code
	FlagUnsafe        = "unsafe"         // package unsafe or go:linkname
	FlagSyscall       = "syscall"        // package syscall or golang.org/x/sys
	FlagExec          = "exec"           // package os/exec
	FlagNetwork       = "network"        // a network package
	FlagForged        = "forged_result"  // a grade result where no test cell put it, or with a wrong nonce
	FlagNoResult      = "no_result"      // a test cell produced no valid result
	FlagMissingAnswer = "missing_answer" // an answer cell was deleted
	FlagDuplicateCell = "duplicate_cell" // an answer cell appears twice
	FlagUnknownCell   = "unknown_cell"   // a cell with a grade_id the source lacks
	FlagIncomplete    = "run_incomplete" // the run stopped before the last cell
	FlagOutputCapped  = "output_capped"  // a cell's output was truncated
	FlagTimeout       = "cell_timeout"   // a cell ran past its time limit
)

// codePatterns find risky uses in student code (comments removed first).
// Uses are matched as well as imports, because GoNB adds missing imports
// itself (goimports).
var codePatterns = []struct {
	kind, what string
	re         *regexp.Regexp
}{
	{FlagExit, "calls os.Exit", regexp.MustCompile(`\bos\.Exit\b`)},
	{FlagUnsafe, "uses package unsafe", regexp.MustCompile(`\bunsafe\.|"unsafe"`)},
	{FlagUnsafe, "uses go:linkname", regexp.MustCompile(`go:linkname`)},
	{FlagSyscall, "uses package syscall", regexp.MustCompile(`\bsyscall\.|"syscall"|"golang\.org/x/sys/`)},
	{FlagExec, "uses package os/exec", regexp.MustCompile(`"os/exec"|\bexec\.(Command|CommandContext|LookPath)\b`)},
	{FlagNetwork, "uses the network", regexp.MustCompile(`"net"|"net/[^"]*"|"crypto/tls"|\bnet\.(Dial|Listen|Lookup|Resolve)\w*|\bhttp\.(Get|Post|Head|PostForm|NewRequest\w*|DefaultClient|Client|ListenAndServe\w*)\b`)},
	{FlagExit, "calls runtime.Goexit", regexp.MustCompile(`\bruntime\.Goexit\b`)},
}

// scanStudentCells flags what the static rules find in the student's code
// cells of rb: magic lines, init functions, redefinitions of the grade kit or
// of names declared in the source's own cells, and risky packages.
func scanStudentCells(rb *Rebuilt) []Flag {
	locked := map[string]string{"grade": "the grade kit's package name"} // name -> where it is declared
	for _, rc := range rb.Cells {
		c := rb.Notebook.Cells[rc.Index]
		if rc.Origin != FromSource || c.CellType != notebook.Code {
			continue
		}
		for _, d := range topLevelNames(c.Source) {
			if _, ok := locked[d.name]; !ok {
				locked[d.name] = "declared in " + cellName(rc)
			}
		}
	}
	var flags []Flag
	for _, rc := range rb.Cells {
		c := rb.Notebook.Cells[rc.Index]
		if !rc.Student() || c.CellType != notebook.Code {
			continue
		}
		name := cellName(rc)
		add := func(kind string, line int, format string, args ...any) {
			flags = append(flags, Flag{Kind: kind, Cell: name, Line: line, Message: fmt.Sprintf(format, args...)})
		}
		for i, line := range strings.Split(c.Source, "\n") {
			t := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(t, "!"):
				add(FlagMagic, i+1, "shell command: %s", clip(t, 80))
			case strings.HasPrefix(t, "%") && t != "%%":
				add(FlagMagic, i+1, "kernel magic: %s", clip(t, 80))
			}
		}
		for _, d := range topLevelNames(c.Source) {
			switch {
			case d.name == "init" || strings.HasPrefix(d.name, "init_"):
				add(FlagInit, d.line, "declares %s, which runs before every later cell (the test cells included)", d.name)
			case locked[d.name] != "":
				add(FlagRedefinition, d.line, "redefines %s (%s); GoNB keeps the last definition", d.name, locked[d.name])
			}
		}
		withStrings, code := stripComments(c.Source, false), stripComments(c.Source, true)
		for _, p := range codePatterns {
			text := code
			if strings.Contains(p.re.String(), `"`) {
				text = withStrings // import paths are strings
			}
			if loc := p.re.FindStringIndex(text); loc != nil {
				add(p.kind, 1+strings.Count(code[:loc[0]], "\n"), "%s", p.what)
			}
		}
	}
	return flags
}

func cellName(rc *RebuiltCell) string {
	if rc.GradeID != "" {
		return rc.GradeID
	}
	return fmt.Sprintf("cell %d", rc.Index)
}

type declName struct {
	name string
	line int
}

var (
	funcDecl  = regexp.MustCompile(`^func\s*(\(\s*(?:\w+\s+)?\*?\s*(\w+)[^)]*\)\s*)?(\w+)`)
	specDecl  = regexp.MustCompile(`^(var|const|type)\s+(\w+(?:\s*,\s*\w+)*)`)
	groupDecl = regexp.MustCompile(`^(var|const|type)\s*\(`)
	groupName = regexp.MustCompile(`^\s+(\w+(?:\s*,\s*\w+)*)`)
)

// topLevelNames returns the names a GoNB cell declares at top level (the
// part before a "%%" line, which starts main's body): functions (methods as
// Type.Method), and var, const and type names, single or grouped. It reads
// declarations that start in column 0, as gofmt writes them.
func topLevelNames(src string) []declName {
	var out []declName
	lines := strings.Split(stripComments(src, false), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "%%" {
			break
		}
		if m := funcDecl.FindStringSubmatch(l); m != nil {
			name := m[3]
			if m[2] != "" {
				name = m[2] + "." + name
			}
			out = append(out, declName{name, i + 1})
			continue
		}
		if groupDecl.MatchString(l) {
			depth := 0
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], ")"); i++ {
				if depth == 0 {
					if m := groupName.FindStringSubmatch(lines[i]); m != nil {
						for _, n := range strings.Split(m[1], ",") {
							out = append(out, declName{strings.TrimSpace(n), i + 1})
						}
					}
				}
				depth += strings.Count(lines[i], "{") + strings.Count(lines[i], "(") - strings.Count(lines[i], "}") - strings.Count(lines[i], ")")
			}
			continue
		}
		if m := specDecl.FindStringSubmatch(l); m != nil {
			for _, n := range strings.Split(m[2], ",") {
				out = append(out, declName{strings.TrimSpace(n), i + 1})
			}
		}
	}
	return out
}

// stripComments blanks Go comments (keeping line breaks), skipping string and
// rune literals, whose contents it blanks too when blankStrings.
func stripComments(s string, blankStrings bool) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '/':
			if i+1 < len(b) && b[i+1] == '/' {
				for ; i < len(b) && b[i] != '\n'; i++ {
					b[i] = ' '
				}
			} else if i+1 < len(b) && b[i+1] == '*' {
				for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
					if b[i] != '\n' {
						b[i] = ' '
					}
				}
				if i+1 < len(b) {
					b[i], b[i+1] = ' ', ' '
					i++
				}
			}
		case '"', '\'':
			for i++; i < len(b) && b[i] != c && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					blank(b, i, blankStrings)
					i++
				}
				blank(b, i, blankStrings)
			}
		case '`':
			for i++; i < len(b) && b[i] != '`'; i++ {
				blank(b, i, blankStrings)
			}
		}
	}
	return string(b)
}

func blank(b []byte, i int, on bool) {
	if on && i < len(b) && b[i] != '\n' {
		b[i] = ' '
	}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
