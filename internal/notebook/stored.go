package notebook

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/goagx/agx/internal/lazyre"
)

// Stored outputs: the lesson notebooks keep the outputs of a fresh run (`agx
// run --store`) so that they can be read without running them, and `agx run
// --check-stored` fails when a fresh run no longer gives what is stored.
// Cells whose metadata.agx.volatile is true (timings) are stored but never
// compared.

// Volatile reports whether the cell's metadata marks its outputs as varying
// from run to run ("agx": {"volatile": true}).
func (c *Cell) Volatile() bool {
	raw, ok := c.Metadata["agx"]
	if !ok {
		return false
	}
	var m struct {
		Volatile bool `json:"volatile"`
	}
	_ = json.Unmarshal(raw, &m) // malformed metadata counts as not volatile
	return m.Volatile
}

// HasStoredOutputs reports whether any code cell of nb holds outputs or an
// execution count.
func (nb *Notebook) HasStoredOutputs() bool {
	for _, c := range nb.Cells {
		if c.CellType == Code && (len(c.Outputs) > 0 || c.ExecutionCount != nil) {
			return true
		}
	}
	return false
}

// gonbDir matches GoNB's per-kernel temporary directory (where the cell's
// main.go is built), which changes with every kernel.
var gonbDir = lazyre.New(`(?:/[^\s"'<>()\[\]]+)?/gonb_[0-9a-f]{4,}`)

// PathNormalizer rewrites the machine-specific paths in outputs: the module
// root (as Go prints it in a stack trace) becomes the module path, as with
// `go build -trimpath`, and GoNB's temporary directory becomes "gonb".
type PathNormalizer struct {
	Root   string // absolute directory of the module; "" for none
	Module string // its module path
}

// Text applies n to s.
func (n PathNormalizer) Text(s string) string {
	if n.Root != "" && n.Module != "" {
		s = strings.ReplaceAll(s, strings.TrimSuffix(n.Root, "/")+"/", n.Module+"/")
	}
	return gonbDir().ReplaceAllString(s, "gonb")
}

// StoredOutputs returns the outputs to store for a cell: paths normalized
// (n), consecutive stream outputs of the same stream merged into one (how
// the kernel splits a cell's text into messages depends on timing), and
// display and result metadata kept as they are.
func StoredOutputs(outs []*Output, n PathNormalizer) []*Output {
	var res []*Output
	for _, o := range outs {
		c := *o
		switch c.OutputType {
		case Stream:
			c.Text = n.Text(c.Text)
			if k := len(res); k > 0 && res[k-1].OutputType == Stream && res[k-1].Name == c.Name {
				res[k-1].Text += c.Text
				continue
			}
		case DisplayData, ExecuteResult:
			data := make(Object, len(c.Data))
			for mime, raw := range c.Data {
				if s, ok := o.DataText(mime); ok && (strings.HasPrefix(mime, "text/") || mime == "image/svg+xml") {
					b, _ := json.Marshal(n.Text(s)) // a string always encodes
					raw = b
				}
				data[mime] = raw
			}
			c.Data = data
		case ErrorOutput:
			c.Evalue = n.Text(c.Evalue)
			tb := make([]string, len(c.Traceback))
			for i, t := range c.Traceback {
				tb[i] = n.Text(t)
			}
			c.Traceback = tb
		}
		res = append(res, &c)
	}
	return res
}

var (
	frameOffset  = lazyre.New(`\s?\+0x[0-9a-f]+`)
	hexAddress   = lazyre.New(`0x[0-9a-f]{6,}`)
	goroutineID  = lazyre.New(`goroutine \d+`)
	goLine       = lazyre.New(`\.go:\d+`)
	ansiEscape   = lazyre.New("\x1b\\[[0-9;]*[A-Za-z]")
	frameFuncRow = lazyre.New(`^[\w./*()\[\]-]+\(.*\)$`)
)

