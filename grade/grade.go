package grade

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"
)

// MIMEType is the MIME type of the grade JSON in a test cell's display_data.
const MIMEType = "application/vnd.agx.grade+json"

// Version is the version of the grade JSON schema (Result.Version). Version
// 2 carries a MAC instead of version 1's nonce (the secret itself).
const Version = 2

// DefaultTimeout is the time one check may run before it is abandoned.
const DefaultTimeout = 10 * time.Second

// maxMessage bounds a check's message, so that a huge panic value or a long
// student string cannot flood the output.
const maxMessage = 2000

// Check statuses.
const (
	Pass    = "pass"    // every assertion held
	Fail    = "fail"    // an assertion failed
	Error   = "error"   // the check panicked (usually in the code under test)
	Timeout = "timeout" // the check ran past its deadline and was abandoned
)

// A Grader collects the checks of one test cell. Create it with New, add checks
// with Check and finish with Done. A Grader is used from one goroutine.
type Grader struct {
	res     Result
	timeout time.Duration
	hidden  bool
	names   map[string]bool
	done    bool
	key     string // the secret that keys the result's MAC ("" outside grading)
}

// Result is what a test cell reports: its grade_id, one entry per check and
// the totals, authenticated by MAC. It is the JSON document under MIMEType.
type Result struct {
	GradeID string `json:"grade_id"`
	// MAC is the hex HMAC-SHA256, keyed by the secret that agx autograde
	// handed to the test cell's program, of the result's JSON with MAC
	// empty (see Verify). The secret itself is never sent: the result
	// travels through GoNB's pipe and the notebook, which student code can
	// read or intercept, and a result with its checks rewritten no longer
	// matches its MAC. Empty when the Grader had no secret.
	MAC      string        `json:"mac"`
	Checks   []CheckResult `json:"checks"`
	Score    float64       `json:"score"`
	MaxScore float64       `json:"max_score"`
	Version  int           `json:"version"`
}

// CheckResult is the outcome of one check. Points is Max when the check passed
// and 0 otherwise. Message says why it did not pass (empty when it passed).
type CheckResult struct {
	Name    string  `json:"name"`
	Points  float64 `json:"points"`
	Max     float64 `json:"max"`
	Passed  bool    `json:"passed"`
	Status  string  `json:"status"`
	Hidden  bool    `json:"hidden"`
	Message string  `json:"message"`
	Seconds float64 `json:"seconds"`
}

// New starts the checks of the test cell whose nbgrader grade_id is gradeID.
// When agx autograde runs the test cell, the result carries the secret that
// the grader handed to this program for that cell (see SecretEnv); only the
// test cell's own call, in function main, receives it.
//
//go:noinline
func New(gradeID string) *Grader {
	return &Grader{
		res:     Result{GradeID: gradeID, Checks: []CheckResult{}, Version: Version},
		key:     takeSecret(gradeID, 2),
		timeout: DefaultTimeout,
		names:   map[string]bool{},
	}
}

// Nonce sets the key of the MAC that Done reports. Test cells never call it
// (agx assign rejects a test cell that does): when agx autograde grades, the
// key is the secret that New takes at start-up (SecretEnv). It is kept for
// programs that drive the kit themselves.
func (g *Grader) Nonce(nonce string) *Grader {
	g.key = nonce
	return g
}

// Timeout sets the deadline of each check added after it (DefaultTimeout
// until then). A check that runs longer is abandoned and scores 0.
func (g *Grader) Timeout(d time.Duration) *Grader {
	if d <= 0 {
		panic(fmt.Sprintf("grade: Timeout: the deadline must be positive, got %v", d))
	}
	g.timeout = d
	return g
}

// Hidden marks the checks added after it as hidden: they count towards the
// score, but feedback shows students only their name and points, never their
// message. Hidden tests of an exercise (between BEGIN HIDDEN TESTS and END
// HIDDEN TESTS) start with it.
func (g *Grader) Hidden() *Grader {
	g.hidden = true
	return g
}

// Check runs fn now, as the check called name worth points, and records its
// outcome. fn runs in its own goroutine under recover: a failed assertion on c,
// a panic or a run past the deadline fails this check only. A goroutine that
// does not finish by the deadline is abandoned (it stops when the cell's
// program exits). Check panics on misuse: an empty or repeated name, negative
// points, or a call after Done.
func (g *Grader) Check(name string, points float64, fn func(c *C)) {
	switch {
	case g.done:
		panic("grade: Check " + name + " after Done")
	case strings.TrimSpace(name) == "":
		panic("grade: Check needs a name")
	case g.names[name]:
		panic(fmt.Sprintf("grade: two checks are called %q", name))
	case points < 0 || math.IsNaN(points) || math.IsInf(points, 0):
		panic(fmt.Sprintf("grade: Check %q: points must be a finite number >= 0, got %v", name, points))
	}
	g.names[name] = true
	cr := CheckResult{Name: name, Max: points, Hidden: g.hidden}
	start := time.Now()
	status, msg := run(fn, g.timeout)
	cr.Seconds = time.Since(start).Seconds()
	cr.Status, cr.Message = status, msg
	cr.Passed = status == Pass
	if cr.Passed {
		cr.Points = points
	}
	g.res.Checks = append(g.res.Checks, cr)
}

