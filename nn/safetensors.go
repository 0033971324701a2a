package nn

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/goagx/agx/tensor"
)

// The safetensors format (as written by Hugging Face's safetensors library):
//
//	8 bytes   little-endian uint64 N, the length of the header
//	N bytes   a UTF-8 JSON object: for every tensor name
//	          {"dtype": "F32"|"F64"|"I64"|"BOOL"|"I8"|..., "shape": [...],
//	           "data_offsets": [begin, end]} (offsets into the data section),
//	          and optionally "__metadata__": {string: string}; padded with
//	          spaces to a multiple of 8 bytes
//	rest      the data section: each tensor's elements, row-major,
//	          little-endian, with no gaps between tensors

// ErrFormat reports a malformed safetensors or ONNX file.
var ErrFormat = errors.New("malformed file")

var stDTypes = map[tensor.DType]string{tensor.Float32: "F32", tensor.Float64: "F64", tensor.Int64: "I64", tensor.Bool: "BOOL"}

type stEntry struct {
	DType   string `json:"dtype"`
	Shape   []int  `json:"shape"`
	Offsets [2]int `json:"data_offsets"`
}

// rawTensor is a tensor's encoded bytes; dtype is a safetensors dtype name,
// which also covers I8 (quantised weights), for which tensor has no DType.
type rawTensor struct {
	dtype string
	shape []int
	data  []byte
}

func encodeTensor(t *tensor.Tensor) rawTensor {
	t = t.Contiguous()
	var buf bytes.Buffer
	switch t.DType() {
	case tensor.Float32:
		binary.Write(&buf, binary.LittleEndian, tensor.Data[float32](t))
	case tensor.Float64:
		binary.Write(&buf, binary.LittleEndian, tensor.Data[float64](t))
	case tensor.Int64:
		binary.Write(&buf, binary.LittleEndian, tensor.Data[int64](t))
	case tensor.Bool:
		binary.Write(&buf, binary.LittleEndian, tensor.Data[bool](t))
	}
	return rawTensor{stDTypes[t.DType()], t.Shape(), buf.Bytes()}
}

