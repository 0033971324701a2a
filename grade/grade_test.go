package grade

import (
	"encoding/json"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/agx"
)

func square(x *agx.Tensor) *agx.Tensor { return x.Mul(x) }

// wrongSquare has the right forward and a gradient off by a factor of two.
func wrongSquare(x *agx.Tensor) *agx.Tensor {
	return agx.Apply(agx.Func{FuncName: "WrongSquare",
		Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
			ctx.SaveForBackward(in[0])
			return agx.Outputs(in[0].Mul(in[0]))
		},
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
			return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0]))
		}}, x)
}

func TestChecks(t *testing.T) {
	x := func() *agx.Tensor { return agx.FromSlice([]float64{0.5, -1.5, 2}) }
	for _, tc := range []struct {
		name   string
		fn     func(c *C)
		status string
		msg    string // substring of the message
	}{
		{"pass", func(c *C) {}, Pass, ""},
		{"close", func(c *C) { c.Close(square(x()), agx.FromSlice([]float64{0.25, 2.25, 4}), 1e-7, 0) }, Pass, ""},
		{"close fails", func(c *C) { c.Close(x(), agx.FromSlice([]float64{0.5, -1.5, 2.1}), 1e-7, 1e-9) }, Fail, "1 of 3 values differ; first at [2]: got 2, want 2.1"},
		{"close shape", func(c *C) { c.Close(x(), agx.FromSlice([]float64{1, 2}), 0, 0) }, Fail, "shape [3], want [2]"},
		{"close nil", func(c *C) { c.Close(nil, x(), 0, 0) }, Fail, "nil tensor"},
		{"close NaN", func(c *C) { c.CloseValues([]float64{math.NaN()}, []float64{1}, 1) }, Fail, "got NaN"},
		{"values length", func(c *C) { c.CloseValues([]float64{1}, []float64{1, 2}, 0) }, Fail, "got 1 values, want 2"},
		{"shape", func(c *C) { c.Shape(agx.Zeros(agx.Float32, 2, 3), 3, 2) }, Fail, "shape [2 3], want [3 2]"},
		{"true", func(c *C) { c.True(1 > 2, "want %d", 7) }, Fail, "want 7"},
		{"gradcheck", func(c *C) { c.GradCheck(square, []*agx.Tensor{x().SetRequiresGrad(true)}) }, Pass, ""},
		{"gradcheck fails", func(c *C) { c.GradCheck(wrongSquare, []*agx.Tensor{x().SetRequiresGrad(true)}) }, Fail, "Jacobian mismatch"},
		{"grad matches", func(c *C) { c.GradMatches(square, func(x *agx.Tensor) *agx.Tensor { return x.Pow(2) }, x()) }, Pass, ""},
		{"grad differs", func(c *C) { c.GradMatches(wrongSquare, square, x()) }, Fail, "gradient of input 0: 3 of 3 values differ"},
		{"output differs", func(c *C) { c.GradMatches(square, func(x *agx.Tensor) *agx.Tensor { return x }, x()) }, Fail, "output 0:"},
		{"panics", func(c *C) { c.Panics(func() { agx.Zeros(agx.Float64, 2).MatMul(agx.Zeros(agx.Float64, 3)) }, "MatMul") }, Pass, ""},
		{"panics none", func(c *C) { c.Panics(func() {}, "boom") }, Fail, `no panic, want one mentioning "boom"`},
		{"panics other", func(c *C) { c.Panics(func() { panic("bang") }, "boom") }, Fail, `panic "bang" does not mention "boom"`},
		{"choice", func(c *C) { c.Choice(" b ", "B") }, Pass, ""},
		{"choice wrong", func(c *C) { c.Choice("a", "B") }, Fail, `"a" is not the right answer`},
		{"choice empty", func(c *C) { c.Choice("", "B") }, Fail, "no answer given yet"},
		{"choices", func(c *C) { c.Choices([]string{"c", "A", "a"}, []string{"a", "c"}) }, Pass, ""},
		{"choices wrong", func(c *C) { c.Choices([]string{"a"}, []string{"a", "c"}) }, Fail, "is not right"},
		{"student panic", func(c *C) { var m map[string]int; m["x"] = 1 }, Error, "panic: assignment to entry in nil map"},
		{"student Goexit", func(c *C) { runtime.Goexit() }, Error, "stopped early"},
		{"student panic(nil)", func(c *C) { panic(nil) }, Error, "panic: panic called with nil argument"},
		{"student agx panic", func(c *C) { agx.Zeros(agx.Float64, 2).Add(agx.Zeros(agx.Float64, 3)) }, Error, "panic: agx: Add"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, msg := run(tc.fn, 5*time.Second)
			if status != tc.status || !strings.Contains(msg, tc.msg) {
				t.Errorf("got %s %q, want %s with %q", status, msg, tc.status, tc.msg)
			}
		})
	}
}

