package hubtest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/notebook"
)

// TestHubLoad is `make hub-load`: classes of N students at once on one hub,
// each a real PAM user driven through the hub's REST API and a kernel
// websocket as a browser would (hubdrive.py). Each student logs in, starts a
// server, fetches the GELU exercise, runs lesson 01 cell by cell with reading
// times between cells, runs the exercise with a wrong answer, edits it and
// runs it again, and submits. Then the instructor collects.
//
// It fails when anything is lost: a login, a server, a cell without its
// reply, a lesson cell whose stored output did not arrive, a cell of the
// corrected exercise that is not ok, a submission not collected with the
// student's answer in it. Latencies are reported, never asserted: the table
// goes to build/hub-load/report.md and report.json.
//
// Settings (make hub-load sets the first four; make test runs the short
// defaults through make hub-test):
//
//	AGX_HUB_LOAD        class sizes, one after another [3]
//	AGX_HUB_LOAD_THINK  reading time before each cell, LO,HI seconds [0.2,1]
//	AGX_HUB_LOAD_RAMP   seconds between two students' arrivals [1]
//	AGX_HUB_LOAD_GRADE  1: autograde the largest class as root (strict) [0]
func TestHubLoad(t *testing.T) {
	needHub(t)
	sizes, err := classSizes(envOr("AGX_HUB_LOAD", "3"))
	if err != nil {
		t.Fatal(err)
	}
	think := envOr("AGX_HUB_LOAD_THINK", "0.2,1")
	ramp, err := strconv.ParseFloat(envOr("AGX_HUB_LOAD_RAMP", "1"), 64)
	if err != nil || ramp < 0 {
		t.Fatalf("AGX_HUB_LOAD_RAMP=%q: want seconds ≥ 0", os.Getenv("AGX_HUB_LOAD_RAMP"))
	}

	h, state := setUp(t, "hub-load")
	h.addTeacher()
	teacher := h.users[instructor]
	var everyone []string
	for _, n := range sizes {
		everyone = append(everyone, classOf(n)...)
	}
	step := time.Now()
	h.startHub(state, everyone)
	hubStart := time.Since(step).Seconds()
	t.Logf("hub start: %.1f s", hubStart)
	source := h.releaseCourse(teacher)
	courseDir := filepath.Dir(source)

	w := h.newWorkload(source, think)
	rep := loadReport{CPU: cpuName(), Cores: runtime.NumCPU(), MemGiB: memTotalGiB(), HubStart: hubStart,
		Think: think, Ramp: ramp,
		ModCacheMiB: duMiB(filepath.Join(h.dir, "cache", "gomod")), BuildCacheMiB: duMiB(filepath.Join(h.dir, "cache", "go-build"))}
	for _, n := range sizes {
		class := classOf(n)
		for _, name := range class {
			h.addUser(name, "-U")
			s := h.users[name]
			h.writeAs(s, filepath.Join(s.home, lesson), w.lesson)
		}
		lv := h.runClass(w, class, ramp)
		lv.Collected = h.collectClass(teacher, courseDir, class, w.solution)
		rep.Levels = append(rep.Levels, lv)
		t.Logf("N=%d: %s", n, lv.summary())
		for _, e := range lv.Errors {
			t.Errorf("N=%d: %s", n, e)
		}
		if lv.Collected != n {
			t.Errorf("N=%d: %d of %d submissions collected with the student's answer", n, lv.Collected, n)
		}
	}
	if os.Getenv("AGX_HUB_LOAD_GRADE") == "1" {
		rep.Grading = h.gradeClass(courseDir, classOf(sizes[len(sizes)-1]))
	}
	h.writeReport(rep)
}

// classSizes parses AGX_HUB_LOAD: class sizes such as "5,10,20,30".
func classSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 99 {
			return nil, fmt.Errorf("AGX_HUB_LOAD=%q: want class sizes from 1 to 99, separated by commas", s)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// classOf names the students of the class of n: agxhub-l05-01 ... (new users
// for each class, so every class starts with cold caches but for the hub's
// shared template).
func classOf(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%sl%02d-%02d", prefix, n, i+1)
	}
	return names
}

// workload is what every student of a class does.
type workload struct {
	lesson      []byte
	withOutput  map[int]bool // code cells of the lesson whose stored output must arrive (by cell index)
	solution    string       // the GELU answer
	wrong, good string       // edits files for hubdrive: the first try, the corrected one
	think       string
}

