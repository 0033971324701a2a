package nbgrader

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Markers, matched as substrings of a line (as nbgrader does). In Go source
// they are written as comments: `// BEGIN SOLUTION`.
const (
	BeginSolution    = "BEGIN SOLUTION"
	EndSolution      = "END SOLUTION"
	BeginHiddenTests = "BEGIN HIDDEN TESTS"
	EndHiddenTests   = "END HIDDEN TESTS"
)

// YourCodeHere is the comment left where a solution was removed.
const YourCodeHere = "// YOUR CODE HERE"

// Stub is the statement that replaces a solution inside a function body. It
// compiles in any function (Go accepts a body that ends in a panic without a
// return) and tells the student what to do when it runs.
func Stub(exercise string) string {
	return "panic(" + strconv.Quote("agx: not implemented yet: write your solution here (exercise "+exercise+")") + ")"
}

// A MarkerError is an unbalanced or nested marker.
type MarkerError struct {
	Line int // 1-based line of the cell source
	Msg  string
}

func (e *MarkerError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// region is a marked block of lines [begin, end] (0-based, inclusive).
type region struct{ begin, end int }

// regions finds the blocks between begin and end markers.
func regions(lines []string, begin, end string) ([]region, error) {
	var out []region
	open := -1
	for i, l := range lines {
		switch {
		case strings.Contains(l, begin):
			if open >= 0 {
				return nil, &MarkerError{i + 1, fmt.Sprintf("%s inside the %s of line %d", begin, begin, open+1)}
			}
			open = i
		case strings.Contains(l, end):
			if open < 0 {
				return nil, &MarkerError{i + 1, end + " without " + begin}
			}
			out = append(out, region{open, i})
			open = -1
		}
	}
	if open >= 0 {
		return nil, &MarkerError{open + 1, begin + " without " + end}
	}
	return out, nil
}

// HasSolution reports whether src contains a solution marker.
func HasSolution(src string) bool {
	return strings.Contains(src, BeginSolution) || strings.Contains(src, EndSolution)
}

// HasHiddenTests reports whether src contains a hidden-tests marker.
func HasHiddenTests(src string) bool {
	return strings.Contains(src, BeginHiddenTests) || strings.Contains(src, EndHiddenTests)
}

// ClearSolutions replaces every BEGIN SOLUTION ... END SOLUTION block of Go
// source src (markers included). A block inside a function body (or after
// GoNB's "%%", which wraps the rest of the cell in main) becomes
//
//	// YOUR CODE HERE
//	panic("agx: not implemented yet: write your solution here (exercise ID)")
//
// at the indentation of the BEGIN line; a block at top level becomes the
// comment alone. exercise names the exercise in the stub (its grade_id).
// Code after a block inside a function still compiles but is unreachable, so
// a block should end its function or declare nothing used after it.
func ClearSolutions(src, exercise string) (string, error) {
	lines := strings.SplitAfter(src, "\n")
	rs, err := regions(lines, BeginSolution, EndSolution)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	next := 0
	for _, r := range rs {
		for _, l := range lines[next:r.begin] {
			b.WriteString(l)
		}
		indent := leadingSpace(lines[r.begin])
		b.WriteString(indent + YourCodeHere + "\n")
		if inFunction(strings.Join(lines[:r.begin], "")) {
			b.WriteString(indent + Stub(exercise) + "\n")
		}
		next = r.end + 1
	}
	for _, l := range lines[next:] {
		b.WriteString(l)
	}
	out := b.String()
	if !strings.HasSuffix(src, "\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, nil
}

// RemoveHiddenTests deletes every BEGIN HIDDEN TESTS ... END HIDDEN TESTS
// block of src, markers included.
func RemoveHiddenTests(src string) (string, error) {
	lines := strings.SplitAfter(src, "\n")
	rs, err := regions(lines, BeginHiddenTests, EndHiddenTests)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	next := 0
	for _, r := range rs {
		for _, l := range lines[next:r.begin] {
			b.WriteString(l)
		}
		next = r.end + 1
	}
	for _, l := range lines[next:] {
		b.WriteString(l)
	}
	out := b.String()
	if !strings.HasSuffix(src, "\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, nil
}

func leadingSpace(l string) string {
	return l[:len(l)-len(strings.TrimLeft(l, " \t"))]
}

// inFunction reports whether the end of Go source prefix lies inside braces
// (a function body, in a cell) or after a line that is GoNB's "%%". Strings,
// runes and comments are skipped.
func inFunction(prefix string) bool {
	depth := 0
	wrapped := false
	for line := range strings.Lines(prefix) {
		if strings.TrimSpace(line) == "%%" {
			wrapped = true
		}
	}
	s := prefix
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '{':
			depth++
		case '}':
			depth--
		case '/':
			if i+1 < len(s) && s[i+1] == '/' {
				for i < len(s) && s[i] != '\n' {
					i++
				}
			} else if i+1 < len(s) && s[i+1] == '*' {
				end := strings.Index(s[i+2:], "*/")
				if end < 0 {
					return depth > 0 || wrapped
				}
				i += end + 3
			}
		case '"', '\'':
			for i++; i < len(s) && s[i] != c && s[i] != '\n'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '`':
			end := strings.IndexByte(s[i+1:], '`')
			if end < 0 {
				return depth > 0 || wrapped
			}
			i += end + 1
		}
	}
	return depth > 0 || wrapped
}

// InsertNonce returns the test cell source src with its one call
// `grade.New("gradeID")` turned into `grade.New("gradeID").Nonce("nonce")`.
// It fails unless the call appears exactly once. agx autograde does not use
// it: a nonce in a cell's source is readable by the program built from it
// (docs/grading.md, "The secret"); it serves tests that run a notebook with
// known nonces.
func InsertNonce(src, gradeID, nonce string) (string, error) {
	call := gradeNewCall(gradeID)
	if n := strings.Count(src, call); n != 1 {
		return "", fmt.Errorf("test cell %s calls %s %d times, want once", gradeID, call, n)
	}
	return strings.Replace(src, call, call+".Nonce("+strconv.Quote(nonce)+")", 1), nil
}

// NewNonce returns a fresh random nonce (the secret a test cell's result
// must carry): 128 bits from crypto/rand, hex-encoded.
func NewNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics on a broken system)
	return hex.EncodeToString(b)
}

// gradeNewCall is the call a test cell makes to start its checks.
func gradeNewCall(gradeID string) string { return "grade.New(" + strconv.Quote(gradeID) + ")" }
