package agx

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/goagx/agx/tensor"
)

// A Function must keep the tensors its Backward needs on the ctx
// (SaveForBackward), never in its own state: a Function value applied twice
// shares that state between the two calls, so the first call's Backward would
// read the second call's tensors and silently return wrong gradients. ApplyN
// enforces the rule: it notes the tensors reachable from the Function value
// before Forward (through pointers, struct fields exported or not, slices,
// arrays, maps and interfaces) and fails if Forward made a new one reachable.
// That covers a pointer-to-struct Function writing its fields and a value
// Function writing through a slice, map or pointer it holds. Tensors a
// closure captures (agx.Func) cannot be seen.
//
// Cost: a Function type that cannot hold tensors (the usual struct of
// numbers, or Func) is recognised once per type and costs a map read; others
// are walked before and after Forward, at most walkBudget values each time.

const walkBudget = 4096

// mayHoldCache maps a type to whether a value of it can reach a tensor.
var mayHoldCache sync.Map // reflect.Type → bool

var (
	typTensor    = reflect.TypeFor[*Tensor]()
	typRawTensor = reflect.TypeFor[*tensor.Tensor]()
)

// mayHoldTensors reports whether a value of type t can reach a tensor.
func mayHoldTensors(t reflect.Type) bool {
	if v, ok := mayHoldCache.Load(t); ok {
		return v.(bool)
	}
	r := mayHold(t, map[reflect.Type]bool{})
	mayHoldCache.Store(t, r)
	return r
}

func mayHold(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if t == typTensor || t == typRawTensor {
		return true
	}
	if visiting[t] {
		return false // a cycle: answered where it started
	}
	visiting[t] = true
	defer delete(visiting, t)
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayHold(t.Elem(), visiting)
	case reflect.Map:
		return mayHold(t.Key(), visiting) || mayHold(t.Elem(), visiting)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if mayHold(t.Field(i).Type, visiting) {
				return true
			}
		}
	}
	return false
}

// tensorWalk collects the tensors reachable from a value.
type tensorWalk struct {
	found  map[unsafe.Pointer]string // tensor → path (paths only when named)
	seen   map[unsafe.Pointer]bool   // pointers, slices and maps visited
	budget int
	named  bool
}

func (w *tensorWalk) walk(v reflect.Value, path string) {
	if w.budget <= 0 || !v.IsValid() {
		return
	}
	w.budget--
	t := v.Type()
	if !mayHoldTensors(t) {
		return
	}
	if t == typTensor || t == typRawTensor {
		if !v.IsNil() {
			if _, ok := w.found[v.UnsafePointer()]; !ok {
				w.found[v.UnsafePointer()] = path
			}
		}
		return
	}
	sub := func(s string) string {
		if w.named {
			return path + s
		}
		return ""
	}
	switch t.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), path)
		}
	case reflect.Pointer:
		if v.IsNil() || w.seen[v.UnsafePointer()] {
			return
		}
		w.seen[v.UnsafePointer()] = true
		w.walk(v.Elem(), path)
	case reflect.Slice:
		if v.Len() == 0 {
			return
		}
		if p := v.Index(0).Addr().UnsafePointer(); !w.seen[p] {
			w.seen[p] = true
			for i := 0; i < v.Len(); i++ {
				w.walk(v.Index(i), sub(fmt.Sprintf("[%d]", i)))
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), sub(fmt.Sprintf("[%d]", i)))
		}
	case reflect.Map:
		if v.IsNil() || w.seen[v.UnsafePointer()] {
			return
		}
		w.seen[v.UnsafePointer()] = true
		for it := v.MapRange(); it.Next(); {
			w.walk(it.Key(), sub("[key]"))
			w.walk(it.Value(), sub(fmt.Sprintf("[%v]", it.Key())))
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			w.walk(v.Field(i), sub("."+t.Field(i).Name))
		}
	}
}

// reachable returns the tensors reachable from f and whether the walk saw
// everything (false when it ran out of budget).
func reachable(f reflect.Value, named bool) (map[unsafe.Pointer]string, bool) {
	w := &tensorWalk{found: map[unsafe.Pointer]string{}, seen: map[unsafe.Pointer]bool{}, budget: walkBudget, named: named}
	w.walk(f, "")
	return w.found, w.budget > 0
}

// fieldSnapshot is the set of tensors reachable from a Function before
// Forward.
type fieldSnapshot struct {
	v      reflect.Value
	before map[unsafe.Pointer]string
}

// snapshotFields notes the tensors reachable from f, or returns nil (at the
// cost of a map read) when f's type cannot hold any or the walk is too big.
func snapshotFields(f Function) *fieldSnapshot {
	v := reflect.ValueOf(f)
	if !v.IsValid() || !mayHoldTensors(v.Type()) {
		return nil
	}
	before, complete := reachable(v, false)
	if !complete {
		return nil
	}
	return &fieldSnapshot{v: v, before: before}
}

// check fails if Forward made a new tensor reachable from the Function.
func (s *fieldSnapshot) check(name string) {
	if s == nil {
		return
	}
	after, complete := reachable(s.v, false)
	if !complete {
		return
	}
	for p := range after {
		if _, ok := s.before[p]; ok {
			continue
		}
		named, _ := reachable(s.v, true)
		where := named[p]
		if where == "" {
			where = " (the value itself)"
		}
		if where[0] == '.' {
			where = where[1:]
		}
		tensor.PanicHint(name, ErrGraph, "save tensors through ctx with ctx.SaveForBackward and read them with ctx.SavedTensors(), never on the Function",
			"Forward stored a tensor in the Function's field %s: a Function value applied twice shares its fields, so the first call's Backward would use the second call's tensors and return wrong gradients", where)
	}
}
