package autograde

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/sandbox"
)

// Grading with Docker (Options.Docker): every submission is graded in a
// fresh container of the grader image, made for it and removed after it.
// The host sends the container the source and the one submission on its
// standard input and reads the gradebook entry and the executed notebook
// from its standard output; nothing of the host is mounted in it. In the
// container, agx autograde runs as root in IsolationContainer mode and the
// kernel as the image's unprivileged user; the container has no network, a
// read-only root, its own tmpfs for /tmp, /var/tmp and /dev/shm, a process
// and a memory limit, only the capabilities that changing user needs, and
// the instructor's files of the image covered (an empty tmpfs over each
// directory of docker/instructor-only, IgnoredGoStub over each file). The
// image user's home is a fresh copy of the image's (a Docker volume of the
// container's own, removed with it), so the kernel's caches are warm. The
// grader in the container checks every one of these measures before it
// grades and refuses when one is missing: none needs CAP_SYS_ADMIN.

// Defaults of a grading container's limits.
const (
	DefaultContainerMemory = 4 << 30 // bytes: a cold Go build peaks near 0.6 GiB, the kernel's address-space limit is 4 GiB
	containerPidsExtra     = 256     // processes of the grader, the driver and Jupyter, above the kernel's --procs
	containerHome          = "/home/jovyan"
	maxReply               = 256 << 20 // bytes of a container's reply read at most
)

// containerRequest is what the host sends a grading container.
type containerRequest struct {
	Probe          bool          `json:"probe,omitempty"` // list the instructor paths of the image; grade nothing
	Check          bool          `json:"check,omitempty"` // check the isolation; grade nothing
	SourceName     string        `json:"source_name,omitempty"`
	Source         []byte        `json:"source,omitempty"`
	Student        string        `json:"student,omitempty"`
	Submission     []byte        `json:"submission,omitempty"`
	Kernel         string        `json:"kernel"`
	CellTimeout    time.Duration `json:"cell_timeout"`
	Timeout        time.Duration `json:"timeout"`
	MaxOutputBytes int           `json:"max_output_bytes"`
	Limits         Limits        `json:"limits"`
}

// containerReply is what a grading container answers.
type containerReply struct {
	Hidden   []string         `json:"hidden,omitempty"`   // Probe: instructor paths in the image, "/" ending a directory
	Measures []string         `json:"measures,omitempty"` // Check: the isolation in force
	Refused  string           `json:"refused,omitempty"`  // the isolation is missing: nobody may be graded
	Entry    *gradebook.Entry `json:"entry,omitempty"`
	Executed []byte           `json:"executed,omitempty"` // the executed notebook
}

// ServeContainer is agx autograde's side in a grading container (`agx
// autograde-container`, which the host runs): it reads one request from in,
// does it, and writes the reply to out. Progress goes to log.
func ServeContainer(ctx context.Context, in io.Reader, out, log io.Writer) error {
	var req containerRequest
	if err := json.NewDecoder(io.LimitReader(in, maxReply)).Decode(&req); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	reply, err := serveContainer(ctx, req, log)
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(reply)
}

