package rebuild

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"regexp"
	"strconv"
	"strings"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/lazyre"
	"github.com/goagx/agx/internal/notebook"
)

// forbidEntry is the form of a metadata.agx.forbid entry: a Go identifier
// (a function, method or type: GELU) or an import path (functions,
// github.com/goagx/agx/functions).
var forbidEntry = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$|^[A-Za-z0-9_.~-]+(/[A-Za-z0-9_.~-]+)*$`)

// forbiddenUses returns, for each entry of forbid that src uses, where
// (1-based line) and how. An entry is used when an import path is it or
// ends in /entry, when it is selected (x.GELU, functions.GELU) or when it
// is a package selected from (functions.X). imports and code are src's,
// from importsAndDirectives and stripComments (strings blanked).
func forbiddenUses(forbid []string, imports []lexed, code string) (uses []forbiddenUse) {
	for _, f := range forbid {
		line := 0
		for _, it := range imports {
			if it.text == f || strings.HasSuffix(it.text, "/"+f) {
				line = it.line
				break
			}
		}
		last := f[strings.LastIndex(f, "/")+1:]
		if line == 0 && regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(last) {
			re := regexp.MustCompile(`\.\s*` + last + `\b|\b` + last + `\s*\.\s*[A-Za-z_]`)
			if loc := re.FindStringIndex(code); loc != nil {
				line = 1 + strings.Count(code[:loc[0]], "\n")
			}
		}
		if line > 0 {
			uses = append(uses, forbiddenUse{f, line})
		}
	}
	return uses
}

type forbiddenUse struct {
	entry string
	line  int
}

// Where a codePatterns rule is matched.
const (
	inCode       = iota // the code, comments and string contents blanked
	inImports           // each import path, unquoted
	inStrings           // the code with string contents kept
	inDirectives        // each //go: directive comment
)

// codePatterns find risky uses in student code. Uses are matched as well as
// imports, because GoNB adds missing imports itself (goimports); rules of
// the same what are one rule (flagged once per cell).
var codePatterns = []struct {
	kind, what string
	re         func() *regexp.Regexp
	where      int
}{
	{gradebook.FlagExit, "calls os.Exit", lazyre.New(`\bos\.Exit\b`), inCode},
	{gradebook.FlagExit, "calls log.Fatal or log.Panic (which end the program)", lazyre.New(`\blog\.(Fatal|Panic)\w*|\.Fatal(f|ln)?\(`), inCode},
	{gradebook.FlagExit, "exits through package syscall", lazyre.New(`\b(syscall|unix)\.(Exit|Kill|Tgkill)\b`), inCode},
	{gradebook.FlagExit, "finds its own process (to kill or signal it)", lazyre.New(`\bos\.(FindProcess|Getpid|Getppid)\b|\.Process\.(Kill|Signal)\b`), inCode},
	{gradebook.FlagUnsafe, "uses cgo (import \"C\"), whose C code runs before Go's initialisation", lazyre.New(`^C$`), inImports},
	{gradebook.FlagExec, "starts a process", lazyre.New(`\bos\.(StartProcess|ProcAttr)\b|\b(syscall|unix)\.(ForkExec|Exec|StartProcess)\b`), inCode},
	{gradebook.FlagNetwork, "uses the network or RPC", lazyre.New(`^(net|net/.*|crypto/tls)$`), inImports},
	{gradebook.FlagNetwork, "uses the network or RPC", lazyre.New(`\b(net|http|rpc|jsonrpc|smtp|tls|httputil|websocket|grpc)\.\w+`), inCode},
	{gradebook.FlagSelfRead, "reads or writes files or directories", lazyre.New(`\b(os|ioutil)\.(ReadFile|ReadDir|Open|OpenFile|DirFS|Getwd|Readlink|Stat|Lstat|WriteFile|Create|CreateTemp|Mkdir|MkdirAll|MkdirTemp|Remove|RemoveAll|Rename|Symlink|Link|Chmod|Chdir)\b|\bfilepath\.(Walk|WalkDir|Glob)\b|\bfs\.(ReadFile|ReadDir|WalkDir|Glob)\b`), inCode},
	{gradebook.FlagSelfRead, "reads the environment (where GoNB and the grader keep their paths)", lazyre.New(`\bos\.(Getenv|LookupEnv|Environ|ExpandEnv)\b`), inCode},
	{gradebook.FlagSelfRead, "looks at its own program (os.Args, os.Executable, runtime.Caller, debug info)", lazyre.New(`\bos\.(Args|Executable)\b|\bruntime\.(Caller|Callers|CallersFrames|FuncForPC|Stack)\b|\bdebug\.(ReadBuildInfo|Stack|PrintStack)\b`), inCode},
	{gradebook.FlagSelfRead, "looks at its own program (os.Args, os.Executable, runtime.Caller, debug info)", lazyre.New(`^debug/(elf|gosym|dwarf|buildinfo)$`), inImports},
	{gradebook.FlagSelfRead, "names /proc or a Go source file", lazyre.New(`/proc\b|\.go"|GONB_`), inStrings},
	{gradebook.FlagUnsafe, "uses package unsafe", lazyre.New(`^unsafe$`), inImports},
	{gradebook.FlagUnsafe, "uses package unsafe", lazyre.New(`\bunsafe\.`), inCode},
	{gradebook.FlagUnsafe, "uses go:linkname", lazyre.New(`^//go:linkname\b`), inDirectives},
	{gradebook.FlagSyscall, "uses package syscall", lazyre.New(`^(syscall|golang\.org/x/sys/.*)$`), inImports},
	{gradebook.FlagSyscall, "uses package syscall", lazyre.New(`\bsyscall\.`), inCode},
	{gradebook.FlagExec, "uses package os/exec", lazyre.New(`^os/exec$`), inImports},
	{gradebook.FlagExec, "uses package os/exec", lazyre.New(`\bexec\.(Command|CommandContext|LookPath)\b`), inCode},
	{gradebook.FlagExit, "calls runtime.Goexit", lazyre.New(`\bruntime\.Goexit\b`), inCode},
}

