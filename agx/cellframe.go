package agx

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Frames in notebook cells. GoNB turns the cells of a notebook into one Go
// program, main.go in the kernel's temporary directory (named gonb_<hex>, and
// in GONB_TMP_DIR), builds it and runs it. A stack frame there reads
// "/tmp/gonb_1a2b3c4d/main.go:120", a file and a line number that the person
// who wrote the cell never sees. frameLocation shows such a frame as the line
// of cell code it points at instead.

// gonbDirName matches the base name of GoNB's temporary directory.
var gonbDirName = regexp.MustCompile(`^gonb_[0-9a-fA-F]+$`)

// inNotebookCell reports whether file is the main.go that GoNB generates from
// the cells of a notebook.
func inNotebookCell(file string) bool {
	if filepath.Base(file) != "main.go" {
		return false
	}
	dir := filepath.Dir(file)
	if tmp := os.Getenv("GONB_TMP_DIR"); tmp != "" && filepath.Clean(tmp) == dir {
		return true
	}
	return gonbDirName.MatchString(filepath.Base(dir))
}

// frameLocation is how a frame's place is shown in agx's messages: "file:line",
// or for code of a notebook cell "in your notebook cell: <that line of code>"
// ("in your notebook cell" alone when the line cannot be read).
func frameLocation(file string, line int) string {
	if !inNotebookCell(file) {
		return fmt.Sprintf("%s:%d", file, line)
	}
	if code := sourceLine(file, line); code != "" {
		return "in your notebook cell: " + code
	}
	return "in your notebook cell"
}

// maxCodeShown bounds the length of a line of cell code in a message.
const maxCodeShown = 100

var sourceCache = struct {
	sync.Mutex
	lines map[string][]string
}{lines: map[string][]string{}}

// sourceLine returns line n (from 1) of file without its indentation, ""
// when there is none. Files are read once per process: GoNB writes main.go
// before it starts the program, and a frame is formatted once per recorded
// node under anomaly detection.
func sourceLine(file string, n int) string {
	sourceCache.Lock()
	lines, ok := sourceCache.lines[file]
	if !ok {
		if b, err := os.ReadFile(file); err == nil {
			lines = strings.Split(string(b), "\n")
		}
		sourceCache.lines[file] = lines // nil after an error: not read again
	}
	sourceCache.Unlock()
	if n < 1 || n > len(lines) {
		return ""
	}
	code := strings.TrimSpace(lines[n-1])
	if r := []rune(code); len(r) > maxCodeShown {
		code = string(r[:maxCodeShown-1]) + "…"
	}
	return code
}