func (h *hub) newWorkload(source, think string) *workload {
	t := h.t
	w := &workload{withOutput: map[int]bool{}, think: think}
	var err error
	if w.lesson, err = os.ReadFile(filepath.Join(h.root, "notebooks", lesson)); err != nil {
		t.Fatal(err)
	}
	nb, err := notebook.Read(filepath.Join(h.root, "notebooks", lesson))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range nb.Cells {
		if c.CellType == "code" && len(c.Outputs) > 0 {
			w.withOutput[i] = true
		}
	}
	src, err := notebook.Read(source)
	if err != nil {
		t.Fatal(err)
	}
	w.solution = cellSources(src)["gelu-code"]
	wrong := strings.Replace(w.solution, "return x.Div(math.Sqrt2).Erf().Add(1).Mul(0.5)", "return x.Mul(0).Add(0.5)", 1)
	if wrong == w.solution {
		t.Fatal("the GELU source changed: update the first try of TestHubLoad")
	}
	dir := t.TempDir()
	w.wrong, w.good = filepath.Join(dir, "wrong.json"), filepath.Join(dir, "good.json")
	for f, code := range map[string]string{w.wrong: wrong, w.good: w.solution} {
		b, _ := json.Marshal(map[string]string{"gelu-code": code})
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// studentRun is what one student saw.
type studentRun struct {
	name             string
	login, start     float64   // seconds: PAM login for a token, server start
	firstCell        float64   // the first cell of the first notebook
	cells            []float64 // every cell's latency, send to idle
	token            string
	errs             []string
	serverRSS, kRSS  int64 // peak resident memory of the server, and of the kernel with its builds (bytes)
	submitted, ready bool
}

func (s *studentRun) fail(format string, args ...any) {
	s.errs = append(s.errs, s.name+": "+fmt.Sprintf(format, args...))
}

// runClass runs a class: the students arrive ramp seconds apart, each does
// the workload, and their servers stop when all are done.
func (h *hub) runClass(w *workload, class []string, ramp float64) levelResult {
	mem := startSampler(h.users, class)
	busy0 := cpuTimes()
	start := time.Now()
	runs := make([]*studentRun, len(class))
	var wg sync.WaitGroup
	for i, name := range class {
		runs[i] = &studentRun{name: name}
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(float64(i) * ramp * float64(time.Second)))
			h.student(w, h.users[name], runs[i])
			r := runs[i]
			h.t.Logf("N=%d: %s done: %d cells, %d errors, submitted %v", len(class), name, len(r.cells), len(r.errs), r.submitted)
		}()
	}
	wg.Wait()
	wall := time.Since(start).Seconds()
	busy := cpuTimes().busySince(busy0)
	peaks := mem.stop()
	for _, r := range runs {
		r.serverRSS, r.kRSS = peaks.server[r.name], peaks.kernel[r.name]
		if r.ready {
			if err := h.drive(nil, "", nil, "stop", h.url, r.name, r.token); err != nil {
				r.fail("stopping the server: %v", err)
			}
		}
	}
	return summarize(runs, wall, busy, peaks.usedAbove)
}

// student is one student's session; what goes wrong is recorded in r.
func (h *hub) student(w *workload, s *account, r *studentRun) {
	t0 := time.Now()
	var tok struct{ Token string }
	if err := h.drive(nil, s.password+"\n", &tok, "token", h.url, s.name); err != nil || tok.Token == "" {
		r.fail("PAM login for a token: %v", err)
		return
	}
	r.token, r.login = tok.Token, time.Since(t0).Seconds()
	var st struct{ Seconds float64 }
	if err := h.drive(nil, "", &st, "start", h.url, s.name, r.token); err != nil {
		r.fail("server start: %v", err)
		return
	}
	r.ready, r.start = true, st.Seconds
	if out, err := h.asErr(s, s.home, nil, h.agx(), "fetch", assignment); err != nil {
		r.fail("agx fetch: %v: %s", err, tail(out, 500))
		return
	}
	think := []string{"HUBDRIVE_THINK=" + w.think}
	var res runResult
	if err := h.drive(think, "", &res, "run", h.url, s.name, r.token, lesson); err != nil {
		r.fail("%s: %v", lesson, err)
		return
	}
	if len(res.Cells) > 0 {
		r.firstCell = res.Cells[0].Seconds
	}
	for _, c := range res.Cells {
		r.cells = append(r.cells, c.Seconds)
		if c.Status != "ok" {
			r.fail("%s cell %d: status %q: %s", lesson, c.Index, c.Status, tail(c.Text, 300))
		} else if w.withOutput[c.Index] && strings.TrimSpace(c.Text) == "" && len(c.MIME) == 0 {
			r.fail("%s cell %d: its output did not arrive", lesson, c.Index)
		}
	}
	// The first try, wrong: every cell must still answer.
	res = runResult{}
	if err := h.drive(think, "", &res, "run", h.url, s.name, r.token, assignment+"/gelu.ipynb", w.wrong); err != nil {
		r.fail("gelu.ipynb, first try: %v", err)
		return
	}
	for _, c := range res.Cells {
		r.cells = append(r.cells, c.Seconds)
	}
	// Corrected and run again: every cell ok.
	res = runResult{}
	if err := h.drive(think, "", &res, "run", h.url, s.name, r.token, assignment+"/gelu.ipynb", w.good); err != nil {
		r.fail("gelu.ipynb, corrected: %v", err)
		return
	}
	for _, c := range res.Cells {
		r.cells = append(r.cells, c.Seconds)
		if c.Status != "ok" {
			r.fail("gelu.ipynb corrected, cell %d (%s): status %q: %s", c.Index, c.GradeID, c.Status, tail(c.Text, 300))
		}
	}
	out, err := h.asErr(s, s.home, nil, h.agx(), "submit", assignment)
	if err != nil || !strings.Contains(out, "submitted") {
		r.fail("agx submit: %v: %s", err, tail(out, 500))
		return
	}
	r.submitted = true
}

