package nn

import (
	"bytes"
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

func decodeTensor(name string, r rawTensor) (*tensor.Tensor, error) {
	n := 1
	for _, d := range r.shape {
		n *= d
	}
	size := map[string]int{"F32": 4, "F64": 8, "I64": 8, "BOOL": 1}[r.dtype]
	if size == 0 {
		return nil, fmt.Errorf("nn: tensor %q has dtype %s, which agx tensors cannot hold (F32, F64, I64, BOOL): %w", name, r.dtype, ErrFormat)
	}
	if len(r.data) != n*size {
		return nil, fmt.Errorf("nn: tensor %q: %d bytes for shape %v of %s: %w", name, len(r.data), r.shape, r.dtype, ErrFormat)
	}
	rd := bytes.NewReader(r.data)
	shape := r.shape
	switch r.dtype {
	case "F32":
		v := make([]float32, n)
		binary.Read(rd, binary.LittleEndian, v)
		return tensor.FromSlice(v, n).Reshape(shape...), nil
	case "F64":
		v := make([]float64, n)
		binary.Read(rd, binary.LittleEndian, v)
		return tensor.FromSlice(v, n).Reshape(shape...), nil
	case "I64":
		v := make([]int64, n)
		binary.Read(rd, binary.LittleEndian, v)
		return tensor.FromSlice(v, n).Reshape(shape...), nil
	default:
		v := make([]bool, n)
		binary.Read(rd, binary.LittleEndian, v)
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

func readRaw(r io.Reader) (map[string]rawTensor, map[string]string, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, nil, fmt.Errorf("nn: safetensors: reading the header length: %v: %w", err, ErrFormat)
	}
	hl := binary.LittleEndian.Uint64(n[:])
	if hl > 100<<20 {
		return nil, nil, fmt.Errorf("nn: safetensors: header of %d bytes is too large: %w", hl, ErrFormat)
	}
	h := make([]byte, hl)
	if _, err := io.ReadFull(r, h); err != nil {
		return nil, nil, fmt.Errorf("nn: safetensors: reading the header: %v: %w", err, ErrFormat)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(h, &header); err != nil {
		return nil, nil, fmt.Errorf("nn: safetensors: header is not a JSON object: %v: %w", err, ErrFormat)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	var metadata map[string]string
	out := map[string]rawTensor{}
	for name, raw := range header {
		if name == "__metadata__" {
			if err := json.Unmarshal(raw, &metadata); err != nil {
				return nil, nil, fmt.Errorf("nn: safetensors: __metadata__ must map strings to strings: %w", ErrFormat)
			}
			continue
		}
		var e stEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, nil, fmt.Errorf("nn: safetensors: entry %q: %v: %w", name, err, ErrFormat)
		}
		b, en := e.Offsets[0], e.Offsets[1]
		if b < 0 || en < b || en > len(data) {
			return nil, nil, fmt.Errorf("nn: safetensors: entry %q: offsets %v outside the %d data bytes: %w", name, e.Offsets, len(data), ErrFormat)
		}
		out[name] = rawTensor{e.DType, e.Shape, data[b:en]}
	}
	return out, metadata, nil
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
	raw, md, err := readRaw(r)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]*tensor.Tensor, len(raw))
	for n, rt := range raw {
		t, err := decodeTensor(n, rt)
		if err != nil {
			return nil, nil, err
		}
		out[n] = t
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
