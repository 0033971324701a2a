package hubtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// The bars of issue #29, measured with the students' own caches cold (new
// users; only the shared template behind them).
const (
	firstCellLimit   = 5 * time.Second  // a new student's first cell, and first cell with output
	firstLessonLimit = 20 * time.Second // a new student's whole first lesson
)

// prefix starts the name of every user and group the test makes (removed at
// the end); AGX_HUB_TEST_PREFIX changes it, so that two runs on one machine
// (with two AGX_HUB_TEST_DIRs) do not remove each other's users.
var (
	prefix     = envOr("AGX_HUB_TEST_PREFIX", "agxhub-")
	teachGroup = prefix + "teach"
	instructor = prefix + "teacher"
)

const (
	course     = "agxhubtest"
	assignment = "gelu"
	lateOne    = "gelu-late" // released with a deadline already passed
	lesson     = "01-function-basics.ipynb"
)

var students = []string{prefix + "s1", prefix + "s2", prefix + "s3"}

// account is a local user the test made.
type account struct {
	name, password, home string
	uid, gid             uint32
	groups               []uint32
}

// hub is one run's setup.
type hub struct {
	t        *testing.T
	root     string // the agx checkout
	dir      string // install dir (install-hub.sh's AGX_HUB_DIR)
	exchange string
	url      string
	artifact string
	users    map[string]*account
	tokens   map[string]string // hub API tokens of the students, by PAM login
	driver   string            // hubdrive.py
}

