package agx

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/goagx/agx/tensor"
)

// A Function must keep the tensors its Backward needs on the ctx
// (SaveForBackward), never in its own fields: a Function value applied twice
// shares its fields between the two calls, so the first call's Backward would
// read the second call's tensors and silently return wrong gradients. ApplyN
// enforces the rule for Functions that are pointers to structs (the only
// Functions whose Forward can change their own fields): it notes the
// tensor-holding fields before Forward and fails if Forward changed one.

// tensorField is the index path of a field that can hold tensors, and whether
// it is a slice of them.
type tensorField struct {
	index []int
	slice bool
	name  string
}

// tensorFieldCache maps a struct type to its tensor-holding fields.
var tensorFieldCache sync.Map // reflect.Type → []tensorField

var (
	typTensor      = reflect.TypeFor[*Tensor]()
	typRawTensor   = reflect.TypeFor[*tensor.Tensor]()
	typTensors     = reflect.TypeFor[[]*Tensor]()
	typRawTensors  = reflect.TypeFor[[]*tensor.Tensor]()
	noTensorFields = []tensorField{}
)

// tensorFields lists the fields of struct type t (through embedded and nested
// struct values) whose type is a tensor or a slice of tensors.
func tensorFields(t reflect.Type) []tensorField {
	if v, ok := tensorFieldCache.Load(t); ok {
		return v.([]tensorField)
	}
	var out []tensorField
	var walk func(t reflect.Type, index []int, names []string)
	walk = func(t reflect.Type, index []int, names []string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			idx := append(slices.Clone(index), i)
			nm := append(slices.Clone(names), f.Name)
			switch f.Type {
			case typTensor, typRawTensor:
				out = append(out, tensorField{index: idx, name: strings.Join(nm, ".")})
			case typTensors, typRawTensors:
				out = append(out, tensorField{index: idx, slice: true, name: strings.Join(nm, ".")})
			default:
				if f.Type.Kind() == reflect.Struct && len(index) < 4 {
					walk(f.Type, idx, nm)
				}
			}
		}
	}
	walk(t, nil, nil)
	if out == nil {
		out = noTensorFields
	}
	tensorFieldCache.Store(t, out)
	return out
}

// fieldSnapshot is the state of a Function's tensor fields before Forward.
type fieldSnapshot struct {
	v      reflect.Value // the struct the pointer points at
	fields []tensorField
	ptrs   []uintptr // one per field; for a slice, its array pointer
	elems  [][]uintptr
}

// snapshotFields records f's tensor fields when f is a non-nil pointer to a
// struct that has some; otherwise it returns nil at the cost of a map read.
func snapshotFields(f Function) *fieldSnapshot {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Type().Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	fields := tensorFields(v.Type())
	if len(fields) == 0 {
		return nil
	}
	s := &fieldSnapshot{v: v, fields: fields, ptrs: make([]uintptr, len(fields)), elems: make([][]uintptr, len(fields))}
	for i, fl := range fields {
		s.ptrs[i], s.elems[i] = fieldState(v.FieldByIndex(fl.index), fl.slice)
	}
	return s
}

// fieldState returns a field's pointer and, for a slice, its elements.
func fieldState(fv reflect.Value, slice bool) (uintptr, []uintptr) {
	if fv.IsNil() {
		return 0, nil
	}
	if !slice {
		return fv.Pointer(), nil
	}
	el := make([]uintptr, fv.Len())
	for j := range el {
		if e := fv.Index(j); !e.IsNil() {
			el[j] = e.Pointer()
		}
	}
	return fv.Pointer(), el
}

// check fails if Forward changed one of the recorded fields.
func (s *fieldSnapshot) check(name string) {
	if s == nil {
		return
	}
	for i, fl := range s.fields {
		p, el := fieldState(s.v.FieldByIndex(fl.index), fl.slice)
		if p != s.ptrs[i] || !slices.Equal(el, s.elems[i]) {
			tensor.PanicHint(name, ErrGraph, "save tensors through ctx with ctx.SaveForBackward and read them with ctx.SavedTensors(), never on the Function",
				"Forward stored a tensor in the Function's field %s: a Function value applied twice shares its fields, so the first call's Backward would use the second call's tensors and return wrong gradients", fl.name)
		}
	}
}