func TestGrader(t *testing.T) {
	g := New("gelu-forward").Nonce("n0nce").Timeout(50 * time.Millisecond)
	g.Check("passes", 1, func(c *C) {})
	g.Check("panics", 2, func(c *C) { panic("not implemented yet") })
	g.Check("loops", 1.5, func(c *C) {
		for {
			time.Sleep(time.Millisecond)
		}
	})
	g.Hidden()
	g.Check("hidden pass", 3, func(c *C) {})
	g.Check("hidden fail", 0.5, func(c *C) { c.Fail("secret detail") })
	r := g.Done()

	want := []struct {
		status string
		points float64
		hidden bool
	}{{Pass, 1, false}, {Error, 0, false}, {Timeout, 0, false}, {Pass, 3, true}, {Fail, 0, true}}
	if len(r.Checks) != len(want) {
		t.Fatalf("%d checks, want %d", len(r.Checks), len(want))
	}
	for i, w := range want {
		c := r.Checks[i]
		if c.Status != w.status || c.Points != w.points || c.Hidden != w.hidden || c.Passed != (w.status == Pass) {
			t.Errorf("check %d (%s): %+v, want %+v", i, c.Name, c, w)
		}
	}
	if r.Score != 4 || r.MaxScore != 8 {
		t.Errorf("score %v / %v, want 4 / 8", r.Score, r.MaxScore)
	}
	if !strings.Contains(r.Checks[2].Message, "did not finish within 50ms") {
		t.Errorf("timeout message %q", r.Checks[2].Message)
	}
	// A hidden check's message is in the JSON only, never in the reports.
	if strings.Contains(r.Text(), "secret detail") || strings.Contains(r.HTML(), "secret detail") {
		t.Errorf("a report shows a hidden check's message")
	}
	if !strings.Contains(string(r.JSON()), "secret detail") {
		t.Errorf("the JSON lacks the hidden check's message")
	}
}

func TestJSONSchema(t *testing.T) {
	g := New("q1").Nonce("abc")
	g.Check("a", 1, func(c *C) {})
	g.Hidden()
	g.Check("b", 2, func(c *C) { c.Fail("x") })
	r := g.Done()
	var doc map[string]any
	if err := json.Unmarshal(r.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"grade_id", "mac", "checks", "score", "max_score", "version"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, r.JSON())
		}
	}
	check := doc["checks"].([]any)[1].(map[string]any)
	for _, k := range []string{"name", "points", "max", "passed", "hidden", "message", "status"} {
		if _, ok := check[k]; !ok {
			t.Errorf("check JSON lacks %q", k)
		}
	}
	// What GoNB stores (a JSON string) and a JSON object both parse.
	asString, _ := json.Marshal(string(r.JSON()))
	for name, data := range map[string][]byte{"string": asString, "object": r.JSON()} {
		t.Run(name, func(t *testing.T) {
			p, err := ParseOutput(data)
			if err != nil {
				t.Fatal(err)
			}
			if p.GradeID != "q1" || !p.Verify("abc") || p.Score != 1 || p.MaxScore != 3 || !p.Checks[1].Hidden {
				t.Errorf("parsed %+v", p)
			}
			if strings.Contains(string(data), "abc") {
				t.Errorf("the result carries its secret: %s", data)
			}
		})
	}
}

