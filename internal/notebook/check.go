package notebook

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/goagx/agx/internal/lazyre"
)

// RaisesTag marks a cell that must end with an error output (the tag nbclient
// and nbconvert also honour).
const RaisesTag = "raises-exception"

// DefaultTol is the tolerance of expect_numbers when "tol" is absent.
const DefaultTol = 1e-6

// Expect holds a cell's expectations, read from metadata.agx:
//
//	"agx": {
//	  "expect": ["exact line", ...],
//	  "expect_numbers": {"values": [4, 6], "tol": 1e-6},
//	  "expect_error": "substring"
//	}
type Expect struct {
	// Lines must each equal some line of the cell's text output (trailing
	// spaces and carriage returns ignored), in any order.
	Lines []string `json:"expect"`
	// Numbers are compared with all numbers parsed from the text output.
	Numbers *NumberExpect `json:"expect_numbers"`
	// Error, when set, must occur in the cell's error text; the cell must be
	// tagged raises-exception.
	Error *string `json:"expect_error"`
}

// NumberExpect is metadata.agx.expect_numbers.
type NumberExpect struct {
	Values []Number `json:"values"`
	Tol    *float64 `json:"tol"`
}

// Number is a JSON number, or one of the strings "nan", "inf", "-inf".
type Number float64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Number) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		*n = Number(f)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if v, ok := specialNumber(s); ok {
			*n = Number(v)
			return nil
		}
	}
	return fmt.Errorf("expect_numbers value %s is not a number, \"nan\", \"inf\" or \"-inf\"", b)
}

// Expectations returns the cell's metadata.agx expectations; nil when it has none.
func (c *Cell) Expectations() (*Expect, error) {
	raw, ok := c.Metadata["agx"]
	if !ok {
		return nil, nil
	}
	var e Expect
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("metadata.agx: %w", err)
	}
	if e.Numbers != nil && e.Numbers.Tol != nil && !(*e.Numbers.Tol >= 0) {
		return nil, fmt.Errorf("metadata.agx.expect_numbers.tol must be >= 0, got %v", *e.Numbers.Tol)
	}
	return &e, nil
}