func serveContainer(ctx context.Context, req containerRequest, log io.Writer) (*containerReply, error) {
	python := os.Getenv("AGX_PYTHON")
	if python == "" {
		python = jupyter.DefaultPython
	}
	if req.Probe {
		spec, err := sandbox.ReadKernelSpec(ctx, python, req.Kernel)
		if err != nil {
			return nil, err
		}
		root := spec.Env["AGX_ROOT"]
		if root == "" {
			return nil, fmt.Errorf("the kernelspec %s of the image names no AGX_ROOT", req.Kernel)
		}
		paths, err := sandbox.InstructorOnly(root)
		if err != nil {
			return nil, err
		}
		var hidden []string
		for _, p := range paths {
			full := filepath.Join(root, p)
			if st, err := os.Lstat(full); err == nil {
				if st.IsDir() {
					full += "/"
				}
				hidden = append(hidden, full)
			}
		}
		return &containerReply{Hidden: hidden}, nil
	}
	if req.Check {
		sb, err := sandbox.New(ctx, python, req.Kernel, req.Limits, 1, sandbox.IsolationContainer)
		var isoErr *IsolationError
		if errors.As(err, &isoErr) {
			return &containerReply{Refused: err.Error()}, nil
		}
		if err != nil {
			return nil, err
		}
		defer sb.Cleanup()
		return &containerReply{Measures: sb.Isolation()}, nil
	}
	if req.Student == "" || req.SourceName == "" || filepath.Base(req.SourceName) != req.SourceName || filepath.Base(req.Student) != req.Student {
		return nil, errors.New("the request names no student or source")
	}
	dir, err := os.MkdirTemp("", "agx-autograde-container-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, sub, book := filepath.Join(dir, req.SourceName), filepath.Join(dir, "submission", req.Student+".ipynb"), filepath.Join(dir, "gradebook")
	if err := os.Mkdir(filepath.Dir(sub), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(src, req.Source, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(sub, req.Submission, 0o600); err != nil {
		return nil, err
	}
	opt := Options{Source: src, Dir: book, Kernel: req.Kernel, Python: python, CellTimeout: req.CellTimeout, Timeout: req.Timeout,
		MaxOutputBytes: req.MaxOutputBytes, Limits: req.Limits, Isolation: sandbox.IsolationContainer, Jobs: 1, Force: true, Log: log}
	if _, err := Grade(ctx, opt, []Submission{{Student: req.Student, Path: sub}}); err != nil {
		var isoErr *IsolationError
		if errors.As(err, &isoErr) {
			return &containerReply{Refused: err.Error()}, nil
		}
		return nil, err
	}
	e, err := gradebook.ReadEntry(gradebook.EntryPath(book, req.Student))
	if err != nil {
		return nil, err
	}
	reply := &containerReply{Entry: e}
	if b, err := os.ReadFile(filepath.Join(book, gradebook.ExecutedDir, req.Student+".ipynb")); err == nil {
		reply.Executed = b
	}
	return reply, nil
}

// dockerGrader runs the grading containers of one run.
type dockerGrader struct {
	docker string   // the docker command
	image  string   // the grader image, as given
	id     string   // its image ID
	args   []string // docker run's flags, the same for every container
	stub   string   // the host file mounted over each instructor Go file
	dir    string   // the run's temporary directory (stub)
}

// newDockerGrader checks the image and the engine: it lists the
// instructor's paths of the image, then runs one container with every
// setting to check the isolation (IsolationError when it refuses). It
// returns the measures in force.
func newDockerGrader(ctx context.Context, opt Options) (*dockerGrader, []string, error) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		return nil, nil, errors.New("--docker: no docker command on PATH")
	}
	out, err := exec.CommandContext(ctx, docker, "image", "inspect", "--format", "{{.Id}}", opt.Docker).CombinedOutput()
	if err != nil {
		return nil, nil, fmt.Errorf("--docker %s: %s (build it with `make image-grader`, docs/docker.md)", opt.Docker, strings.TrimSpace(string(out)))
	}
	dir, err := os.MkdirTemp("", "agx-autograde-docker-")
	if err != nil {
		return nil, nil, err
	}
	d := &dockerGrader{docker: docker, image: opt.Docker, id: strings.TrimSpace(string(out)), dir: dir, stub: filepath.Join(dir, "ignored.go")}
	if err := os.WriteFile(d.stub, []byte(sandbox.IgnoredGoStub), 0o644); err != nil {
		d.cleanup()
		return nil, nil, err
	}
	base := containerRequest{Kernel: opt.Kernel, Limits: opt.Limits}
	probe := base
	probe.Probe = true
	d.args = d.runArgs(opt, nil)
	r, err := d.run(ctx, "probe", probe, nil)
	if err != nil {
		d.cleanup()
		return nil, nil, fmt.Errorf("--docker %s: the image cannot grade: %w", opt.Docker, err)
	}
	d.args = d.runArgs(opt, r.Hidden)
	check := base
	check.Check = true
	if r, err = d.run(ctx, "check", check, nil); err == nil && r.Refused != "" {
		err = &IsolationError{Missing: []string{"in the grading container: " + r.Refused}, Fixes: []string{""}}
	}
	if err != nil {
		d.cleanup()
		return nil, nil, err
	}
	measures := append([]string{"graded with --docker: one container of the image " + d.image + " (" + shortID(d.id) + ") per submission"}, r.Measures...)
	return d, measures, nil
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		id = id[:12]
	}
	return id
}

func (d *dockerGrader) cleanup() { os.RemoveAll(d.dir) }