// comparable renders outputs as the lines that --check-stored compares:
// standard output, displays and errors in their order, then standard error
// (which travels apart from them and so may interleave differently). Stack
// traces keep only their messages: frame lines, offsets, addresses, goroutine
// numbers and Go line numbers change with any edit of the packages.
func comparable(outs []*Output) []string {
	var main, stderr []string
	inStdout := false // the last item of main is standard output
	for _, o := range outs {
		if o.OutputType == Stream && o.Name == "stderr" {
			stderr = append(stderr, traceLines(o.Text)...)
			continue
		}
		wasStdout := inStdout
		inStdout = o.OutputType == Stream
		switch o.OutputType {
		case Stream:
			if !wasStdout {
				main = append(main, "[stdout]")
			}
			main = append(main, textLines(o.Text)...)
		case DisplayData, ExecuteResult:
			mimes := make([]string, 0, len(o.Data))
			for m := range o.Data {
				mimes = append(mimes, m)
			}
			sort.Strings(mimes)
			for _, m := range mimes {
				main = append(main, fmt.Sprintf("[%s %s]", o.OutputType, m))
				s, ok := o.DataText(m)
				if !ok {
					main = append(main, string(o.Data[m]))
					continue
				}
				if strings.Contains(s, "gonb-err") { // GoNB's HTML form of a stack trace
					s = traceText(s)
				}
				main = append(main, textLines(s)...)
			}
		case ErrorOutput:
			main = append(main, "[error] "+o.Ename+": "+traceText(o.Evalue))
		default:
			main = append(main, "["+o.OutputType+"]")
		}
	}
	if len(stderr) > 0 {
		main = append(main, "[stderr]")
		main = append(main, stderr...)
	}
	return main
}

func traceText(s string) string {
	s = ansiEscape().ReplaceAllString(s, "")
	s = frameOffset().ReplaceAllString(s, "")
	s = hexAddress().ReplaceAllString(s, "0x…")
	s = goroutineID().ReplaceAllString(s, "goroutine N")
	return goLine().ReplaceAllString(s, ".go:N")
}

// traceLines are the lines of stderr text without the frames of a stack trace.
func traceLines(s string) []string {
	var out []string
	for _, l := range textLines(traceText(s)) {
		if strings.HasPrefix(l, "\t") || frameFuncRow().MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func textLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// CompareStored compares a cell's stored outputs with those of a fresh run
// (both as StoredOutputs returns them). It returns "" when they agree, and
// otherwise a line diff ("- stored", "+ fresh") of what differs, with up to
// maxDiffLines lines.
func CompareStored(stored, fresh []*Output) string {
	a, b := comparable(stored), comparable(fresh)
	if strings.Join(a, "\n") == strings.Join(b, "\n") {
		return ""
	}
	return lineDiff(a, b, maxDiffLines)
}

const maxDiffLines = 40

// lineDiff is a small LCS diff: common lines are left out, except as context
// around a change (one line each side); long lines are cut.
func lineDiff(a, b []string, limit int) string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type row struct {
		op   byte
		text string
	}
	var rows []row
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			rows = append(rows, row{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			rows = append(rows, row{'-', a[i]})
			i++
		default:
			rows = append(rows, row{'+', b[j]})
			j++
		}
	}
	// A line changed in place (- then +) is shown from a little before the
	// first difference: long lines (HTML, SVG) differ far from their start.
	from := make([]int, len(rows))
	for k := 0; k+1 < len(rows); k++ {
		if rows[k].op == '-' && rows[k+1].op == '+' {
			a, b := []rune(rows[k].text), []rune(rows[k+1].text)
			p := 0
			for p < len(a) && p < len(b) && a[p] == b[p] {
				p++
			}
			from[k], from[k+1] = max(0, p-60), max(0, p-60)
		}
	}
	var out []string
	for k, r := range rows {
		near := r.op != ' ' || (k > 0 && rows[k-1].op != ' ') || (k+1 < len(rows) && rows[k+1].op != ' ')
		if !near {
			continue
		}
		if len(out) == limit {
			out = append(out, "…")
			break
		}
		text := r.text
		if from[k] > 0 {
			text = "…" + string([]rune(text)[from[k]:])
		}
		out = append(out, string(r.op)+" "+Clip(text, 160))
	}
	return strings.Join(out, "\n")
}

// Clip shortens s to n runes, its last an ellipsis, when it is longer.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