// collectClass collects the assignment as the instructor and counts the
// students of class whose collected notebook holds their answer.
func (h *hub) collectClass(teacher *account, courseDir string, class []string, solution string) int {
	h.as(teacher, courseDir, nil, h.agx(), "collect", assignment)
	n := 0
	for _, name := range class {
		nb, err := notebook.Read(filepath.Join(courseDir, "submitted", name, assignment, "gelu.ipynb"))
		if err != nil {
			h.t.Logf("%s: %v", name, err)
			continue
		}
		if cellSources(nb)["gelu-code"] == solution {
			n++
		} else {
			h.t.Logf("%s: the collected gelu.ipynb does not hold the corrected answer", name)
		}
	}
	return n
}

// gradeClass autogrades the class's collected submissions as root (strict
// isolation, one job per core) and checks every grade.
func (h *hub) gradeClass(courseDir string, class []string) *gradingResult {
	t := h.t
	dir := filepath.Join(courseDir, fmt.Sprintf("submitted-%d", len(class)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range class {
		h.cmd(nil, "/", nil, "cp", "-a", filepath.Join(courseDir, "submitted", name), dir)
	}
	book := filepath.Join(courseDir, fmt.Sprintf("gradebook-%d", len(class)))
	jobs := runtime.NumCPU()
	start := time.Now()
	h.cmd(nil, courseDir, []string{"JUPYTER_PATH=" + filepath.Join(h.dir, "jupyter")}, h.agx(), "autograde",
		"-j", strconv.Itoa(jobs), "--source", "gelu.ipynb", "-o", book, "--assignment", assignment, dir)
	g := &gradingResult{Submissions: len(class), Jobs: jobs, Seconds: time.Since(start).Seconds()}
	entries, err := gradebook.ReadEntries(book)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Status != gradebook.Graded || e.Score != 7 {
			t.Errorf("grading the class of %d: %s is %s with %v points (want graded, 7): %s", len(class), e.Student, e.Status, e.Score, e.UngradableReason)
		}
	}
	if len(entries) != len(class) {
		t.Errorf("grading the class of %d: %d entries", len(class), len(entries))
	}
	t.Logf("autograde of %d submissions, -j %d, strict: %.1f s", len(class), jobs, g.Seconds)
	return g
}

// drive runs hubdrive.py with env added, stdin, and its JSON answer into v.
func (h *hub) drive(env []string, stdin string, v any, args ...string) error {
	cmd := exec.Command("/usr/bin/python3", append([]string{h.driver}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("hubdrive %s: %v: %s", args[0], err, stderrOf(err))
	}
	if v != nil {
		if err := json.Unmarshal(out, v); err != nil {
			return fmt.Errorf("hubdrive %s: %v: %s", args[0], err, tail(string(out), 500))
		}
	}
	return nil
}

// --- the report ------------------------------------------------------------------

type loadReport struct {
	CPU                        string
	Cores                      int
	MemGiB                     float64
	HubStart                   float64
	Think                      string
	Ramp                       float64
	ModCacheMiB, BuildCacheMiB float64 // the shared caches, once per machine
	Levels                     []levelResult
	Grading                    *gradingResult `json:",omitempty"`
}

type levelResult struct {
	N, Ready, Collected           int
	Wall                          float64 // seconds from the first arrival to the last submission
	Login, Start, FirstCell, Cell quantiles
	Cells                         int
	SlowCells                     float64   // the fraction of cells over 3 s
	ServerMiB, KernelMiB          quantiles // peak RSS of each student's server, and of their kernel with its builds
	AboveIdleMiB                  float64   // the machine's memory in use at its peak, above its use before the class
	CPUBusy                       float64   // the fraction of all cores busy during the class
	Errors                        []string
}

type gradingResult struct {
	Submissions, Jobs int
	Seconds           float64
}

type quantiles struct{ P50, P95, Max float64 }

func quantilesOf(xs []float64) quantiles {
	if len(xs) == 0 {
		return quantiles{}
	}
	s := slices.Sorted(slices.Values(xs))
	// The nearest rank: the smallest value with at least p of them at or below it.
	at := func(p float64) float64 { return s[max(0, int(math.Ceil(p*float64(len(s))))-1)] }
	return quantiles{P50: at(0.5), P95: at(0.95), Max: s[len(s)-1]}
}

func summarize(runs []*studentRun, wall, busy float64, usedAbove int64) levelResult {
	lv := levelResult{N: len(runs), Wall: wall, CPUBusy: busy, AboveIdleMiB: float64(usedAbove) / (1 << 20)}
	var login, start, first, cells, srv, ker []float64
	slow := 0
	for _, r := range runs {
		lv.Errors = append(lv.Errors, r.errs...)
		if !r.ready {
			continue
		}
		lv.Ready++
		login, start, first = append(login, r.login), append(start, r.start), append(first, r.firstCell)
		cells = append(cells, r.cells...)
		for _, c := range r.cells {
			if c > 3 {
				slow++
			}
		}
		srv, ker = append(srv, float64(r.serverRSS)/(1<<20)), append(ker, float64(r.kRSS)/(1<<20))
	}
	lv.Login, lv.Start, lv.FirstCell, lv.Cell = quantilesOf(login), quantilesOf(start), quantilesOf(first), quantilesOf(cells)
	lv.Cells = len(cells)
	if len(cells) > 0 {
		lv.SlowCells = float64(slow) / float64(len(cells))
	}
	lv.ServerMiB, lv.KernelMiB = quantilesOf(srv), quantilesOf(ker)
	return lv
}

func (lv levelResult) summary() string {
	return fmt.Sprintf("%d/%d servers, start p50 %.1f s max %.1f s; first cell p50 %.2f s max %.2f s; %d cells p50 %.2f s p95 %.2f s max %.2f s; CPU %.0f %% busy; %.0f MiB above idle; %d errors; %d collected; %.0f s",
		lv.Ready, lv.N, lv.Start.P50, lv.Start.Max, lv.FirstCell.P50, lv.FirstCell.Max, lv.Cells, lv.Cell.P50, lv.Cell.P95, lv.Cell.Max,
		100*lv.CPUBusy, lv.AboveIdleMiB, len(lv.Errors), lv.Collected, lv.Wall)
}

func (h *hub) writeReport(rep loadReport) {
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(h.artifact, "report.json"), b, 0o644); err != nil {
		h.t.Fatal(err)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# make hub-load\n\n%s, %d cores, %.0f GiB. Hub start %.1f s. Reading time before each cell %s s; arrivals %.1f s apart.\n",
		rep.CPU, rep.Cores, rep.MemGiB, rep.HubStart, rep.Think, rep.Ramp)
	fmt.Fprintf(&md, "Shared caches: module cache %.0f MiB, build template %.0f MiB.\n\n", rep.ModCacheMiB, rep.BuildCacheMiB)
	md.WriteString("| N | servers | server start p50 / max | first cell p50 / max | cell p50 / p95 / max | cells > 3 s | server RSS p50 | kernel RSS p50 / max | memory above idle per student | CPU busy | errors | collected |\n")
	md.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, lv := range rep.Levels {
		fmt.Fprintf(&md, "| %d | %d | %.1f / %.1f s | %.2f / %.2f s | %.2f / %.2f / %.2f s | %.1f %% | %.0f MiB | %.0f / %.0f MiB | %.0f MiB | %.0f %% | %d | %d |\n",
			lv.N, lv.Ready, lv.Start.P50, lv.Start.Max, lv.FirstCell.P50, lv.FirstCell.Max, lv.Cell.P50, lv.Cell.P95, lv.Cell.Max,
			100*lv.SlowCells, lv.ServerMiB.P50, lv.KernelMiB.P50, lv.KernelMiB.Max, lv.AboveIdleMiB/float64(lv.N), 100*lv.CPUBusy, len(lv.Errors), lv.Collected)
	}
	if g := rep.Grading; g != nil {
		fmt.Fprintf(&md, "\nGrading (strict, as root, -j %d): %d submissions in %.1f s: %.1f submissions per core-minute.\n",
			g.Jobs, g.Submissions, g.Seconds, float64(g.Submissions)/(g.Seconds/60)/float64(g.Jobs))
	}
	if err := os.WriteFile(filepath.Join(h.artifact, "report.md"), []byte(md.String()), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.t.Logf("report (%s):\n%s", filepath.Join(h.artifact, "report.md"), md.String())
}

// --- what the machine does --------------------------------------------------------

// sampler samples, once a second, the resident memory of each student's
// server and kernel (with its builds and cell programs), and the machine's
// memory in use.
type sampler struct {
	stopc chan struct{}
	done  chan memPeaks
}

type memPeaks struct {
	server, kernel map[string]int64 // peak RSS by student
	usedAbove      int64            // peak of the machine's memory in use above its use at the start
}

func startSampler(users map[string]*account, class []string) *sampler {
	byUID := map[uint32]string{}
	for _, name := range class {
		byUID[users[name].uid] = name
	}
	s := &sampler{stopc: make(chan struct{}), done: make(chan memPeaks, 1)}
	idle := memUsed()
	go func() {
		p := memPeaks{server: map[string]int64{}, kernel: map[string]int64{}}
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			server, kernel := map[string]int64{}, map[string]int64{}
			for _, pr := range processes() {
				name, ok := byUID[pr.uid]
				if !ok {
					continue
				}
				if strings.Contains(pr.cmdline, "jupyterhub-singleuser") {
					server[name] += pr.rss
				} else {
					kernel[name] += pr.rss
				}
			}
			for n, v := range server {
				p.server[n] = max(p.server[n], v)
			}
			for n, v := range kernel {
				p.kernel[n] = max(p.kernel[n], v)
			}
			p.usedAbove = max(p.usedAbove, memUsed()-idle)
			select {
			case <-s.stopc:
				s.done <- p
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *sampler) stop() memPeaks {
	close(s.stopc)
	return <-s.done
}

type process struct {
	uid     uint32
	rss     int64
	cmdline string
}

// processes lists every process with its real uid, resident memory and
// command line.
func processes() []process {
	ents, _ := os.ReadDir("/proc")
	var ps []process
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var p process
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			switch {
			case len(f) > 1 && f[0] == "Uid:":
				p.uid = atou(f[1])
			case len(f) > 1 && f[0] == "VmRSS:":
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				p.rss = kb << 10
			}
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		p.cmdline = string(cl)
		ps = append(ps, p)
	}
	return ps
}

// meminfo reads a field of /proc/meminfo, in bytes.
func meminfo(field string) int64 {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == field+":" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// duMiB is the disk use of dir, in MiB (du).
func duMiB(dir string) float64 {
	out, err := exec.Command("du", "-sk", dir).Output()
	if err != nil {
		return 0
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return 0
	}
	kb, _ := strconv.ParseFloat(f[0], 64)
	return kb / 1024
}

func memUsed() int64 { return meminfo("MemTotal") - meminfo("MemAvailable") }

func memTotalGiB() float64 { return float64(meminfo("MemTotal")) / (1 << 30) }

// cpuName is the CPU's model and widest vector extension, from /proc/cpuinfo.
func cpuName() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	model, width := "unknown CPU", "no AVX2"
	for _, l := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(l, ":")
		switch strings.TrimSpace(k) {
		case "model name":
			model = strings.TrimSpace(v)
		case "flags":
			if fl := strings.Fields(v); slices.Contains(fl, "avx512f") {
				width = "avx512f"
			} else if slices.Contains(fl, "avx2") {
				width = "avx2"
			}
		}
	}
	return model + " (" + width + ")"
}

// cpuStat is the machine's CPU time from /proc/stat, in clock ticks.
type cpuStat struct{ busy, total int64 }

func cpuTimes() cpuStat {
	b, _ := os.ReadFile("/proc/stat")
	line, _, _ := strings.Cut(string(b), "\n")
	var s cpuStat
	for i, f := range strings.Fields(line)[1:] {
		v, _ := strconv.ParseInt(f, 10, 64)
		s.total += v
		if i != 3 && i != 4 { // idle, iowait
			s.busy += v
		}
	}
	return s
}

func (s cpuStat) busySince(a cpuStat) float64 {
	if s.total == a.total {
		return 0
	}
	return float64(s.busy-a.busy) / float64(s.total-a.total)
}