// runArgs are docker run's flags for a grading container; hidden lists the
// instructor paths of the image to cover.
func (d *dockerGrader) runArgs(opt Options, hidden []string) []string {
	mem := opt.ContainerMemory
	if mem <= 0 {
		mem = DefaultContainerMemory
	}
	pids := 4096
	if opt.Limits.Procs > 0 {
		pids = opt.Limits.Procs + containerPidsExtra
	}
	args := []string{"run", "--rm", "-i", "--pull", "never", "--user", "0",
		"--read-only",
		"--tmpfs", "/tmp:rw,exec,nosuid,nodev,size=4g,mode=1777",
		"--tmpfs", "/var/tmp:rw,nosuid,nodev,size=256m,mode=1777",
		"--tmpfs", "/run:rw,nosuid,nodev,size=16m",
		"--shm-size", "64m",
		"--pids-limit", strconv.Itoa(pids),
		"--memory", strconv.FormatInt(mem, 10), "--memory-swap", strconv.FormatInt(mem, 10),
		"--cap-drop", "ALL",
		// Changing to the kernel's user, giving it the connection file and
		// the secret, killing what it leaves: nothing more.
		"--cap-add", "SETUID", "--cap-add", "SETGID", "--cap-add", "CHOWN", "--cap-add", "DAC_OVERRIDE",
		"--cap-add", "FOWNER", "--cap-add", "KILL",
		"--security-opt", "no-new-privileges",
		// The image user's home, writable: a copy of the image's, the container's own.
		"--mount", "type=volume,dst=" + containerHome,
		"--env", "GOPROXY=off", "--env", "GOSUMDB=off",
	}
	if opt.Limits.Network != NetHost {
		args = append(args, "--network", "none")
	}
	for _, p := range hidden {
		switch {
		case strings.HasSuffix(p, "/"):
			args = append(args, "--mount", "type=tmpfs,dst="+strings.TrimSuffix(p, "/")+",tmpfs-size=1m,tmpfs-mode=0755")
		case strings.HasSuffix(p, ".go"):
			args = append(args, "--mount", "type=bind,src="+d.stub+",dst="+p+",readonly")
		default:
			args = append(args, "--mount", "type=bind,src=/dev/null,dst="+p+",readonly")
		}
	}
	return args
}

// run starts one grading container, sends it req and reads its reply;
// each line it logs goes to logf (nil: kept for the error only).
func (d *dockerGrader) run(ctx context.Context, what string, req containerRequest, logf func(string, ...any)) (*containerReply, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var suffix [6]byte
	rand.Read(suffix[:])
	name := "agx-grade-" + hex.EncodeToString(suffix[:])
	args := append(append([]string{}, d.args...), "--name", name, d.image, "agx", "autograde-container")
	cmd := exec.Command(d.docker, args...)
	cmd.Stdin = bytes.NewReader(body)
	var stdout bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &stdout, n: maxReply}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// docker run ends when the container does; on cancellation the
	// container is removed (killing docker run would leave it running).
	stop := context.AfterFunc(ctx, func() {
		exec.Command(d.docker, "rm", "--force", "--volumes", name).Run()
	})
	defer stop()
	var tail []string
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if logf != nil {
			logf("  %s: %s", what, line)
		}
		tail = append(tail, line)
		if len(tail) > 12 {
			tail = tail[1:]
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("the grading container failed (%v): %s", err, strings.Join(tail, "\n"))
	}
	var r containerReply
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("the grading container's reply is unreadable (%v): %s", err, strings.Join(tail, "\n"))
	}
	return &r, nil
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	k := min(len(p), l.n)
	if k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// oneInContainer grades submission s in a container of its own (see one
// for the results).
func (g *grader) oneInContainer(ctx context.Context, s Submission) (e *gradebook.Entry, skipped bool) {
	e, b, done, skipped := g.open(ctx, s)
	if done {
		return e, skipped
	}
	req := containerRequest{SourceName: g.srcName, Source: g.srcBytes, Student: s.Student, Submission: b, Kernel: g.opt.Kernel,
		CellTimeout: g.opt.CellTimeout, Timeout: g.opt.Timeout, MaxOutputBytes: g.opt.MaxOutputBytes, Limits: g.opt.Limits}
	r, err := g.docker.run(ctx, s.Student, req, nil)
	if ctx.Err() != nil {
		return nil, false
	}
	switch {
	case err != nil:
		return g.ungradable(e, err.Error()), false
	case r.Refused != "":
		return g.ungradable(e, "the grading container refused: "+r.Refused), false
	case r.Entry == nil:
		return g.ungradable(e, "the grading container sent no gradebook entry"), false
	case r.Entry.Student != s.Student || r.Entry.SubmissionSHA256 != e.SubmissionSHA256 || r.Entry.SourceSHA256 != g.srcHash:
		return g.ungradable(e, "the grading container's entry is for another submission or source"), false
	}
	got := r.Entry
	got.Submission = s.Path
	got.Run.Isolation = append(append([]string{}, g.isolation[:1]...), got.Run.Isolation...)
	if len(r.Executed) > 0 {
		if _, err := notebook.Parse(r.Executed); err != nil {
			g.logf("warning: %s: the executed notebook from the container is unreadable: %v", s.Student, err)
		} else if err := os.WriteFile(filepath.Join(g.opt.Dir, gradebook.ExecutedDir, s.Student+".ipynb"), r.Executed, 0o644); err != nil {
			g.logf("warning: %s: cannot keep the executed notebook: %v", s.Student, err)
		}
	}
	return got, false
}