// stSizes are the element sizes of the safetensors dtypes, so that the
// offsets of tensors agx cannot hold are checked too.
var stSizes = map[string]int{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E4M3": 1, "F8_E5M2": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// byteSize returns the number of bytes of a tensor of shape and element size,
// or an error wrapping ErrFormat for a negative dim or a size that does not
// fit in an int (a forged shape).
func byteSize(name string, shape []int, size int) (int, error) {
	n, err := tensor.CheckedNumel(shape)
	if err == nil && n > math.MaxInt/size {
		err = fmt.Errorf("%d elements of %d bytes overflow", n, size)
	}
	if err != nil {
		return 0, fmt.Errorf("nn: tensor %q: shape %v: %v: %w", name, shape, err, ErrFormat)
	}
	return n * size, nil
}

func decodeTensor(name string, r rawTensor) (*tensor.Tensor, error) {
	switch r.dtype {
	case "F32", "F64", "I64", "BOOL":
	default:
		return nil, fmt.Errorf("nn: tensor %q has dtype %s, which agx tensors cannot hold (F32, F64, I64, BOOL): %w", name, r.dtype, ErrFormat)
	}
	size := stSizes[r.dtype]
	nb, err := byteSize(name, r.shape, size)
	if err != nil {
		return nil, err
	}
	if len(r.data) != nb {
		return nil, fmt.Errorf("nn: tensor %q: %d bytes for shape %v of %s: %w", name, len(r.data), r.shape, r.dtype, ErrFormat)
	}
	// The shape is checked: Reshape cannot fail.
	n, b, shape := nb/size, r.data, r.shape
	switch r.dtype {
	case "F32":
		v := make([]float32, n)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return tensor.FromSlice(v, n).Reshape(shape...), nil
	case "F64":
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return tensor.FromSlice(v, n).Reshape(shape...), nil
	case "I64":
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return tensor.FromSlice(v, n).Reshape(shape...), nil
	default:
		v := make([]bool, n)
		for i := range v {
			v[i] = b[i] != 0
		}
		return tensor.FromSlice(v, n).Reshape(shape...), nil
	}
}

func writeRaw(w io.Writer, ts map[string]rawTensor, metadata map[string]string) error {
	names := make([]string, 0, len(ts))
	for n := range ts {
		if n == "__metadata__" {
			return fmt.Errorf("nn: %q is reserved for the metadata: %w", n, tensor.ErrArg)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	off := 0
	for _, n := range names {
		r := ts[n]
		shape := r.shape
		if shape == nil {
			shape = []int{}
		}
		header[n] = stEntry{r.dtype, shape, [2]int{off, off + len(r.data)}}
		off += len(r.data)
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	if pad := len(h) % 8; pad != 0 {
		h = append(h, bytes.Repeat([]byte{' '}, 8-pad)...)
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(h)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	for _, name := range names {
		if _, err := w.Write(ts[name].data); err != nil {
			return err
		}
	}
	return nil
}

// maxHeader bounds the header length a reader accepts (Hugging Face's
// library allows 100 MB).
const maxHeader = 100 << 20

// remaining returns how many bytes r still holds when it can tell: a file, or
// an in-memory reader.
func remaining(r io.Reader) (int64, bool) {
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, bytes.Buffer, strings.Reader
		return int64(r.Len()), true
	case *os.File:
		st, err := r.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0, false
		}
		pos, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		return st.Size() - pos, true
	}
	return 0, false
}

// readAtMost reads r to its end, or n bytes when n >= 0, allocating no more
// than r holds: exactly when r can tell its size, growing as the bytes arrive
// otherwise.
func readAtMost(r io.Reader, n int64) ([]byte, error) {
	if rem, ok := remaining(r); ok {
		if n < 0 || n > rem {
			n = rem
		}
		b := make([]byte, n)
		k, err := io.ReadFull(r, b)
		if err == io.ErrUnexpectedEOF {
			err = nil
		}
		return b[:k], err
	}
	if n >= 0 {
		r = io.LimitReader(r, n)
	}
	return io.ReadAll(r)
}

// readRaw reads and checks a safetensors stream: the header must be a JSON
// object of well-formed entries whose data ranges tile the data section
// exactly (in some order, without gaps or overlaps), and each range must hold
// its shape's bytes. It allocates no more than the stream's size, whatever
// lengths and shapes the header claims, and decodes nothing before all of it
// is checked. The entries come back in the order of their data.
func readRaw(r io.Reader) ([]namedEntry, []byte, map[string]string, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, nil, nil, fmt.Errorf("nn: safetensors: reading the header length: %v: %w", err, ErrFormat)
	}
	hl := binary.LittleEndian.Uint64(n[:])
	if hl > maxHeader {
		return nil, nil, nil, fmt.Errorf("nn: safetensors: header of %d bytes is too large (at most %d): %w", hl, maxHeader, ErrFormat)
	}
	h, err := readAtMost(r, int64(hl))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("nn: safetensors: reading the header: %v: %w", err, ErrFormat)
	}
	if uint64(len(h)) != hl {
		return nil, nil, nil, fmt.Errorf("nn: safetensors: the header length says %d bytes, the file has only %d after it: %w", hl, len(h), ErrFormat)
	}
	entries, metadata, err := parseHeader(h)
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := readAtMost(r, -1)
	if err != nil {
		return nil, nil, nil, err
	}
	// The ranges, in order, must start at 0, meet end to end and end at the
	// end of the data.
	slices.SortFunc(entries, func(a, b namedEntry) int {
		if c := cmp.Compare(a.Offsets[0], b.Offsets[0]); c != 0 {
			return c
		}
		return cmp.Compare(a.Offsets[1], b.Offsets[1])
	})
	end := 0
	for _, e := range entries {
		b, en := e.Offsets[0], e.Offsets[1]
		switch {
		case b < 0 || en < b || en > len(data):
			return nil, nil, nil, fmt.Errorf("nn: safetensors: entry %q: offsets %v outside the %d data bytes: %w", e.name, e.Offsets, len(data), ErrFormat)
		case b < end:
			return nil, nil, nil, fmt.Errorf("nn: safetensors: entry %q: offsets %v overlap another tensor's data (which ends at %d): %w", e.name, e.Offsets, end, ErrFormat)
		case b > end:
			return nil, nil, nil, fmt.Errorf("nn: safetensors: entry %q: offsets %v leave a gap after byte %d of the data: %w", e.name, e.Offsets, end, ErrFormat)
		}
		size, ok := stSizes[e.DType]
		if !ok {
			return nil, nil, nil, fmt.Errorf("nn: safetensors: entry %q: unknown dtype %q: %w", e.name, e.DType, ErrFormat)
		}
		nb, err := byteSize(e.name, e.Shape, size)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("nn: safetensors: %w", err)
		}
		if nb != en-b {
			return nil, nil, nil, fmt.Errorf("nn: safetensors: entry %q: shape %v of %s needs %d bytes, its offsets %v hold %d: %w", e.name, e.Shape, e.DType, nb, e.Offsets, en-b, ErrFormat)
		}
		end = en
	}
	if end != len(data) {
		return nil, nil, nil, fmt.Errorf("nn: safetensors: the tensors cover %d of the %d data bytes: %w", end, len(data), ErrFormat)
	}
	return entries, data, metadata, nil
}