func TestHub(t *testing.T) {
	needHub(t)
	start := time.Now()
	h, state := setUp(t, "hub-test")
	nodeDir := h.installBrowser(filepath.Join(filepath.Dir(h.dir), "node"))

	// 2. Users: an instructor (primary group agxhub-teach) and three students,
	// with private homes.
	h.addTeacher()
	for _, s := range students {
		h.addUser(s, "-U")
	}
	teacher := h.users[instructor]

	// 3. The hub.
	step := time.Now()
	h.startHub(state, students)
	t.Logf("hub start: %.1f s", time.Since(step).Seconds())

	// 4. The course: exchange, release.
	source := h.releaseCourse(teacher)
	passed := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	h.as(teacher, filepath.Dir(source), nil, h.agx(), "release", "--deadline", passed, lateOne, "gelu.ipynb")

	// 5. Students, one after another, each new (cold caches but for the
	// shared template): PAM login for a token, server start, fetch, edit and
	// run through the REST API and the websocket, submit. Student 1 fetches
	// and submits with the cell helpers of grade/exchange in a notebook run
	// by their own kernel; the others with the agx command.
	srcNB, err := notebook.Read(source)
	if err != nil {
		t.Fatal(err)
	}
	solution := cellSources(srcNB)
	wrong := strings.Replace(solution["gelu-code"], "return x.Div(math.Sqrt2).Erf().Add(1).Mul(0.5)", "return x.Mul(0).Add(0.5)", 1)
	if wrong == solution["gelu-code"] {
		t.Fatal("the GELU source changed: update the wrong answer of student 3")
	}
	edits := map[string]map[string]string{
		students[0]: {"gelu-code": solution["gelu-code"], "tanh-code": solution["tanh-code"]}, // everything
		students[1]: {"gelu-code": solution["gelu-code"]},                                     // no bonus
		students[2]: {"gelu-code": wrong, "tanh-code": solution["tanh-code"]},                 // wrong GELU, bonus
	}
	tokens := h.tokens
	for i, name := range students {
		s := h.users[name]
		tokens[name] = h.token(s)
		var r struct{ Seconds float64 }
		h.driveJSON(&r, "start", h.url, name, tokens[name])
		t.Logf("%s: server ready in %.1f s", name, r.Seconds)
		if i == 0 {
			// The first lesson, as a new student's first notebook.
			lessonSrc, err := os.ReadFile(filepath.Join(h.root, "notebooks", lesson))
			if err != nil {
				t.Fatal(err)
			}
			h.writeAs(s, filepath.Join(s.home, lesson), lessonSrc)
			res := h.runNotebook(s, lesson, nil)
			h.checkFirstCells(name, lesson, res)
			t.Logf("%s: first lesson %s: %.1f s", name, lesson, res.TotalSeconds)
			if d := secs(res.TotalSeconds); d > firstLessonLimit {
				t.Errorf("%s: the first lesson took %v, more than %v", name, d, firstLessonLimit)
			}
			// Then the exchange, from a notebook (after the lesson, which
			// measures a new student's cold start).
			h.cellSteps(s, "exchange-fetch.ipynb", []cellStep{
				{"Status", assignment, []string{"agx status: " + assignment + ": released", "not fetched yet", "not submitted"}},
				{"Fetch", assignment, []string{"agx fetch: fetched " + assignment + " into " + s.home + "/" + assignment + ": gelu.ipynb", "deadline "}},
				{"Fetch", assignment, []string{"agx fetch: nothing new to fetch", "kept your gelu.ipynb"}},
				{"Fetch", "ps9", []string{"agx fetch: nothing to fetch: \"ps9\" has not been released in course " + course, "released: " + assignment + ", " + lateOne}},
				{"Fetch", lateOne, []string{"agx fetch: fetched " + lateOne, "passed", "a submission now is late"}},
			})
		} else {
			out := h.as(s, s.home, nil, h.agx(), "fetch", assignment)
			t.Logf("%s: agx fetch: %s", name, strings.TrimSpace(out))
		}
		if i == 1 {
			// An early submission of the unedited notebook: the later one counts.
			t.Logf("%s: early submit: %s", name, strings.TrimSpace(h.as(s, s.home, nil, h.agx(), "submit", assignment)))
		}
		res := h.runNotebook(s, assignment+"/gelu.ipynb", edits[name])
		if i > 0 {
			h.checkFirstCells(name, "gelu.ipynb", res)
		}
		for _, c := range res.Cells {
			if c.Status != "ok" {
				t.Errorf("%s: cell %d (%s) of gelu.ipynb: status %q: %s", name, c.Index, c.GradeID, c.Status, c.Text)
			}
		}
		if i == 0 {
			h.cellSteps(s, "exchange-submit.ipynb", []cellStep{
				{"Submit", assignment, []string{"agx submit: submitted " + assignment + " at ", "as " + name + ": gelu.ipynb (submission 1; the latest counts)", "on time: the deadline is"}},
				{"Submit", assignment, []string{"agx submit: already submitted at ", "unchanged since, so nothing was submitted (1 submission so far"}},
				{"Submit", lateOne, []string{"agx submit: submitted " + lateOne + " at ", "LATE: the deadline was"}},
				{"Status", assignment, []string{"agx status: " + assignment + ": released", "fetched", "submitted 1 time, the latest at"}},
			})
			continue
		}
		out := h.as(s, s.home, nil, h.agx(), "submit", assignment)
		t.Logf("%s: agx submit: %s", name, strings.TrimSpace(out))
		if !strings.Contains(out, "submitted") {
			t.Errorf("%s: agx submit says %q, want \"submitted at ...\"", name, out)
		}
	}

	// 6. The instructor: collect, autograde, feedback, return.
	step = time.Now()
	courseDir := filepath.Dir(source)
	jenv := []string{"JUPYTER_PATH=" + filepath.Join(h.dir, "jupyter")}
	t.Logf("agx collect: %s", h.as(teacher, courseDir, nil, h.agx(), "collect", assignment))
	// The instructor is not root: no slot users, no namespaces. Grading
	// refuses unless the weaker isolation is asked for by name, and then
	// every entry says so (checkGradebook).
	out, err := h.asErr(teacher, courseDir, jenv, h.agx(), "autograde", "--source", "gelu.ipynb",
		"-o", "gradebook", "--assignment", assignment, "submitted")
	if err == nil || !strings.Contains(out, "grading refused") {
		t.Errorf("agx autograde as the instructor, without --isolation=best-effort: %v, %s; want it refused", err, tail(out, 2000))
	}
	if _, err := os.Stat(filepath.Join(courseDir, "gradebook", gradebook.ClassFile)); err == nil {
		t.Error("the refused agx autograde wrote a class table")
	}
	t.Logf("agx autograde: %s", h.as(teacher, courseDir, jenv, h.agx(), "autograde", "--isolation=best-effort", "--source", "gelu.ipynb",
		"-o", "gradebook", "--assignment", assignment, "submitted"))
	gradeTime := time.Since(step)
	t.Logf("collect + autograde of %d submissions: %.1f s", len(students), gradeTime.Seconds())
	h.checkGradebook(filepath.Join(courseDir, "gradebook")) // the automatic grades
	// Then a grade by hand, which the feedback and the course gradebook carry.
	comment := h.gradeByHand(teacher, courseDir)
	h.as(teacher, courseDir, nil, h.agx(), "feedback", "-o", "feedback", "--nbgrader", assignment, "gradebook")
	if b, err := os.ReadFile(filepath.Join(courseDir, "feedback", students[2], assignment, "gelu.html")); err != nil || !strings.Contains(string(b), comment) {
		t.Errorf("%s's feedback page lacks the comment given by hand (%v)", students[2], err)
	}
	t.Logf("agx return: %s", h.as(teacher, courseDir, nil, h.agx(), "return", assignment))
	h.checkCourseBook(teacher, courseDir)

	// 7. Each student reads their own feedback, and nobody else's.
	for i, name := range students {
		s := h.users[name]
		if i == 0 {
			h.cellSteps(s, "exchange-feedback.ipynb", []cellStep{
				{"FetchFeedback", assignment, []string{"agx feedback: feedback for " + assignment + " in " + s.home + "/" + assignment + "/feedback: gelu.html"}},
				{"FetchFeedback", lateOne, []string{"agx feedback: no feedback for " + lateOne + " yet"}},
				{"Status", assignment, []string{"submitted 1 time", "feedback returned: gelu.html"}},
			})
		} else {
			h.as(s, s.home, nil, h.agx(), "fetch-feedback", assignment)
		}
		want := filepath.Join(courseDir, "feedback", name, assignment, "gelu.html")
		got := filepath.Join(s.home, assignment, "feedback", "gelu.html")
		wb, err1 := os.ReadFile(want)
		gb, err2 := os.ReadFile(got)
		if err1 != nil || err2 != nil || !bytes.Equal(wb, gb) {
			t.Errorf("%s: fetched feedback %s differs from the instructor's %s (%v, %v)", name, got, want, err1, err2)
		}
	}
	h.checkIsolation(tokens)

	// 8. The browser: student 1 logs in with their password, opens the
	// released exercise, adds a graph cell and runs everything.
	h.browser(nodeDir, h.users[students[0]])

	for _, name := range students {
		h.driveJSON(nil, "stop", h.url, name, tokens[name])
	}
	t.Logf("hub-test: %.1f s in all", time.Since(start).Seconds())
}

