// Package notebook reads and writes Jupyter notebooks (.ipynb, nbformat 4).
//
// The types cover the fields agx's tools use; every other key, at the notebook,
// cell and output level, is kept in Extra and written back unchanged, so a
// read-write round trip loses nothing. Write produces the same bytes as
// Python's nbformat.write for a notebook that nbformat itself wrote: keys
// sorted, one-space indent, no ASCII escaping, multi-line strings split into
// lists of lines, and a final newline. That keeps diffs of notebooks that agx
// rewrites small.
package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Cell types.
const (
	Code     = "code"
	Markdown = "markdown"
	Raw      = "raw"
)

// Output types.
const (
	Stream        = "stream"
	DisplayData   = "display_data"
	ExecuteResult = "execute_result"
	ErrorOutput   = "error"
)

// Object is a JSON object whose values are kept as raw JSON.
type Object map[string]json.RawMessage

// Notebook is an nbformat 4 notebook.
type Notebook struct {
	Nbformat      int
	NbformatMinor int
	Metadata      Object
	Cells         []*Cell
	Extra         Object // unknown top-level keys
}

// Cell is one notebook cell. Outputs and ExecutionCount are used by code cells only.
type Cell struct {
	ID             string // nbformat >= 4.5; empty when absent
	CellType       string
	Source         string
	Metadata       Object
	Outputs        []*Output
	ExecutionCount *int
	Extra          Object // unknown keys, including attachments
}

// Output is one output of a code cell.
type Output struct {
	OutputType string
	// stream
	Name string // "stdout" or "stderr"
	Text string
	// display_data and execute_result
	Data           Object // MIME type -> value; text values are JSON strings
	Metadata       Object
	ExecutionCount *int // execute_result
	// error
	Ename     string
	Evalue    string
	Traceback []string

	Extra Object // unknown keys
}

// Read reads the notebook at path.
func Read(path string) (*Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	nb, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nb, nil
}

// Parse decodes a notebook from JSON.
func Parse(b []byte) (*Notebook, error) {
	var nb Notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("not a valid notebook: %w", err)
	}
	if nb.Nbformat != 4 {
		return nil, fmt.Errorf("nbformat %d is not supported (want 4)", nb.Nbformat)
	}
	return &nb, nil
}

// Write writes nb to path (through a temporary file in the same directory, so a
// failed write leaves no partial notebook).
func Write(path string, nb *Notebook) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b)
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so that readers never see a partial file.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Marshal encodes nb the way nbformat.write does.
func (nb *Notebook) Marshal() ([]byte, error) {
	raw, err := json.Marshal(nb)
	if err != nil {
		return nil, err
	}
	// Re-encode through generic values: maps come out with sorted keys at every
	// level, numbers keep their text (json.Number).
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil // Encode ends with the newline nbformat writes
}

// Code cells of nb, with their indices in nb.Cells.
func (nb *Notebook) CodeCells() (cells []*Cell, indices []int) {
	for i, c := range nb.Cells {
		if c.CellType == Code {
			cells = append(cells, c)
			indices = append(indices, i)
		}
	}
	return cells, indices
}

// Tags returns the cell's metadata.tags.
func (c *Cell) Tags() []string {
	var tags []string
	if raw, ok := c.Metadata["tags"]; ok {
		_ = json.Unmarshal(raw, &tags) // malformed tags count as none
	}
	return tags
}

// HasTag reports whether the cell carries tag.
func (c *Cell) HasTag(tag string) bool {
	for _, t := range c.Tags() {
		if t == tag {
			return true
		}
	}
	return false
}

// FirstLine returns the first line of the cell's source that says something,
// trimmed: blank lines and GoNB's bare "%%" (wrap the rest in main) are skipped.
func (c *Cell) FirstLine() string {
	for line := range strings.Lines(c.Source) {
		if s := strings.TrimSpace(line); s != "" && s != "%%" {
			return s
		}
	}
	return ""
}

// DataText returns the output's data[mime] as a string when it is a text value
// (a JSON string or a list of strings).
func (o *Output) DataText(mime string) (string, bool) {
	raw, ok := o.Data[mime]
	if !ok {
		return "", false
	}
	var m multiline
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", false
	}
	return string(m), true
}