type namedEntry struct {
	name string
	stEntry
}

// parseHeader decodes the header object in one pass into entries, and the
// metadata in a second (which skips the entries without storing them);
// __metadata__ decodes to an empty entry in the first pass and is dropped.
// (A map of raw messages, each decoded again, took twice the time and a
// gigabyte of allocations for a million entries.)
func parseHeader(h []byte) ([]namedEntry, map[string]string, error) {
	// Sized up front (json fills a map it is given): growing it took 300 MB
	// of allocations for a million entries. The count is capped by the
	// smallest size of an entry, so a forged header cannot inflate it.
	if t := bytes.TrimLeft(h, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, nil, fmt.Errorf("nn: safetensors: header is not a JSON object: %w", ErrFormat)
	}
	header := make(map[string]stEntry, min(bytes.Count(h, []byte(`"data_offsets"`)), len(h)/48))
	if err := json.Unmarshal(h, &header); err != nil {
		return nil, nil, fmt.Errorf("nn: safetensors: header is not a JSON object of tensor entries: %v: %w", err, ErrFormat)
	}
	var md struct {
		Metadata map[string]string `json:"__metadata__"`
	}
	if _, ok := header["__metadata__"]; ok {
		if err := json.Unmarshal(h, &md); err != nil {
			return nil, nil, fmt.Errorf("nn: safetensors: __metadata__ must map strings to strings: %w", ErrFormat)
		}
		delete(header, "__metadata__")
	}
	entries := make([]namedEntry, 0, len(header))
	for name, e := range header {
		entries = append(entries, namedEntry{name, e})
	}
	return entries, md.Metadata, nil
}

// WriteSafetensors writes the named tensors (Float32, Float64, Int64, Bool) and
// optional string metadata in the safetensors format.
func WriteSafetensors(w io.Writer, tensors map[string]*tensor.Tensor, metadata map[string]string) error {
	raw := make(map[string]rawTensor, len(tensors))
	for n, t := range tensors {
		raw[n] = encodeTensor(t)
	}
	return writeRaw(w, raw, metadata)
}