// blankMagic empties the lines of a GoNB cell that start with `!` or `%`
// (keeping the line count): they are not Go, and DisarmMagic turns them into
// comments before the run, so a backquote or /* in one must not be read as
// opening a string or comment that hides the Go code after it.
func blankMagic(src string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "!") || strings.HasPrefix(t, "%") {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// A lexed item of a cell: an import path or a //go: directive, with its line.
type lexed struct {
	text string
	line int
}

// importsAndDirectives returns the import paths of a GoNB cell and its
// //go: directive comments, found by Go's scanner (text in strings and
// other comments is not theirs; `!`, `%` and `%%` lines are only scanner
// errors).
func importsAndDirectives(src string) (imports, directives []lexed) {
	fset := token.NewFileSet()
	file := fset.AddFile("cell.go", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	next := func() (token.Pos, token.Token, string) {
		for {
			pos, tok, lit := s.Scan()
			if tok == token.COMMENT && strings.HasPrefix(lit, "//go:") {
				directives = append(directives, lexed{lit, fset.Position(pos).Line})
			}
			if tok != token.COMMENT && !(tok == token.SEMICOLON && lit == "\n") {
				return pos, tok, lit
			}
		}
	}
	addPath := func(pos token.Pos, lit string) {
		if p, err := strconv.Unquote(lit); err == nil {
			imports = append(imports, lexed{p, fset.Position(pos).Line})
		}
	}
	for {
		_, tok, _ := next()
		if tok == token.EOF {
			return
		}
		if tok != token.IMPORT {
			continue
		}
		pos, tok, lit := next()
		if tok == token.LPAREN {
			for {
				pos, tok, lit = next()
				if tok == token.RPAREN || tok == token.EOF {
					break
				}
				if tok == token.STRING {
					addPath(pos, lit)
				}
			}
			continue
		}
		if tok == token.IDENT || tok == token.PERIOD {
			pos, tok, lit = next()
		}
		if tok == token.STRING {
			addPath(pos, lit)
		}
	}
}

// ScanStudentCells flags what the static rules find in the student's code
// cells of rb: magic lines, init functions, redefinitions of the grade kit or
// of names declared in the source's own cells, and risky packages.
func ScanStudentCells(rb *Rebuilt) []gradebook.Flag {
	locked := lockedNames(rb)
	var flags []gradebook.Flag
	for _, rc := range rb.Cells {
		c := rb.Notebook.Cells[rc.Index]
		if !rc.Student() || c.CellType != notebook.Code {
			continue
		}
		flags = append(flags, scanCell(rb, rc.Name(), c.Source, locked)...)
	}
	return flags
}

// lockedNames returns the names that the source's cells declare (less the
// defaults of answers), and the grade kit's, each with where it is declared.
func lockedNames(rb *Rebuilt) map[string]string {
	locked := map[string]string{"grade": "the grade kit's package name"} // name -> where it is declared
	for _, rc := range rb.Cells {
		c := rb.Notebook.Cells[rc.Index]
		if rc.Origin != FromSource || c.CellType != notebook.Code {
			continue
		}
		for _, d := range topLevelNames(c.Source) {
			if _, ok := locked[d.name]; !ok && !rb.answerNames[d.name] { // an answer may replace a default
				locked[d.name] = "declared in " + rc.Name()
			}
		}
	}
	return locked
}

// scanCell flags what the static rules find in the source src of the
// student's code cell name.
func scanCell(rb *Rebuilt, name, src string, locked map[string]string) []gradebook.Flag {
	var flags []gradebook.Flag
	add := func(kind string, line int, format string, args ...any) {
		flags = append(flags, gradebook.Flag{Kind: kind, Cell: name, Line: line, Message: fmt.Sprintf(format, args...)})
	}
	for i, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		switch cmd := magicText(line); {
		case strings.HasPrefix(cmd, "!"):
			add(gradebook.FlagMagic, i+1, "shell command: %s", notebook.Clip(t, 80))
		case strings.HasPrefix(cmd, "%") && cmd != "%%":
			add(gradebook.FlagMagic, i+1, "kernel magic: %s", notebook.Clip(t, 80))
		}
	}
	for _, d := range topLevelNames(src) {
		switch {
		case d.name == "init" || strings.HasPrefix(d.name, "init_"):
			add(gradebook.FlagInit, d.line, "declares %s, which runs before every later cell (the test cells included)", d.name)
		case locked[d.name] != "":
			add(gradebook.FlagRedefinition, d.line, "redefines %s (%s); GoNB keeps the last definition", d.name, locked[d.name])
		}
	}
	for _, in := range sideEffectInits(src) {
		add(gradebook.FlagInitializer, in.line, "the package-level variable %s is initialised by a call (%s): it runs at the start of every later cell's program, the test cells included", in.name, in.call)
	}
	goSrc := blankMagic(src) // a quote or comment opener in a magic line hides no Go code
	withStrings, code := stripComments(goSrc, false), stripComments(goSrc, true)
	imports, directives := importsAndDirectives(goSrc)
	for _, u := range forbiddenUses(rb.forbid, imports, code) {
		add(gradebook.FlagForbidden, u.line, "uses %s, which this exercise forbids (it implements an answer): the test cells after this cell get no points", u.entry)
	}
	found := map[string]bool{}
	for _, p := range codePatterns {
		if found[p.what] {
			continue
		}
		if line := patternLine(p.re(), p.where, code, withStrings, imports, directives); line > 0 {
			found[p.what] = true
			add(p.kind, line, "%s", p.what)
		}
	}
	return flags
}

// patternLine returns the first line where re matches in where (the code
// without comments and strings, the code with its strings, the imports or
// the directives), or 0.
func patternLine(re *regexp.Regexp, where int, code, withStrings string, imports, directives []lexed) int {
	switch where {
	case inCode, inStrings:
		text := code
		if where == inStrings {
			text = withStrings
		}
		if loc := re.FindStringIndex(text); loc != nil {
			return 1 + strings.Count(code[:loc[0]], "\n")
		}
	case inImports, inDirectives:
		items := imports
		if where == inDirectives {
			items = directives
		}
		for _, it := range items {
			if re.MatchString(it.text) {
				return it.line
			}
		}
	}
	return 0
}

type declName struct {
	name string
	line int
}

var (
	funcDecl  = lazyre.New(`^func\s*(\(\s*(?:\w+\s+)?\*?\s*(\w+)[^)]*\)\s*)?(\w+)`)
	specDecl  = lazyre.New(`^(var|const|type)\s+(\w+(?:\s*,\s*\w+)*)`)
	groupDecl = lazyre.New(`^(var|const|type)\s*\(`)
	groupName = lazyre.New(`^\s+(\w+(?:\s*,\s*\w+)*)`)
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
		if m := funcDecl().FindStringSubmatch(l); m != nil {
			name := m[3]
			if m[2] != "" {
				name = m[2] + "." + name
			}
			out = append(out, declName{name, i + 1})
			continue
		}
		if groupDecl().MatchString(l) {
			depth := 0
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], ")"); i++ {
				if depth == 0 {
					if m := groupName().FindStringSubmatch(lines[i]); m != nil {
						for _, n := range strings.Split(m[1], ",") {
							out = append(out, declName{strings.TrimSpace(n), i + 1})
						}
					}
				}
				depth += strings.Count(lines[i], "{") + strings.Count(lines[i], "(") - strings.Count(lines[i], "}") - strings.Count(lines[i], ")")
			}
			continue
		}
		if m := specDecl().FindStringSubmatch(l); m != nil {
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

// pureFuncs, purePackages and pureConstructor are the calls a package-level initialiser may make without a
// flag: builtins, conversions to basic types and the packages a notebook
// builds values with. A call to anything else (a function or method of the
// notebook, another package, a function literal) runs code before main.
var (
	pureFuncs = map[string]bool{"len": true, "cap": true, "make": true, "new": true, "append": true, "complex": true,
		"real": true, "imag": true, "min": true, "max": true, "string": true, "bool": true, "byte": true, "rune": true,
		"int": true, "int8": true, "int16": true, "int32": true, "int64": true, "uint": true, "uint8": true,
		"uint16": true, "uint32": true, "uint64": true, "uintptr": true, "float32": true, "float64": true,
		"complex64": true, "complex128": true}
	purePackages = map[string]bool{"math": true, "strings": true, "strconv": true, "fmt": true, "errors": true, "time": true}
	// constructors of agx and tensor values (agx.Apply, by contrast, runs a
	// Function's Forward: the notebook's code)
	pureConstructor = lazyre.New(`^(agx|tensor)\.(From\w*|Zeros\w*|Ones\w*|Full\w*|Rand\w*|Arange|Eye|Linspace|Scalar|Empty\w*|ManualSeed)$`)
)

type initCall struct {
	name, call string
	line       int
}

// sideEffectInits returns the package-level variables of a GoNB cell (the
// part before a "%%" line) whose initialiser calls something outside
// pureFuncs and purePackages: Go runs such initialisers at the start of
// every program built from the cell, before main. A cell that does not
// parse gives none (GoNB does not remember it either).
func sideEffectInits(src string) []initCall {
	var keep []string
	for line := range strings.Lines(src) {
		t := strings.TrimSpace(line)
		if t == "%%" || t == "%main" {
			break
		}
		if strings.HasPrefix(t, "!") || strings.HasPrefix(t, "%") {
			line = "\n"
		}
		keep = append(keep, line)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell.go", "package main\n"+strings.Join(keep, ""), parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []initCall
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, v := range vs.Values {
				call := impureCall(v)
				if call == "" {
					continue
				}
				name := "_"
				if i < len(vs.Names) {
					name = vs.Names[i].Name
				} else if len(vs.Names) > 0 {
					name = vs.Names[0].Name
				}
				out = append(out, initCall{name: name, call: call, line: fset.Position(v.Pos()).Line - 1})
			}
		}
	}
	return out
}

