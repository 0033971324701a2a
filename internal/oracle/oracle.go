// Package oracle runs reference computations in PyTorch (Debian's
// python3-torch, through /usr/bin/python3) so that tests can compare agx's
// values and gradients with PyTorch's on the same inputs. When torch is not
// importable, Skip skips the calling test with a clear message, or fails it
// under `make test` (internal/testenv).
//
// A reference script is a small Python file that imports agx_oracle (next to
// this file), reads its inputs with agx_oracle.load(), and writes its results
// with agx_oracle.dump(...). Tensors travel as {"shape", "dtype", "data"}.
package oracle

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/goagx/agx/internal/testenv"
	"github.com/goagx/agx/tensor"
)

// Python is the interpreter with Debian's packages (a python3 on PATH may be
// another installation without torch).
const Python = "/usr/bin/python3"

//go:embed agx_oracle.py
var helperPy []byte

var (
	availOnce sync.Once
	availErr  error
)

// Available reports whether PyTorch can be imported, and why not.
func Available() error {
	availOnce.Do(func() {
		if _, err := os.Stat(Python); err != nil {
			availErr = fmt.Errorf("%s not found", Python)
			return
		}
		out, err := exec.Command(Python, "-c", "import torch, sys; sys.stdout.write(torch.__version__)").CombinedOutput()
		if err != nil {
			availErr = fmt.Errorf("%s cannot import torch (install python3-torch; `make test` does): %s", Python, lastLine(string(out)))
			return
		}
	})
	return availErr
}

// bootstrap makes the embedded helper importable as agx_oracle without a
// file on disk (a temporary directory per test process would outlive it):
// it builds the module from the environment variable AGX_ORACLE_HELPER. It
// is one line, so a script's line numbers in a traceback are one more than
// in its file.
const bootstrap = "import os, sys, types; m = types.ModuleType('agx_oracle'); " +
	"exec(compile(os.environ['AGX_ORACLE_HELPER'], 'agx_oracle.py', 'exec'), m.__dict__); " +
	"sys.modules['agx_oracle'] = m; del m\n"

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// Skip skips t when PyTorch is not available, and fails it instead when
// testenv.RequireAll (`make test` installs PyTorch).
func Skip(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		testenv.Missing(t, "PyTorch oracle unavailable: %v", err)
	}
}

// Tensor is the JSON form of a tensor.
type Tensor struct {
	Shape []int     `json:"shape"`
	DType string    `json:"dtype"`
	Data  []float64 `json:"data"`
	// Null marks a missing value (a nil gradient).
	Null bool `json:"null,omitempty"`
}

// Encode converts a tensor (nil allowed) to its JSON form.
func Encode(t *tensor.Tensor) Tensor {
	if t == nil {
		return Tensor{Null: true}
	}
	data := t.Float64s()
	for i, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			data[i] = 0 // JSON has no NaN; callers avoid such inputs
		}
	}
	shape := t.Shape()
	if shape == nil {
		shape = []int{} // a 0-d tensor: [] in JSON, not null
	}
	return Tensor{Shape: shape, DType: t.DType().String(), Data: data}
}

// Decode converts the JSON form back to a tensor (nil for Null).
func (o Tensor) Decode() *tensor.Tensor {
	if o.Null {
		return nil
	}
	dt := map[string]tensor.DType{"float32": tensor.Float32, "float64": tensor.Float64, "int64": tensor.Int64, "bool": tensor.Bool}[o.DType]
	if dt == 0 {
		dt = tensor.Float64
	}
	// Reshape: FromSlice with an empty shape would make a 1-D tensor.
	return tensor.FromSlice(o.Data, len(o.Data)).Reshape(o.Shape...).To(dt)
}

// Run executes the Python script with input (marshalled to JSON on stdin) and
// decodes its JSON stdout into output.
func Run(script string, input, output any) error {
	if err := Available(); err != nil {
		return err
	}
	in, err := json.Marshal(input)
	if err != nil {
		return err
	}
	cmd := exec.Command(Python, "-c", bootstrap+script)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "AGX_ORACLE_HELPER="+string(helperPy), "OMP_NUM_THREADS=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("oracle script failed: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), output); err != nil {
		return fmt.Errorf("oracle output is not JSON: %v\n%s", err, stdout.String())
	}
	return nil
}

// RunFile is Run with the script read from a file (relative to the test's
// package directory).
func RunFile(path string, input, output any) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return Run(string(src), input, output)
}

// Close compares two tensors elementwise: |a-b| ≤ atol + rtol·|b|, with equal
// shapes. It returns a description of the first difference, or "".
func Close(got, want *tensor.Tensor, rtol, atol float64) string {
	if got == nil || want == nil {
		if got == want {
			return ""
		}
		return fmt.Sprintf("got %v, want %v", got, want)
	}
	gs, ws := got.Shape(), want.Shape()
	if fmt.Sprint(gs) != fmt.Sprint(ws) {
		return fmt.Sprintf("shape %v, want %v", gs, ws)
	}
	g, w := got.Float64s(), want.Float64s()
	for i := range g {
		if math.Abs(g[i]-w[i]) > atol+rtol*math.Abs(w[i]) || math.IsNaN(g[i]) != math.IsNaN(w[i]) {
			return fmt.Sprintf("element %d: got %.17g, want %.17g (rtol %g, atol %g)", i, g[i], w[i], rtol, atol)
		}
	}
	return ""
}