// ReadSafetensors reads a safetensors stream written by any tool. It returns an
// error wrapping ErrFormat for a malformed stream or a dtype agx cannot hold.
func ReadSafetensors(r io.Reader) (map[string]*tensor.Tensor, map[string]string, error) {
	entries, data, md, err := readRaw(r)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]*tensor.Tensor, len(entries))
	for _, e := range entries {
		t, err := decodeTensor(e.name, rawTensor{e.DType, e.Shape, data[e.Offsets[0]:e.Offsets[1]]})
		if err != nil {
			return nil, nil, err
		}
		out[e.name] = t
	}
	return out, md, nil
}

// StateDict returns m's parameters by name, sharing their data.
func StateDict(m Module) map[string]*tensor.Tensor {
	sd := map[string]*tensor.Tensor{}
	for _, p := range m.Parameters() {
		sd[p.Name] = p.Tensor.Data()
	}
	return sd
}

// LoadStateDict copies sd into m's parameters (cast to each parameter's dtype).
// Like PyTorch's strict load_state_dict it changes nothing and returns an error
// listing the missing keys, the unexpected keys and the size mismatches when
// sd does not fit m exactly.
func LoadStateDict(m Module, sd map[string]*tensor.Tensor) error {
	ps := m.Parameters()
	var missing, unexpected, sizes []string
	have := map[string]bool{}
	for _, p := range ps {
		have[p.Name] = true
		t, ok := sd[p.Name]
		if !ok {
			missing = append(missing, fmt.Sprintf("%q", p.Name))
			continue
		}
		if !slices.Equal(t.Shape(), p.Tensor.Shape()) {
			sizes = append(sizes, fmt.Sprintf("size mismatch for %s: copying a param with shape %v from checkpoint, the shape in current model is %v.",
				p.Name, t.Shape(), p.Tensor.Shape()))
		}
	}
	for n := range sd {
		if !have[n] {
			unexpected = append(unexpected, fmt.Sprintf("%q", n))
		}
	}
	sort.Strings(unexpected)
	if len(missing)+len(unexpected)+len(sizes) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "nn: Error(s) in loading state_dict for %s:", moduleName(m))
		if len(missing) > 0 {
			fmt.Fprintf(&b, "\n\tMissing key(s) in state_dict: %s.", strings.Join(missing, ", "))
		}
		if len(unexpected) > 0 {
			fmt.Fprintf(&b, "\n\tUnexpected key(s) in state_dict: %s.", strings.Join(unexpected, ", "))
		}
		for _, s := range sizes {
			b.WriteString("\n\t" + s)
		}
		return &LoadError{Missing: missing, Unexpected: unexpected, msg: b.String()}
	}
	for _, p := range ps {
		t := sd[p.Name]
		if !t.DType().IsFloat() {
			return fmt.Errorf("nn: parameter %s: checkpoint holds %v, want a floating dtype: %w", p.Name, t.DType(), tensor.ErrDType)
		}
	}
	for _, p := range ps {
		p.Tensor.Data().CopyFrom(sd[p.Name].To(p.Tensor.DType()))
		p.Tensor.BumpVersion()
	}
	return nil
}

// LoadError is the error of a state dict that does not fit the module. Missing
// and Unexpected hold the quoted key names.
type LoadError struct {
	Missing, Unexpected []string
	msg                 string
}

func (e *LoadError) Error() string { return e.msg }

// Unwrap makes errors.Is(err, tensor.ErrShape) hold.
func (e *LoadError) Unwrap() error { return tensor.ErrShape }

func moduleName(m Module) string {
	s := fmt.Sprintf("%T", m)
	if i := strings.LastIndex(s, "."); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// Save writes m's parameters to path in the safetensors format.
func Save(path string, m Module) error {
	return writeFile(path, func(w io.Writer) error { return WriteSafetensors(w, StateDict(m), nil) })
}

// Load reads a safetensors file into m's parameters (see LoadStateDict).
func Load(path string, m Module) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sd, _, err := ReadSafetensors(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return LoadStateDict(m, sd)
}

func writeFile(path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// float32 and int8 byte helpers shared by the ONNX writer and the quantised
// layers.
func float32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
