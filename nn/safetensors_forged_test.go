package nn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goagx/agx/tensor"
)

// stFile builds a safetensors stream from a header and a data section, with
// the header length field set to hl (the header's own length when hl < 0).
func stFile(header string, data []byte, hl int64) []byte {
	if hl < 0 {
		hl = int64(len(header))
	}
	b := binary.LittleEndian.AppendUint64(nil, uint64(hl))
	b = append(b, header...)
	return append(b, data...)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Forged files: each must give an error wrapping ErrFormat that says what is
// wrong, without panicking and without allocating more than a small multiple
// of the file's size, through a reader that can tell its size and through
// one that cannot.
func TestReadSafetensorsForged(t *testing.T) {
	f32 := func(shape string, b, e int) string {
		return fmt.Sprintf(`{"dtype":"F32","shape":%s,"data_offsets":[%d,%d]}`, shape, b, e)
	}
	cases := []struct {
		name   string
		header string
		data   int   // bytes of data
		hl     int64 // header length field; -1: the header's length
		want   string
	}{
		{"negative-dims", `{"a":` + f32("[-2,-2]", 0, 16) + `}`, 16, -1, "negative dimension"},
		{"negative-dim", `{"a":` + f32("[-1,-4]", 0, 16) + `}`, 16, -1, "negative dimension"},
		{"overflow-to-zero", `{"a":` + f32("[4611686018427387904,4]", 0, 0) + `}`, 0, -1, "overflows"},
		{"overflow-to-four", `{"a":` + f32("[4611686018427387905,4]", 0, 16) + `}`, 16, -1, "overflows"},
		{"overflow-bytes", `{"a":` + f32("[2305843009213693952]", 0, 0) + `}`, 0, -1, "overflow"},
		{"overflow-three-dims", `{"a":` + f32("[2147483648,2147483648,4]", 0, 0) + `}`, 0, -1, "overflows"},
		{"too-few-bytes", `{"a":` + f32("[3]", 0, 8) + `}`, 8, -1, "needs 12 bytes"},
		{"overlap", `{"a":` + f32("[2]", 0, 8) + `,"b":` + f32("[2]", 4, 12) + `}`, 12, -1, "overlap"},
		{"same-range", `{"a":` + f32("[2]", 0, 8) + `,"b":` + f32("[2]", 0, 8) + `}`, 8, -1, "overlap"},
		{"gap", `{"a":` + f32("[1]", 0, 4) + `,"b":` + f32("[1]", 8, 12) + `}`, 12, -1, "gap"},
		{"trailing-data", `{"a":` + f32("[1]", 0, 4) + `}`, 8, -1, "cover 4 of the 8"},
		{"beyond-data", `{"a":` + f32("[4]", 0, 16) + `}`, 8, -1, "outside"},
		{"reversed", `{"a":` + f32("[0]", 8, 0) + `}`, 8, -1, "outside"},
		{"negative-offset", `{"a":` + f32("[2]", -8, 0) + `}`, 8, -1, "outside"},
		{"unknown-dtype", `{"a":{"dtype":"X9","shape":[1],"data_offsets":[0,4]}}`, 4, -1, "unknown dtype"},
		{"header-longer-than-file", `{}`, 0, 64 << 20, "only 2"},
		{"header-length-huge", `{}`, 0, 1 << 62, "too large"},
		{"header-array", `[]`, 0, -1, "not a JSON object"},
		{"header-null", `null`, 0, -1, "not a JSON object"},
		{"entry-not-object", `{"a":3}`, 0, -1, "not a JSON object"},
		{"metadata-not-strings", `{"__metadata__":{"k":1}}`, 0, -1, "__metadata__"},
		{"shape-not-ints", `{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}`, 4, -1, "not a JSON object"},
	}
	for _, c := range cases {
		file := stFile(c.header, make([]byte, c.data), c.hl)
		readers := map[string]func() io.Reader{
			"sized":   func() io.Reader { return bytes.NewReader(file) },
			"unsized": func() io.Reader { return struct{ io.Reader }{bytes.NewReader(file)} },
		}
		for rname, reader := range readers {
			t.Run(c.name+"/"+rname, func(t *testing.T) {
				var err error
				n := allocated(func() { _, _, err = ReadSafetensors(reader()) })
				if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("got error %v, want ErrFormat saying %q", err, c.want)
				}
				if limit := uint64(64<<10 + 16*len(file)); n > limit {
					t.Errorf("allocated %d bytes for a file of %d (limit %d)", n, len(file), limit)
				}
			})
		}
	}
}

// A file whose header length field exceeds the file, read through Load: the
// reader is an *os.File, whose size is known.
func TestLoadForgedHeaderLength(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forged.safetensors")
	if err := os.WriteFile(path, stFile(`{}`, nil, 90<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	n := allocated(func() { err = Load(path, NewLinear(2, 2)) })
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "header length") {
		t.Fatalf("got %v", err)
	}
	if n > 1<<20 {
		t.Errorf("allocated %d bytes for a 10-byte file", n)
	}
}

// A header of many entries is read in memory proportional to the file: about
// 9 times its size here, tensors included, where decoding a map of raw
// messages and then each message again took 18 times (a million entries:
// 1.4 GB of allocations, 0.56 GB now).
func TestReadSafetensorsManyEntries(t *testing.T) {
	const n = 20000
	var h strings.Builder
	h.WriteString(`{"__metadata__":{"format":"pt"}`)
	for i := range n {
		fmt.Fprintf(&h, `,"layer.%d.w":{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]}`, i, 4*i, 4*i+4)
	}
	h.WriteString("}")
	file := stFile(h.String(), make([]byte, 4*n), -1)
	var entries int
	var err error
	alloc := allocated(func() {
		var ts map[string]*tensor.Tensor
		ts, _, err = ReadSafetensors(bytes.NewReader(file))
		entries = len(ts)
	})
	if err != nil || entries != n {
		t.Fatalf("%d entries, error %v", entries, err)
	}
	if limit := uint64(12 * len(file)); alloc > limit {
		t.Errorf("reading a file of %d bytes allocated %d bytes (limit %d)", len(file), alloc, limit)
	}
}

func BenchmarkReadSafetensorsManyEntries(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		var h strings.Builder
		h.WriteString("{")
		for i := range n {
			if i > 0 {
				h.WriteString(",")
			}
			fmt.Fprintf(&h, `"layer.%d.w":{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]}`, i, 4*i, 4*i+4)
		}
		h.WriteString("}")
		file := stFile(h.String(), make([]byte, 4*n), -1)
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ReadSafetensors(bytes.NewReader(file)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