// needHub skips a hub test unless AGX_TEST_HUB=1 asks for it, and ends it
// unless it runs as root.
func needHub(t *testing.T) {
	if os.Getenv("AGX_TEST_HUB") != "1" {
		t.Skip("the JupyterHub tests run in `make hub-test` and `make hub-load` (AGX_TEST_HUB=1): they install packages, create local users and start a hub")
	}
	if os.Geteuid() != 0 {
		if os.Getenv("AGX_HUB_TEST_SKIP") == "1" {
			t.Skip("not root: the hub tests need root (AGX_HUB_TEST_SKIP=1 asked to skip them)")
		}
		t.Fatal("the hub tests need root: they install Debian packages, create local users, and run JupyterHub with PAM logins and a spawner that starts each user's server as that user. Run them as root, or set AGX_HUB_TEST_SKIP=1 to skip them (counted as skipped)")
	}
}

// setUp installs the hub layout (install-hub.sh: the agx command, the
// kernel, the shared caches) and makes this run's directory: the exchange's
// place and the hub's state directory, which it returns. The test's users
// are removed at the end (and any a killed run left, before).
func setUp(t *testing.T, artifacts string) (*hub, string) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	base := envOr("AGX_HUB_TEST_DIR", "/var/lib/agx-hub-test")
	h := &hub{t: t, root: root, dir: filepath.Join(base, "hub"), users: map[string]*account{}, tokens: map[string]string{},
		driver:   filepath.Join(root, "internal", "hubtest", "hubdrive.py"),
		artifact: filepath.Join(envOr("AGX_HUB_TEST_ARTIFACTS", filepath.Join(root, "build")), artifacts)}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(h.artifact); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(h.artifact, 0o755); err != nil {
		t.Fatal(err)
	}

	// 1. Install: the hub layout with the shared caches.
	step := time.Now()
	h.cmd(nil, root, []string{"AGX_HUB_DIR=" + h.dir}, filepath.Join(root, "docker", "scripts", "install-hub.sh"))
	t.Logf("install: %.1f s", time.Since(step).Seconds())

	run, err := os.MkdirTemp(base, "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	if err := os.Chmod(run, 0o755); err != nil {
		t.Fatal(err)
	}
	h.exchange = filepath.Join(run, "exchange")
	state := filepath.Join(run, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	h.removeUsers()
	t.Cleanup(h.removeUsers)
	return h, state
}

// addTeacher makes the instructor (primary group agxhub-teach), whose Go
// build cache root seeds as the hub does before a spawn: the instructor
// grades outside the hub.
func (h *hub) addTeacher() {
	h.cmd(nil, "/", nil, "groupadd", teachGroup)
	h.addUser(instructor, "-g", teachGroup)
	teacher := h.users[instructor]
	h.cmd(nil, "/", nil, filepath.Join(h.dir, "agx", "docker", "scripts", "seed-gocache.sh"), "-u", instructor,
		filepath.Join(h.dir, "cache", "go-build"), filepath.Join(teacher.home, ".cache", "go-build"))
}