func TestParseOutputRejects(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not json", `hello`, "not a grade result"},
		{"version", `{"grade_id":"a","version":99}`, "version 99"},
		{"status", `{"grade_id":"a","version":2,"checks":[{"name":"x","points":0,"max":1,"passed":false,"status":"weird"}]}`, "unknown status"},
		{"no id", `{"version":2}`, "without grade_id"},
		{"unknown field", `{"grade_id":"a","version":2,"extra":1}`, "unknown field"},
		{"inflated", `{"grade_id":"a","version":2,"checks":[{"name":"x","points":5,"max":1,"passed":true,"status":"pass"}]}`, "inconsistent points"},
		{"long message", `{"grade_id":"a","version":2,"checks":[{"name":"x","points":0,"max":1,"passed":false,"status":"fail","message":"` + strings.Repeat("m", 3000) + `"}]}`, "longer than the kit writes"},
		{"passed but zero", `{"grade_id":"a","version":2,"checks":[{"name":"x","points":0,"max":1,"passed":true,"status":"pass"}]}`, "inconsistent points"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOutput([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// The totals are recomputed, not trusted.
	p, err := ParseOutput([]byte(`{"grade_id":"a","version":2,"score":100,"max_score":100,"checks":[{"name":"x","points":1,"max":1,"passed":true,"status":"pass"}]}`))
	if err != nil || p.Score != 1 || p.MaxScore != 1 {
		t.Errorf("got %+v, %v", p, err)
	}
}

// TestMAC: a result verifies with its Grader's key only, and not once a
// check, a score or the grade_id is changed, as code that intercepts the
// result on its way to the notebook would.
func TestMAC(t *testing.T) {
	g := New("cell").Nonce("k3y")
	g.Check("a", 1, func(c *C) {})
	g.Check("b", 2, func(c *C) { c.Fail("wrong") })
	r := g.Done()
	p, err := ParseOutput(r.JSON())
	if err != nil || !p.Verify("k3y") || p.Verify("other") || p.Verify("") {
		t.Fatalf("parsed %+v, %v: the MAC does not verify with its key only", p, err)
	}
	if strings.Contains(string(r.JSON()), "k3y") {
		t.Errorf("the result carries its secret: %s", r.JSON())
	}
	for name, change := range map[string]func(s string) string{
		"passed": func(s string) string {
			return strings.Replace(s, `"points":0,"max":2,"passed":false,"status":"fail"`, `"points":2,"max":2,"passed":true,"status":"pass"`, 1)
		},
		"grade_id": func(s string) string { return strings.Replace(s, `"grade_id":"cell"`, `"grade_id":"cell2"`, 1) },
		"dropped":  func(s string) string { return strings.Replace(s, `"max":2,`, `"max":0,`, 1) },
		"message":  func(s string) string { return strings.Replace(s, `"wrong"`, `"right"`, 1) },
	} {
		forged := change(string(r.JSON()))
		if forged == string(r.JSON()) {
			t.Fatalf("%s: the change did nothing", name)
		}
		if p, err := ParseOutput([]byte(forged)); err == nil && p.Verify("k3y") {
			t.Errorf("%s: a changed result still verifies: %s", name, forged)
		}
	}
	if New("cell").Done().MAC != "" {
		t.Errorf("a result without a secret has a MAC")
	}
}

func TestHTMLEscapes(t *testing.T) {
	g := New(`id<script>`)
	g.Check(`<b>name</b>`, 1, func(c *C) { c.Fail("<img src=x onerror=alert(1)> & more") })
	g.Check("student panic", 1, func(c *C) { panic(`</code><script>alert("x")</script>`) })
	r := g.Done()
	h := r.HTML()
	for _, bad := range []string{"<script", "<img", "<b>name"} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML contains %q unescaped:\n%s", bad, h)
		}
	}
	for _, good := range []string{"&lt;img src=x onerror=alert(1)&gt; &amp; more", "&lt;b&gt;name&lt;/b&gt;", "&lt;/code&gt;&lt;script&gt;"} {
		if !strings.Contains(h, good) {
			t.Errorf("HTML lacks %q:\n%s", good, h)
		}
	}
}

func TestMessageTruncated(t *testing.T) {
	status, msg := run(func(c *C) { c.Fail("%s", strings.Repeat("é", 5000)) }, time.Second)
	if status != Fail || len(msg) > maxMessage+40 || !strings.HasSuffix(msg, "(truncated)") {
		t.Errorf("status %s, message of %d bytes", status, len(msg))
	}
}

func TestMisusePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(g *Grader)
		want string
	}{
		{"empty name", func(g *Grader) { g.Check(" ", 1, func(*C) {}) }, "needs a name"},
		{"repeated name", func(g *Grader) { g.Check("a", 1, func(*C) {}); g.Check("a", 1, func(*C) {}) }, "two checks"},
		{"negative points", func(g *Grader) { g.Check("a", -1, func(*C) {}) }, "points must be"},
		{"after done", func(g *Grader) { g.Done(); g.Check("a", 1, func(*C) {}) }, "after Done"},
		{"timeout", func(g *Grader) { g.Timeout(0) }, "must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.fn(New("x"))
		})
	}
}

// Outside a notebook Done prints a plain-text report.
func ExampleGrader_Done() {
	g := New("square")
	g.Check("forward", 1, func(c *C) {
		x := agx.FromSlice([]float64{1, 2, 3})
		c.Close(x.Mul(x), agx.FromSlice([]float64{1, 4, 9}), 1e-9, 0)
	})
	g.Check("quiz", 0.5, func(c *C) { c.Choice("a", "c") })
	g.Done()
	// Output:
	// square: 1 / 1.5 points
	//   ok   forward (1/1)
	//   FAIL quiz (0/0.5): "a" is not the right answer
}
