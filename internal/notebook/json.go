package notebook

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"
)

// multiline is nbformat's multi-line string: a JSON string or a list of
// strings (lines) on input, a list of lines on output.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("want a string or a list of strings, got %.40s", b)
	}
	*m = multiline(strings.Join(lines, ""))
	return nil
}

func (m multiline) MarshalJSON() ([]byte, error) {
	return json.Marshal(splitLines(string(m)))
}

// splitLines splits s after each line boundary, like Python's
// str.splitlines(keepends=True), which nbformat uses when writing.
func splitLines(s string) []string {
	lines := []string{}
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		end := -1
		switch r {
		case '\r':
			end = i + 1
			if end < len(s) && s[end] == '\n' {
				end++
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			end = i + size
		}
		if end < 0 {
			i += size
			continue
		}
		lines = append(lines, s[start:end])
		start, i = end, end
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// take decodes obj[key] into dst and deletes the key; a missing key leaves dst alone.
func take(obj Object, key string, dst any) error {
	raw, ok := obj[key]
	if !ok {
		return nil
	}
	delete(obj, key)
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// put stores v (encoded) under key.
func put(obj Object, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	obj[key] = b
	return nil
}

func orEmpty(o Object) Object {
	if o == nil {
		return Object{}
	}
	return o
}

// UnmarshalJSON implements json.Unmarshaler.
func (nb *Notebook) UnmarshalJSON(b []byte) error {
	var obj Object
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	*nb = Notebook{}
	for _, f := range []struct {
		key string
		dst any
	}{
		{"nbformat", &nb.Nbformat},
		{"nbformat_minor", &nb.NbformatMinor},
		{"metadata", &nb.Metadata},
		{"cells", &nb.Cells},
	} {
		if err := take(obj, f.key, f.dst); err != nil {
			return err
		}
	}
	if len(obj) > 0 {
		nb.Extra = obj
	}
	return nil
}

// MarshalJSON implements json.Marshaler.
func (nb *Notebook) MarshalJSON() ([]byte, error) {
	obj := maps.Clone(orEmpty(nb.Extra))
	cells := nb.Cells
	if cells == nil {
		cells = []*Cell{}
	}
	for _, f := range []struct {
		key string
		v   any
	}{
		{"nbformat", nb.Nbformat},
		{"nbformat_minor", nb.NbformatMinor},
		{"metadata", orEmpty(nb.Metadata)},
		{"cells", cells},
	} {
		if err := put(obj, f.key, f.v); err != nil {
			return nil, err
		}
	}
	return json.Marshal(obj)
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Cell) UnmarshalJSON(b []byte) error {
	var obj Object
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	*c = Cell{}
	var src multiline
	fields := map[string]any{"id": &c.ID, "cell_type": &c.CellType, "source": &src, "metadata": &c.Metadata}
	if ct, ok := obj["cell_type"]; ok && string(ct) == `"code"` {
		fields["outputs"] = &c.Outputs
		fields["execution_count"] = &c.ExecutionCount
	}
	for key, dst := range fields {
		if err := take(obj, key, dst); err != nil {
			return fmt.Errorf("cell: %w", err)
		}
	}
	c.Source = string(src)
	if len(obj) > 0 {
		c.Extra = obj
	}
	return nil
}

// MarshalJSON implements json.Marshaler.
func (c *Cell) MarshalJSON() ([]byte, error) {
	obj := maps.Clone(orEmpty(c.Extra))
	if c.ID != "" {
		if err := put(obj, "id", c.ID); err != nil {
			return nil, err
		}
	}
	if err := put(obj, "cell_type", c.CellType); err != nil {
		return nil, err
	}
	if err := put(obj, "source", multiline(c.Source)); err != nil {
		return nil, err
	}
	if err := put(obj, "metadata", orEmpty(c.Metadata)); err != nil {
		return nil, err
	}
	if c.CellType == Code {
		outs := c.Outputs
		if outs == nil {
			outs = []*Output{}
		}
		if err := put(obj, "outputs", outs); err != nil {
			return nil, err
		}
		if err := put(obj, "execution_count", c.ExecutionCount); err != nil {
			return nil, err
		}
	}
	return json.Marshal(obj)
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *Output) UnmarshalJSON(b []byte) error {
	var obj Object
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	*o = Output{}
	if err := take(obj, "output_type", &o.OutputType); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	var text multiline
	var fields map[string]any
	switch o.OutputType {
	case Stream:
		fields = map[string]any{"name": &o.Name, "text": &text}
	case DisplayData:
		fields = map[string]any{"data": &o.Data, "metadata": &o.Metadata}
	case ExecuteResult:
		fields = map[string]any{"data": &o.Data, "metadata": &o.Metadata, "execution_count": &o.ExecutionCount}
	case ErrorOutput:
		fields = map[string]any{"ename": &o.Ename, "evalue": &o.Evalue, "traceback": &o.Traceback}
	}
	for key, dst := range fields {
		if err := take(obj, key, dst); err != nil {
			return fmt.Errorf("%s output: %w", o.OutputType, err)
		}
	}
	o.Text = string(text)
	if len(obj) > 0 {
		o.Extra = obj
	}
	return nil
}

// splitMIME reports whether nbformat stores data[mime] as a list of lines.
func splitMIME(mime string) bool {
	return strings.HasPrefix(mime, "text/") || mime == "application/javascript" || mime == "image/svg+xml"
}

// MarshalJSON implements json.Marshaler.
func (o *Output) MarshalJSON() ([]byte, error) {
	obj := maps.Clone(orEmpty(o.Extra))
	fields := map[string]any{"output_type": o.OutputType}
	switch o.OutputType {
	case Stream:
		fields["name"] = o.Name
		fields["text"] = multiline(o.Text)
	case DisplayData, ExecuteResult:
		data := Object{}
		for mime, raw := range o.Data {
			var m multiline
			if splitMIME(mime) && json.Unmarshal(raw, &m) == nil {
				b, err := m.MarshalJSON()
				if err != nil {
					return nil, err
				}
				raw = b
			}
			data[mime] = raw
		}
		fields["data"] = data
		fields["metadata"] = orEmpty(o.Metadata)
		if o.OutputType == ExecuteResult {
			fields["execution_count"] = o.ExecutionCount
		}
	case ErrorOutput:
		tb := o.Traceback
		if tb == nil {
			tb = []string{}
		}
		fields["ename"] = o.Ename
		fields["evalue"] = o.Evalue
		fields["traceback"] = tb
	}
	for key, v := range fields {
		if err := put(obj, key, v); err != nil {
			return nil, err
		}
	}
	return json.Marshal(obj)
}