// releaseCourse makes the exchange (the administrator makes its root and
// gives it to the instructor, who makes the course in it) and releases the
// GELU exercise as assignment, due in an hour. It returns the instructor's
// source notebook.
func (h *hub) releaseCourse(teacher *account) string {
	t := h.t
	source := filepath.Join(teacher.home, "course", "gelu.ipynb")
	h.as(teacher, teacher.home, nil, "mkdir", "-p", filepath.Join(teacher.home, "course"))
	src, err := os.ReadFile(filepath.Join(h.root, "notebooks", "exercises", "gelu.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	h.writeAs(teacher, source, src)
	if err := os.Mkdir(h.exchange, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(h.exchange, int(teacher.uid), int(teacher.gid)); err != nil {
		t.Fatal(err)
	}
	t.Logf("agx exchange init: %s", h.as(teacher, teacher.home, nil, h.agx(), "exchange", "init", "--exchange", h.exchange, "--course", course, "--group", teachGroup))
	deadline := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	h.as(teacher, filepath.Dir(source), nil, h.agx(), "release", "--deadline", deadline, assignment, "gelu.ipynb")
	return source
}

// --- steps ---------------------------------------------------------------------

func (h *hub) installBrowser(dir string) string {
	t := h.t
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		h.cmd(nil, "/", []string{"DEBIAN_FRONTEND=noninteractive"}, "apt-get", "install", "-y", "-q", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=300", "chromium")
	}
	src := filepath.Join(h.root, "internal", "hubtest", "browser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Dependencies map[string]string }
	b, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil || json.Unmarshal(b, &pkg) != nil {
		t.Fatalf("reading %s/package.json: %v", src, err)
	}
	want := pkg.Dependencies["puppeteer-core"]
	var have struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(dir, "node_modules", "puppeteer-core", "package.json")); err == nil {
		json.Unmarshal(b, &have)
	}
	if have.Version != want {
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h.cmd(nil, dir, []string{"PUPPETEER_SKIP_DOWNLOAD=1"}, "npm", "ci", "--no-audit", "--no-fund")
	}
	return filepath.Join(dir, "node_modules")
}

func (h *hub) addUser(name string, args ...string) {
	pw := randomHex(h.t, 12)
	h.cmd(nil, "/", nil, "useradd", append([]string{"-m", "-K", "HOME_MODE=0700", "-s", "/bin/bash"}, append(args, name)...)...)
	h.cmdIn(strings.NewReader(name+":"+pw+"\n"), "chpasswd")
	u, err := user.Lookup(name)
	if err != nil {
		h.t.Fatal(err)
	}
	a := &account{name: name, password: pw, home: u.HomeDir}
	a.uid, a.gid = atou(u.Uid), atou(u.Gid)
	gids, _ := u.GroupIds()
	for _, g := range gids {
		a.groups = append(a.groups, atou(g))
	}
	h.users[name] = a
}

// removeUsers stops every process of the test's users (by process id) and
// removes the users, their homes and the instructors' group. The test's users
// are those whose names start with prefix, so it also removes what a killed
// run left behind (it runs before the users are made too).
func (h *hub) removeUsers() {
	for _, name := range usersWithPrefix(prefix) {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid := atou(u.Uid)
		for range 3 {
			pids := uidPids(uid)
			if len(pids) == 0 {
				break
			}
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if out, err := exec.Command("userdel", "-r", name).CombinedOutput(); err != nil && !strings.Contains(string(out), "mail spool") {
			h.t.Logf("userdel %s: %v: %s", name, err, out)
		}
	}
	if _, err := user.LookupGroup(teachGroup); err == nil {
		if out, err := exec.Command("groupdel", teachGroup).CombinedOutput(); err != nil {
			h.t.Logf("groupdel %s: %v: %s", teachGroup, err, out)
		}
	}
}

// usersWithPrefix lists the local users (of /etc/passwd) whose names start
// with p.
func usersWithPrefix(p string) []string {
	b, _ := os.ReadFile("/etc/passwd")
	var names []string
	for _, l := range strings.Split(string(b), "\n") {
		if name, _, ok := strings.Cut(l, ":"); ok && strings.HasPrefix(name, p) {
			names = append(names, name)
		}
	}
	return names
}

// startHub starts JupyterHub with its state in state; only users may log in.
func (h *hub) startHub(state string, users []string) {
	t := h.t
	port := freePorts(t)
	h.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	cfg := filepath.Join(state, "jupyterhub_config.py")
	conf := fmt.Sprintf(`load_subconfig(%q)
c.JupyterHub.cookie_secret_file = %q
c.JupyterHub.db_url = "sqlite:///" + %q
c.ConfigurableHTTPProxy.pid_file = %q
`, filepath.Join(h.root, "docker", "jupyterhub", "jupyterhub_config.py"),
		filepath.Join(state, "cookie_secret"), filepath.Join(state, "hub.sqlite"), filepath.Join(state, "proxy.pid"))
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(state, "hub.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("jupyterhub", "-f", cfg)
	cmd.Dir = state
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = append(os.Environ(), "AGX_HUB_DIR="+h.dir, "AGX_HUB_PORT="+strconv.Itoa(port),
		"AGX_HUB_USERS="+strings.Join(users, ","), "AGX_EXCHANGE="+h.exchange, "AGX_COURSE="+course)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting jupyterhub (apt-get install jupyterhub): %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() {
		// The hub stops the users' servers and its proxy on SIGTERM; what
		// is left is stopped by its pid (the proxy's from its pid file; the
		// users' processes in removeUsers).
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Logf("jupyterhub (pid %d) did not stop in 30 s: killed", cmd.Process.Pid)
			cmd.Process.Kill()
			<-done
		}
		if b, err := os.ReadFile(filepath.Join(state, "proxy.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 && syscall.Kill(pid, 0) == nil {
				if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); bytes.Contains(comm, []byte("configurable-http-proxy")) {
					syscall.Kill(pid, syscall.SIGTERM)
				}
			}
		}
		if b, err := os.ReadFile(logPath); err == nil {
			os.WriteFile(filepath.Join(h.artifact, "hub.log"), b, 0o644)
		}
	})
	for deadline := time.Now().Add(60 * time.Second); ; {
		select {
		case err := <-done:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("jupyterhub exited (%v):\n%s", err, tail(string(b), 3000))
		default:
		}
		resp, err := http.Get(h.url + "/hub/api")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("the hub did not answer on %s/hub/api within 60 s:\n%s", h.url, tail(string(b), 3000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (h *hub) token(s *account) string {
	var r struct{ Token string }
	cmd := exec.Command("/usr/bin/python3", h.driver, "token", h.url, s.name)
	cmd.Stdin = strings.NewReader(s.password + "\n")
	out, err := cmd.Output()
	if err != nil || json.Unmarshal(out, &r) != nil || r.Token == "" {
		h.t.Fatalf("%s: PAM login for a token: %v: %s", s.name, err, stderrOf(err))
	}
	return r.Token
}

// cellResult is what hubdrive.py reports of one code cell.
type cellResult struct {
	Index   int
	GradeID string `json:"grade_id"`
	Seconds float64
	Status  string
	Text    string
	MIME    []string
}

type runResult struct {
	SessionSeconds float64 `json:"session_seconds"`
	TotalSeconds   float64 `json:"total_seconds"`
	Cells          []cellResult
}

func (h *hub) runNotebook(s *account, path string, edits map[string]string) runResult {
	args := []string{"run", h.url, s.name, h.tokenOf(s), path}
	if edits != nil {
		f := filepath.Join(h.t.TempDir(), "edits.json")
		b, _ := json.Marshal(edits)
		if err := os.WriteFile(f, b, 0o600); err != nil {
			h.t.Fatal(err)
		}
		args = append(args, f)
	}
	var r runResult
	h.driveJSON(&r, args...)
	if len(r.Cells) == 0 {
		h.t.Fatalf("%s: %s ran no code cells", s.name, path)
	}
	return r
}

func (h *hub) tokenOf(s *account) string { return h.tokens[s.name] }

// cellStep is one call of a cell helper of grade/exchange (exchange.Fetch,
// Submit, FetchFeedback, Status) and what its output must contain.
type cellStep struct {
	helper, assignment string
	want               []string
}

// cellSteps writes a notebook of one code cell per step into the student's
// home, runs it in their kernel through the hub and checks what each cell
// displayed: the plain-text side of the helper's box, and its HTML. The texts
// go to exchange-cells.txt among the artifacts.
func (h *hub) cellSteps(s *account, name string, steps []cellStep) {
	type cell struct {
		CellType string         `json:"cell_type"`
		Metadata map[string]any `json:"metadata"`
		Source   string         `json:"source"`
		Outputs  []any          `json:"outputs"`
		Count    *int           `json:"execution_count"`
	}
	var cells []cell
	for _, st := range steps {
		src := fmt.Sprintf("import \"github.com/goagx/agx/grade/exchange\"\n\n%%%%\nexchange.%s(%q)\n", st.helper, st.assignment)
		cells = append(cells, cell{CellType: "code", Metadata: map[string]any{}, Source: src, Outputs: []any{}})
	}
	b, err := json.Marshal(map[string]any{
		"nbformat": 4, "nbformat_minor": 5, "cells": cells,
		"metadata": map[string]any{"kernelspec": map[string]string{"name": "agx-go", "display_name": "Go (agx)", "language": "go"}},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	h.writeAs(s, filepath.Join(s.home, name), b)
	res := h.runNotebook(s, name, nil)
	if len(res.Cells) != len(steps) {
		h.t.Fatalf("%s: %s ran %d cells, want %d", s.name, name, len(res.Cells), len(steps))
	}
	log, err := os.OpenFile(filepath.Join(h.artifact, "exchange-cells.txt"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		h.t.Fatal(err)
	}
	defer log.Close()
	for i, st := range steps {
		c := res.Cells[i]
		fmt.Fprintf(log, "%s %s, cell exchange.%s(%q), %.1f s:\n%s\n\n", s.name, name, st.helper, st.assignment, c.Seconds, strings.TrimSpace(c.Text))
		h.t.Logf("%s: cell exchange.%s(%q) (%.1f s): %s", s.name, st.helper, st.assignment, c.Seconds, strings.TrimSpace(c.Text))
		if c.Status != "ok" || !slices.Contains(c.MIME, "text/html") {
			h.t.Errorf("%s: cell exchange.%s(%q): status %q, output types %v; want ok with text/html", s.name, st.helper, st.assignment, c.Status, c.MIME)
		}
		for _, w := range st.want {
			if !strings.Contains(c.Text, w) {
				h.t.Errorf("%s: cell exchange.%s(%q) shows %q; want it to contain %q", s.name, st.helper, st.assignment, c.Text, w)
			}
		}
	}
}

// checkFirstCells checks a new student's first notebook: its first cell and its
// first cell with output (the first that compiled and ran agx code).
func (h *hub) checkFirstCells(name, nb string, r runResult) {
	first := r.Cells[0]
	var firstOut *cellResult
	for i := range r.Cells {
		if strings.TrimSpace(r.Cells[i].Text) != "" {
			firstOut = &r.Cells[i]
			break
		}
	}
	h.t.Logf("%s: %s: first cell %.2f s, first cell with output (cell %d) %.2f s, kernel session %.2f s",
		name, nb, first.Seconds, idx(firstOut), sec(firstOut), r.SessionSeconds)
	var slow []string
	for _, c := range r.Cells {
		if c.Seconds > 2 {
			slow = append(slow, fmt.Sprintf("cell %d %.1f s", c.Index, c.Seconds))
		}
	}
	if len(slow) > 0 {
		h.t.Logf("%s: %s: cells over 2 s: %s", name, nb, strings.Join(slow, ", "))
	}
	if d := secs(first.Seconds); d > firstCellLimit {
		h.t.Errorf("%s: the first cell of %s took %v, more than %v", name, nb, d, firstCellLimit)
	}
	if firstOut == nil {
		h.t.Errorf("%s: no cell of %s printed anything", name, nb)
	} else if d := secs(firstOut.Seconds); d > firstCellLimit {
		h.t.Errorf("%s: the first cell with output of %s (cell %d) took %v, more than %v", name, nb, firstOut.Index, d, firstCellLimit)
	}
}

// checkGradebook compares the scores with what each student's answers earn:
// gelu-forward 3 points, gelu-backward 4, the bonus tanh-bonus 2 (not in the
// maximum). Student 1 answered all, 2 all but the bonus (after an early
// unedited submission, which must not count), 3 only the bonus.
func (h *hub) checkGradebook(dir string) {
	want := map[string]float64{students[0]: 9, students[1]: 7, students[2]: 2}
	entries, err := gradebook.ReadEntries(dir)
	if err != nil {
		h.t.Fatal(err)
	}
	got := map[string]float64{}
	for _, e := range entries {
		if e.Status != gradebook.Graded {
			h.t.Errorf("gradebook: %s is %s: %s", e.Student, e.Status, e.UngradableReason)
		}
		if e.MaxScore != 7 {
			h.t.Errorf("gradebook: %s has maximum %v, want 7", e.Student, e.MaxScore)
		}
		if !strings.Contains(e.Run.Weakened(), "not as a slot user") {
			h.t.Errorf("gradebook: %s does not say it was graded with weakened isolation: %q", e.Student, e.Run.Weakened())
		}
		got[e.Student] = e.Score
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		h.t.Errorf("gradebook scores %v, want %v", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, gradebook.ClassFile)); err == nil {
		os.WriteFile(filepath.Join(h.artifact, "grades.csv"), b, 0o644)
	}
}

// checkIsolation: a student can read neither another student's feedback,
// submissions or home, nor reach another's server through the hub.
// gradeByHand is the instructor on the page of agx gradebook manual: it
// serves the gradebook, and a grade with a comment is posted for student 3's
// failed gelu-forward, as an instructor corrects an automatic grade. It
// returns the comment, which the feedback must then carry.
func (h *hub) gradeByHand(teacher *account, courseDir string) string {
	t := h.t
	cmd := exec.Command(h.agx(), "gradebook", "manual", "gradebook")
	cmd.Dir = courseDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: teacher.uid, Gid: teacher.gid, Groups: teacher.groups}}
	cmd.Env = []string{"HOME=" + teacher.home, "PATH=/usr/bin:/bin"}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(out)
	page := ""
	for page == "" && sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 1 && strings.HasPrefix(f[0], "http://127.0.0.1:") {
			page = f[0]
		}
	}
	if page == "" {
		t.Fatalf("agx gradebook manual printed no address")
	}
	u, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	comment := "by hand: the shape and the zero are right, 1 point of 3"
	noRedirect := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm("http://"+u.Host+"/save", url.Values{"token": {u.Query().Get("token")}, "student": {students[2]},
		"grade_id": {"gelu-forward"}, "points": {"1"}, "comment": {comment}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving a grade on the manual grading page: %s", resp.Status)
	}
	e, err := gradebook.ReadEntry(gradebook.EntryPath(filepath.Join(courseDir, "gradebook"), students[2]))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range e.Cells {
		if c.GradeID == "gelu-forward" && (c.Points != 1 || c.Override == nil || c.Override.Comment != comment) {
			t.Errorf("%s's gelu-forward after grading by hand: %g points, override %+v", students[2], c.Points, c.Override)
		}
	}
	t.Logf("graded by hand: %s's gelu-forward, 1 point, entry total now %g", students[2], e.Score)
	return comment
}

// checkCourseBook makes the course gradebook as the instructor would at
// the end of the term (the one assignment, its collect record, a late
// policy) and checks that each student's total is their gradebook score.
func (h *hub) checkCourseBook(teacher *account, courseDir string) {
	t := h.t
	out := h.as(teacher, courseDir, nil, h.agx(), "gradebook", "course", "-o", "course.csv", "--late-penalty", "10",
		"--collect", filepath.Join("submitted", "collect-"+assignment+".csv"), assignment+"=gradebook")
	t.Logf("agx gradebook course: %s", strings.TrimSpace(out))
	b, err := os.ReadFile(filepath.Join(courseDir, "course.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range students {
		e, err := gradebook.ReadEntry(gradebook.EntryPath(filepath.Join(courseDir, "gradebook"), name))
		if err != nil {
			t.Fatal(err)
		}
		score := strconv.FormatFloat(e.Score, 'f', -1, 64)
		found := false
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Split(line, ",")
			// student, the notebook, the penalty, the assignment, total, ...
			found = found || (len(f) > 5 && f[0] == name && f[1] == score && f[3] == score && f[4] == score)
		}
		if !found {
			t.Errorf("course.csv has no row of %s with the gradebook's %s points (on time, no penalty):\n%s", name, score, b)
		}
	}
}

func (h *hub) checkIsolation(tokens map[string]string) {
	t := h.t
	s1 := h.users[students[0]]
	var others []string
	for _, area := range []string{"feedback", "inbound"} {
		filepath.WalkDir(filepath.Join(h.exchange, course, area), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.Contains(p, students[0]) {
				if info, err := d.Info(); err == nil && info.Sys().(*syscall.Stat_t).Uid != s1.uid {
					others = append(others, p)
				}
			}
			return nil
		})
	}
	others = append(others, filepath.Join(h.users[students[1]].home, assignment, "gelu.ipynb"))
	if len(others) < 2*(len(students)-1) {
		t.Errorf("found only %d files of other students in the exchange and homes: %v", len(others), others)
	}
	for _, p := range others {
		if out, err := h.asErr(s1, s1.home, nil, "cat", p); err == nil {
			t.Errorf("%s can read %s (%d bytes)", s1.name, p, len(out))
		}
	}
	if _, err := h.asErr(s1, s1.home, nil, "ls", filepath.Join(h.exchange, course, "inbound")); err == nil {
		t.Errorf("%s can list the inbound submissions", s1.name)
	}
	var r struct{ Status int }
	h.driveJSON(&r, "status", h.url, tokens[students[0]], "/user/"+students[1]+"/api/contents/"+assignment)
	if r.Status == 200 {
		t.Errorf("%s's token reads %s's files through the hub", students[0], students[1])
	}
}

func (h *hub) browser(nodeModules string, s *account) {
	t := h.t
	cell := "import \"github.com/goagx/agx/agx/nb\"\n\n%%\nx := agx.Linspace(agx.Float64, -2, 2, 5).SetRequiresGrad(true)\nnb.Graph(gelu(x).Sum())\n"
	cmd := exec.Command("node", filepath.Join(h.root, "internal", "hubtest", "browser", "student.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules, "HUB_URL="+h.url, "HUB_USER="+s.name,
		"HUB_PASSWORD="+s.password, "NB_PATH="+assignment+"/gelu.ipynb", "EXTRA_CELL="+cell, "OUT_DIR="+h.artifact)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("browser: %v: %s", err, stderrOf(err))
	}
	var r struct {
		RunSeconds float64 `json:"run_seconds"`
		Cells      []struct {
			Prompt, Text string
			SVG          bool
		}
		Screenshots []string
		Tabs        struct{ Count, Arrows int }
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("browser: %v: %s", err, out)
	}
	// The lab's custom.css, served by agx's singleuser app (jupyterhub_config.py).
	if r.Tabs.Count == 0 || r.Tabs.Arrows != 0 {
		t.Errorf("browser: %d of %d tabs in Go code drawn with the editor theme's arrow (want 0 of more than 0)", r.Tabs.Arrows, r.Tabs.Count)
	}
	t.Logf("browser: %s ran gelu.ipynb in %.1f s; screenshots %v", s.name, r.RunSeconds, r.Screenshots)
	var texts []string
	svg := false
	for _, c := range r.Cells {
		texts = append(texts, c.Text)
		if strings.Contains(c.Prompt, "*") || strings.TrimSpace(strings.Trim(c.Prompt, "In[]: \u00a0")) == "" {
			t.Errorf("browser: a code cell shows the prompt %q after the run", c.Prompt)
		}
		svg = svg || c.SVG
	}
	all := strings.Join(texts, "\n")
	// Content, not order: the visible checks of the student version pass.
	for _, want := range []string{"gelu-forward: 2 / 2 points", "gelu-backward: 2 / 2 points", "tanh-bonus: 1 / 1 points"} {
		if !strings.Contains(all, want) {
			t.Errorf("browser: the page does not show %q; it shows:\n%s", want, tail(all, 2000))
		}
	}
	if !svg || len(r.Cells) == 0 || !r.Cells[len(r.Cells)-1].SVG {
		t.Errorf("browser: the graph cell shows no SVG")
	}
	for _, p := range r.Screenshots {
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 10000 || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("browser: screenshot %s is not a PNG of some size (%d bytes, %v)", p, len(b), err)
		}
	}
	if len(r.Screenshots) < 2 {
		t.Errorf("browser: %d screenshots, want the notebook and the graph cell", len(r.Screenshots))
	}
}

// --- helpers -------------------------------------------------------------------

func (h *hub) agx() string { return filepath.Join(h.dir, "bin", "agx") }

func (h *hub) driveJSON(v any, args ...string) {
	out, err := exec.Command("/usr/bin/python3", append([]string{h.driver}, args...)...).Output()
	if err != nil {
		h.t.Fatalf("hubdrive %s %s: %v: %s", args[0], strings.Join(redact(args[1:]), " "), err, stderrOf(err))
	}
	if v != nil {
		if err := json.Unmarshal(out, v); err != nil {
			h.t.Fatalf("hubdrive %s: %v: %s", args[0], err, out)
		}
	}
}

// cmd runs a command as root; failure ends the test.
func (h *hub) cmd(a *account, dir string, env []string, name string, args ...string) string {
	out, err := h.run(a, dir, env, nil, name, args...)
	if err != nil {
		h.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(out, 4000))
	}
	return out
}

func (h *hub) cmdIn(stdin *strings.Reader, name string, args ...string) {
	if out, err := h.run(nil, "/", nil, stdin, name, args...); err != nil {
		h.t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

// as runs a command as the user a, in dir; failure ends the test.
func (h *hub) as(a *account, dir string, env []string, name string, args ...string) string {
	h.t.Helper()
	out, err := h.asErr(a, dir, env, name, args...)
	if err != nil {
		h.t.Fatalf("%s: %s %s: %v\n%s", a.name, filepath.Base(name), strings.Join(args, " "), err, tail(out, 4000))
	}
	return out
}

func (h *hub) asErr(a *account, dir string, env []string, name string, args ...string) (string, error) {
	return h.run(a, dir, env, nil, name, args...)
}

func (h *hub) run(a *account, dir string, env []string, stdin *strings.Reader, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if a != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: a.groups}}
		cmd.Env = []string{"HOME=" + a.home, "USER=" + a.name, "LOGNAME=" + a.name, "LANG=C.UTF-8",
			"PATH=" + filepath.Join(h.dir, "bin") + ":/usr/local/go/bin:/usr/bin:/bin",
			"AGX_EXCHANGE=" + h.exchange, "AGX_COURSE=" + course}
	} else {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// writeAs writes a file owned by a, mode 0644.
func (h *hub) writeAs(a *account, path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Chown(path, int(a.uid), int(a.gid)); err != nil {
		h.t.Fatal(err)
	}
}

func cellSources(nb *notebook.Notebook) map[string]string {
	m := map[string]string{}
	for _, c := range nb.Cells {
		if meta, err := nbgrader.Get(c); err == nil && meta != nil && meta.GradeID != "" {
			m[meta.GradeID] = c.Source
		}
	}
	return m
}

// freePorts returns a port p of 127.0.0.1 with p+1 and p+2 free too (the hub
// and the proxy's API).
func freePorts(t *testing.T) int {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		ok := p+2 < 65536
		for q := p + 1; ok && q <= p+2; q++ {
			if l2, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(q)); err != nil {
				ok = false
			} else {
				l2.Close()
			}
		}
		if ok {
			return p
		}
	}
	t.Fatal("no three free consecutive ports on 127.0.0.1")
	return 0
}

// uidPids lists the processes whose real uid is uid.
func uidPids(uid uint32) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" && f[1] == strconv.Itoa(int(uid)) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	f, err := os.Open("/dev/urandom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Read(b); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", b)
}

func atou(s string) uint32 { n, _ := strconv.ParseUint(s, 10, 32); return uint32(n) }

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func idx(c *cellResult) int {
	if c == nil {
		return -1
	}
	return c.Index
}

func sec(c *cellResult) float64 {
	if c == nil {
		return 0
	}
	return c.Seconds
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return tail(string(ee.Stderr), 4000)
	}
	return ""
}

// redact hides tokens (long hex words) in logged arguments.
func redact(args []string) []string {
	return slices.Collect(func(yield func(string) bool) {
		for _, a := range args {
			if len(a) >= 32 && strings.Trim(a, "0123456789abcdef") == "" {
				a = "[token]"
			}
			if !yield(a) {
				return
			}
		}
	})
}