// run executes fn in a goroutine and waits for it at most timeout.
func run(fn func(c *C), timeout time.Duration) (status, msg string) {
	type outcome struct{ status, msg string }
	ch := make(chan outcome, 1) // buffered: an abandoned goroutine never blocks on it
	go func() {
		c := &C{}
		finished := false
		defer func() {
			r := recover()
			switch {
			case finished:
				ch <- outcome{Pass, ""}
			case r == nil: // runtime.Goexit in the code under test
				ch <- outcome{Error, "the check stopped early (runtime.Goexit)"}
			case r == errFailNow:
				ch <- outcome{Fail, c.msg}
			default:
				ch <- outcome{Error, panicMessage(r)}
			}
		}()
		fn(c)
		finished = true
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case o := <-ch:
		return o.status, truncate(o.msg)
	case <-timer.C:
		return Timeout, fmt.Sprintf("did not finish within %v (an endless loop?)", timeout)
	}
}

// panicMessage describes a recovered panic value, with the innermost function
// of package main (the notebook's code) on the panicking goroutine's stack.
func panicMessage(r any) string {
	msg := fmt.Sprint(r)
	if e, ok := r.(error); ok {
		msg = e.Error()
	}
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if name, ok := strings.CutPrefix(f.Function, "main."); ok && !strings.HasPrefix(name, "main.") {
			msg += " (in " + name + ")"
			break
		}
		if !more {
			break
		}
	}
	return "panic: " + msg
}

func truncate(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncated
}

// truncated ends a message that truncate shortened.
const truncated = " … (truncated)"

// maxName bounds a check's name in a result that ParseOutput accepts (the
// kit does not limit names; instructors write them).
const maxName = 1000

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Done finishes the test cell: it totals the score and, in a notebook, emits
// one display_data output holding an HTML table for the student (text/html),
// a plain-text report (text/plain) and the Result as JSON (MIMEType). Outside a
// notebook it prints the plain-text report. It returns the Result; it panics if
// the output could not be sent, so that the failure shows in the cell.
func (g *Grader) Done() *Result {
	if g.done {
		panic("grade: Done called twice")
	}
	g.done = true
	r := &g.res
	r.Score, r.MaxScore = 0, 0
	for _, c := range r.Checks {
		r.Score += c.Points
		r.MaxScore += c.Max
	}
	r.MAC = ""
	if g.key != "" {
		r.MAC = r.mac(g.key)
	}
	if err := display(r); err != nil {
		panic("grade: could not send the result: " + err.Error())
	}
	return r
}

// JSON returns r as JSON.
func (r *Result) JSON() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic("grade: " + err.Error()) // a Result always encodes
	}
	return b
}

// mac returns the hex HMAC-SHA256 of r's JSON with MAC empty, keyed by key.
// JSON encoding is canonical here: the fields in declaration order, floats in
// their shortest round-trip form, strings as valid UTF-8, so a result read
// back with ParseOutput encodes to the same bytes.
func (r *Result) mac(key string) string {
	c := *r
	c.MAC = ""
	m := hmac.New(sha256.New, []byte(key))
	m.Write(c.JSON())
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether r carries the MAC that a Grader holding key gave
// it: whether r is, check for check and point for point, what that Grader
// reported. An empty key verifies nothing.
func (r *Result) Verify(key string) bool {
	if key == "" || r.MAC == "" {
		return false
	}
	return hmac.Equal([]byte(r.MAC), []byte(r.mac(key)))
}

// Passed reports whether every check passed.
func (r *Result) Passed() bool {
	for _, c := range r.Checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

// ParseOutput decodes the grade JSON of a display_data output: data is the
// value stored under MIMEType in the notebook, either a JSON string holding
// the document (what GoNB sends) or the document itself. It checks the schema
// version and that every check's points lie in [0, max], and recomputes the
// totals from the checks rather than trusting them.
func ParseOutput(data []byte) (*Result, error) {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		data = []byte(s)
	}
	var r Result
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("grade: not a grade result: %w", err)
	}
	if r.Version != Version {
		return nil, fmt.Errorf("grade: result version %d, want %d", r.Version, Version)
	}
	if r.GradeID == "" {
		return nil, fmt.Errorf("grade: result without grade_id")
	}
	var score, max float64
	for _, c := range r.Checks {
		if len(c.Message) > maxMessage+len(truncated) || len(c.Name) > maxName {
			return nil, fmt.Errorf("grade: %s: a check's name or message is longer than the kit writes", r.GradeID)
		}
		if _, ok := statusText[c.Status]; !ok {
			return nil, fmt.Errorf("grade: %s: check %q has unknown status %q", r.GradeID, c.Name, c.Status)
		}
		if c.Max < 0 || c.Points < 0 || c.Points > c.Max || (c.Passed != (c.Points == c.Max && c.Status == Pass)) {
			return nil, fmt.Errorf("grade: %s: check %q has inconsistent points (%v of %v, passed %v)", r.GradeID, c.Name, c.Points, c.Max, c.Passed)
		}
		score += c.Points
		max += c.Max
	}
	r.Score, r.MaxScore = score, max
	return &r, nil
}