// TextOutput is what the cell printed for a reader: its stdout streams and the
// text/plain of its results and displays, in order.
func (c *Cell) TextOutput() string {
	var b strings.Builder
	for _, o := range c.Outputs {
		switch o.OutputType {
		case Stream:
			if o.Name == "stdout" {
				b.WriteString(o.Text)
			}
		case ExecuteResult, DisplayData:
			if s, ok := o.DataText("text/plain"); ok {
				if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
					b.WriteByte('\n')
				}
				b.WriteString(s)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// Stderr is the cell's stderr streams, concatenated.
func (c *Cell) Stderr() string {
	var b strings.Builder
	for _, o := range c.Outputs {
		if o.OutputType == Stream && o.Name == "stderr" {
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

// ErrorOutputs returns the cell's error outputs.
func (c *Cell) ErrorOutputs() []*Output {
	var errs []*Output
	for _, o := range c.Outputs {
		if o.OutputType == ErrorOutput {
			errs = append(errs, o)
		}
	}
	return errs
}

var (
	ansiRE = lazyre.New(`\x1b\[[0-9;]*[A-Za-z]`)
	tagRE  = lazyre.New(`<[^>]*>`)
	// styleRE drops <style> blocks, which GoNB sends with every error.
	styleRE = lazyre.New(`(?s)<style>.*?</style>`)
	// goFailureRE finds a Go run-time panic, a fatal error or a compile error
	// (with GoNB's plain -raw_error output) in stderr.
	goFailureRE = lazyre.New(`(?m)^(panic: |fatal error: |\S*\.go:\d+:\d+: )`)
	goPosRE     = lazyre.New(`\S*\.go:\d+:\d+: `)
)

// ErrorText is everything a cell reported about an error: its error outputs
// (ename, evalue, traceback), its stderr and the text of its HTML displays (GoNB
// shows compile errors as HTML only), without ANSI colours or HTML tags.
func (c *Cell) ErrorText() string {
	var b strings.Builder
	for _, o := range c.Outputs {
		switch o.OutputType {
		case ErrorOutput:
			fmt.Fprintf(&b, "%s: %s\n", o.Ename, o.Evalue)
			for _, l := range o.Traceback {
				b.WriteString(l)
				b.WriteByte('\n')
			}
		case Stream:
			if o.Name == "stderr" {
				b.WriteString(o.Text)
			}
		case DisplayData, ExecuteResult:
			if s, ok := o.DataText("text/html"); ok {
				s = tagRE().ReplaceAllString(styleRE().ReplaceAllString(s, ""), "")
				b.WriteString(html.UnescapeString(s))
				b.WriteByte('\n')
			}
		}
	}
	return ansiRE().ReplaceAllString(b.String(), "")
}

// errorSummary is a one-line description of the cell's error for messages: the
// first line of a Go panic or compile error when there is one, else the evalue.
func (c *Cell) errorSummary() string {
	text := ansiRE().ReplaceAllString(c.Stderr(), "")
	if loc := goFailureRE().FindStringIndex(text); loc != nil {
		line, _, _ := strings.Cut(text[loc[0]:], "\n")
		if strings.TrimSpace(line) == "panic:" { // GoNB splits "panic: " from the message
			line = strings.Join(strings.Fields(text[loc[0]:min(len(text), loc[0]+200)]), " ")
		}
		return line
	}
	plain := ansiRE().ReplaceAllString(c.ErrorText(), "")
	for l := range strings.Lines(plain) {
		// Compile errors: GoNB's HTML holds "./main.go:10:6: undefined: x".
		// Drop the generated file's position; "Cell[N]: Line M" stays.
		if goPosRE().MatchString(l) {
			return strings.Join(strings.Fields(goPosRE().ReplaceAllString(l, "")), " ")
		}
	}
	for _, o := range c.ErrorOutputs() {
		return strings.TrimSpace(o.Ename + ": " + o.Evalue)
	}
	return ""
}

// Check compares the outputs of an executed code cell with what it should have
// produced, and returns one message per problem (none when the cell passes):
//   - a cell not tagged raises-exception must have no error output and no Go
//     panic or compile error on stderr;
//   - a cell tagged raises-exception must have an error output;
//   - metadata.agx expectations (see Expect) must hold.
func (c *Cell) Check() []string {
	var problems []string
	raises := c.HasTag(RaisesTag)
	errs := c.ErrorOutputs()
	switch {
	case raises && len(errs) == 0:
		problems = append(problems, "expected an error (the cell is tagged "+RaisesTag+") but it ran without one")
	case !raises && len(errs) > 0:
		problems = append(problems, "unexpected error: "+c.errorSummary())
	case !raises && goFailureRE().MatchString(ansiRE().ReplaceAllString(c.Stderr(), "")):
		problems = append(problems, "unexpected Go failure on stderr: "+c.errorSummary())
	}

	e, err := c.Expectations()
	if err != nil {
		return append(problems, err.Error())
	}
	if e == nil {
		return problems
	}
	if e.Error != nil {
		switch {
		case !raises:
			problems = append(problems, "metadata.agx.expect_error is set but the cell is not tagged "+RaisesTag)
		case len(errs) > 0 && !strings.Contains(c.ErrorText(), *e.Error):
			problems = append(problems, fmt.Sprintf("expected an error containing %q, got: %s", *e.Error, c.errorSummary()))
		}
	}
	text := c.TextOutput()
	if missing := MissingLines(text, e.Lines); len(missing) > 0 {
		for _, l := range missing {
			problems = append(problems, fmt.Sprintf("expected output line %q not found", l))
		}
		problems = append(problems, "output was:\n"+indent(clip(text, 20)))
	}
	if e.Numbers != nil {
		tol := DefaultTol
		if e.Numbers.Tol != nil {
			tol = *e.Numbers.Tol
		}
		want := make([]float64, len(e.Numbers.Values))
		for i, v := range e.Numbers.Values {
			want[i] = float64(v)
		}
		if msg := CompareNumbers(ParseNumbers(text), want, tol); msg != "" {
			problems = append(problems, msg)
		}
	}
	return problems
}

// MissingLines returns the lines of want that are not lines of text. Lines are
// compared without trailing spaces, tabs and carriage returns.
func MissingLines(text string, want []string) []string {
	have := map[string]bool{}
	for l := range strings.Lines(text) {
		have[strings.TrimRight(l, " \t\r\n")] = true
	}
	var missing []string
	for _, w := range want {
		if !have[strings.TrimRight(w, " \t\r\n")] {
			missing = append(missing, w)
		}
	}
	return missing
}

// CompareNumbers checks got against want: the same count, and each pair within
// tol·max(1, |want|) (absolute near zero, relative for large values). NaN
// matches NaN, an infinity the infinity of the same sign. It returns "" when
// they match, else a message.
func CompareNumbers(got, want []float64, tol float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("expected %d numbers %v, output has %d: %v", len(want), want, len(got), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		switch {
		case math.IsNaN(w) || math.IsNaN(g):
			if math.IsNaN(w) && math.IsNaN(g) {
				continue
			}
		case math.IsInf(w, 0) || math.IsInf(g, 0):
			if g == w {
				continue
			}
		case math.Abs(g-w) <= tol*math.Max(1, math.Abs(w)):
			continue
		}
		return fmt.Sprintf("number %d: got %v, want %v (tol %g); all numbers: got %v, want %v", i+1, g, w, tol, got, want)
	}
	return ""
}

// ParseNumbers returns the numbers in text, in order. A number is a decimal
// literal with optional sign, fraction and exponent ("4", "-0.5", "6.", ".5",
// "1e-06"), or inf/infinity/nan in any case, that does not touch a letter,
// digit, '_' or '.' on either side: in "tensor([4., 6.], grad_fn=<MulBackward0>)"
// or "dtype float32" only 4 and 6 are numbers.
func ParseNumbers(text string) []float64 {
	var nums []float64
	i := 0
	for i < len(text) {
		if i > 0 && isWordByte(text[i-1]) {
			i++
			continue
		}
		end := scanNumber(text, i)
		if end > i && endsNumber(text, end) {
			if v, ok := parseNumber(text[i:end]); ok {
				nums = append(nums, v)
				i = end
				continue
			}
		}
		i++
	}
	return nums
}

// scanNumber returns the end of the number literal starting at text[i], or i.
func scanNumber(text string, i int) int {
	j := i
	if j < len(text) && (text[j] == '+' || text[j] == '-') {
		j++
	}
	for _, word := range []string{"infinity", "inf", "nan"} {
		if len(text)-j >= len(word) && strings.EqualFold(text[j:j+len(word)], word) {
			return j + len(word)
		}
	}
	start := j
	for j < len(text) && isDigit(text[j]) {
		j++
	}
	intDigits := j - start
	fracDigits := 0
	if j < len(text) && text[j] == '.' {
		k := j + 1
		for k < len(text) && isDigit(text[k]) {
			k++
		}
		fracDigits = k - j - 1
		if intDigits > 0 || fracDigits > 0 {
			j = k
		}
	}
	if intDigits == 0 && fracDigits == 0 {
		return i
	}
	if j < len(text) && (text[j] == 'e' || text[j] == 'E') {
		k := j + 1
		if k < len(text) && (text[k] == '+' || text[k] == '-') {
			k++
		}
		d := k
		for k < len(text) && isDigit(text[k]) {
			k++
		}
		if k > d {
			j = k
		}
	}
	return j
}

func parseNumber(s string) (float64, bool) {
	if v, ok := specialNumber(s); ok {
		return v, true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return v, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func specialNumber(s string) (float64, bool) {
	sign := 1
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = -1, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	switch strings.ToLower(s) {
	case "inf", "infinity":
		return math.Inf(sign), true
	case "nan":
		return math.NaN(), true
	}
	return 0, false
}

// endsNumber reports whether a number literal may end before text[end]: at the
// end, or before a byte that is not a letter, digit or '_', or before a '.' that
// ends a sentence rather than continuing a version like "1.5.2".
func endsNumber(text string, end int) bool {
	switch {
	case end == len(text):
		return true
	case text[end] == '.':
		return end+1 == len(text) || !isDigit(text[end+1])
	}
	return !isWordByte(text[end])
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isWordByte(b byte) bool {
	return isDigit(b) || b == '_' || b == '.' || (b|0x20 >= 'a' && b|0x20 <= 'z')
}

func clip(s string, maxLines int) string {
	var out []string
	n := 0
	for l := range strings.Lines(s) {
		if n == maxLines {
			out = append(out, "...")
			break
		}
		out = append(out, strings.TrimRight(l, "\n"))
		n++
	}
	if len(out) == 0 {
		return "(no text output)"
	}
	return strings.Join(out, "\n")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