// impureCall returns the first call in e that may run code other than the
// standard library's and agx's constructors, as text, or "".
func impureCall(e ast.Expr) string {
	found := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if found != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			found = "a function literal"
			return false
		case *ast.CallExpr:
			switch fn := ast.Unparen(n.Fun).(type) {
			case *ast.Ident:
				if !pureFuncs[fn.Name] {
					found = fn.Name + "(…)"
				}
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); !ok || !(purePackages[x.Name] || pureConstructor().MatchString(exprText(fn))) {
					found = exprText(fn) + "(…)"
				}
			case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StarExpr:
				// a conversion
			default:
				found = "a call"
			}
		}
		return found == ""
	})
	return found
}

func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	}
	return "…"
}

// gonbCommentPrefix is GoNB's escape for special commands: GoNB removes a
// leading "//gonb:" from a line before it looks for `!` or `%`
// (goexec.TrimGonbCommentPrefix), so "//gonb:!cmd" runs cmd.
const gonbCommentPrefix = "//gonb:"

// magicText returns the text of line that decides whether GoNB runs it as a
// special command: the line without surrounding space and without GoNB's
// "//gonb:" prefix (repeated prefixes too, to be safe). GoNB itself trims
// no space; trimming it here only makes the rule stricter.
func magicText(line string) string {
	t := strings.TrimSpace(line)
	for strings.HasPrefix(t, gonbCommentPrefix) {
		t = strings.TrimSpace(t[len(gonbCommentPrefix):])
	}
	return t
}

// DisarmMagic turns the `!` and `%` lines of the student's code cells (not
// GoNB's `%%` or `%main`) into comments, so that they do not run when the
// submission is graded: a shell line or a magic can change the kernel's
// go.mod (replacing the grade kit), add files to the program GoNB builds,
// or start processes. ScanStudentCells flags them first.
func DisarmMagic(rb *Rebuilt) {
	for _, rc := range rb.Cells {
		c := rb.Notebook.Cells[rc.Index]
		if !rc.Student() || c.CellType != notebook.Code {
			continue
		}
		lines := strings.Split(c.Source, "\n")
		for i, line := range lines {
			t := magicText(line)
			if (strings.HasPrefix(t, "!") || strings.HasPrefix(t, "%")) && t != "%%" && t != "%main" {
				lines[i] = "// agx autograde: not run at grading: " + line
			}
		}
		c.Source = strings.Join(lines, "\n")
	}
}
