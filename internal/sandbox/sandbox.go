// Package sandbox is the operating system's part of grading: how the
// kernel of each submission runs isolated from the grader, the instructor's
// files and the other submissions. As root, each kernel runs as a slot user
// of its own (privdrop.go), in a mount namespace that hides what it must not
// read and shows the agx checkout as a module view (moduleview.go), with
// private temporary directories (privtmp.go), without network and under
// resource limits. New sets this up for a run and refuses, in strict mode,
// when any of it cannot be; scoring is package score's, feedback package gradebook's.
package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Network settings (Limits.Network).
const (
	NetAuto = "auto" // no network when unshare(1) can make a network namespace; a warning otherwise
	NetNone = "none" // no network, or refuse to grade
	NetHost = "host" // the host's network
)

// Isolation modes (Options.Isolation).
const (
	// IsolationStrict grades only with every measure in force: as root, each
	// kernel runs as a slot user of its own, in a mount namespace with
	// private temporary directories and (unless --net host) without network,
	// under the resource limits. When one cannot be set up, nobody is graded.
	IsolationStrict = "strict"
	// IsolationBestEffort grades with what this machine allows; every entry,
	// grades.csv and each feedback page say what was missing.
	IsolationBestEffort = "best-effort"
)

// IsolationError is why grading was refused: the measures that cannot be
// set up here, each with its reason and fix.
type IsolationError struct {
	Missing []string // what is missing, and why
	Fixes   []string // how to put it in force, one per Missing
}

func (e *IsolationError) Error() string {
	var b strings.Builder
	b.WriteString("grading refused: the isolation it promises cannot be set up here, and nobody was graded:")
	for i, m := range e.Missing {
		fmt.Fprintf(&b, "\n  - %s", m)
		if e.Fixes[i] != "" {
			fmt.Fprintf(&b, "\n    fix: %s", e.Fixes[i])
		}
	}
	b.WriteString("\nTo grade with weaker isolation anyway, ask for it by name: --isolation=" + IsolationBestEffort +
		" (every gradebook entry, grades.csv and the feedback then say what was missing).")
	return b.String()
}

// Limits bound what a submission's kernel may use. They apply to the kernel
// process and everything it starts (go build, each cell's program), each
// process on its own (rlimits are per process, except the process count,
// which is per user).
type Limits struct {
	MemoryBytes int64  // RLIMIT_AS (address space) of each process; 0: none
	Procs       int    // RLIMIT_NPROC (processes and threads of the user); 0: none
	FileBytes   int64  // RLIMIT_FSIZE (largest file a process may write); 0: none
	Network     string // NetAuto, NetNone or NetHost
}

// Sandbox is how every submission of a run is executed: a kernelspec that
// wraps the chosen kernel in prlimit(1) (and, as root, runs it as a slot
// user), and a command prefix for the notebook driver (and so the kernel)
// that puts it in new network and mount namespaces.
type Sandbox struct {
	kernel    string   // the wrapping kernelspec's name
	env       []string // the driver's environment (JUPYTER_PATH finds the kernelspec)
	wrap      []string // command prefix of the driver
	measures  []string // what is in force, for the gradebook
	warnings  []string // what could not be put in force
	fixes     []string // how to put each warning's measure in force
	drop      *dropper // the slot users when the kernel runs unprivileged; nil otherwise
	container bool     // IsolationContainer: the container is the isolation
	cleanupTo string
}

// KernelSpec is the part of a Jupyter kernelspec that the wrapper copies.
type KernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	Metadata      json.RawMessage   `json:"metadata,omitempty"`
}

// fixNamespaces is how to allow the mount and network namespaces.
const fixNamespaces = "run agx autograde as root on the host (sudo), or in a container started with " +
	"--cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined"

// missing records a measure that cannot be put in force: what and why, and the fix.
func (sb *Sandbox) missing(what, fix string) {
	sb.warnings = append(sb.warnings, what)
	sb.fixes = append(sb.fixes, fix)
}

// New writes the wrapping kernelspec for kernel into a temporary
// directory and works out the isolation this machine allows. jobs is the
// number of kernels run at once. In IsolationStrict mode (mode "" too) it
// returns an *IsolationError when a measure cannot be set up.
func New(ctx context.Context, python, kernel string, lim Limits, jobs int, mode string) (*Sandbox, error) {
	spec, err := ReadKernelSpec(ctx, python, kernel)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "agx-autograde-")
	if err != nil {
		return nil, err
	}
	sb := &Sandbox{cleanupTo: dir, kernel: "agx-grade-" + filepath.Base(dir)[len("agx-autograde-"):]}
	ok := false
	defer func() {
		if !ok {
			sb.Cleanup()
		}
	}()

	orig := spec // prepareDrop replaces Argv and Env, never edits them
	plan, err := sb.kernelUser(ctx, dir, &spec, lim, jobs, mode)
	if err != nil {
		return nil, err
	}
	net := lim.Network != NetHost
	wrap, why, plan, done := sb.namespaces(ctx, dir, &spec, orig, plan, net)
	defer done()
	if sb.drop != nil && !sb.container {
		sb.measures = append(sb.measures, "the kernel runs as an unprivileged user, one per job ("+graderUserPrefix+"N, setpriv --no-new-privs), "+
			"with a private HOME and TMPDIR and a private layer over the build cache; its processes are killed after each submission",
			"private /tmp, /var/tmp and /dev/shm per submission (tmpfs of "+privateTmpSize+" each, removed after it)")
	}
	prefix := sb.limitsPrefix(lim)
	wrapped := spec
	if net && (wrap != nil || sb.container) {
		wrapped.Env = offlineGoEnv(spec.Env)
	}
	if err := sb.writeKernelSpec(dir, spec, wrapped, prefix); err != nil {
		return nil, err
	}
	sb.setEnv(dir)
	if err := sb.network(lim, plan, wrap, why); err != nil {
		return nil, err
	}
	if len(sb.warnings) > 0 && mode != IsolationBestEffort {
		return nil, &IsolationError{Missing: sb.warnings, Fixes: sb.fixes}
	}
	ok = true
	return sb, nil
}

// kernelUser decides whose the kernel's processes are: the container's
// slot users with IsolationContainer; as root, a slot user per job (see
// privdrop.go), for which it returns the mount plan; otherwise the
// grader's own user, which is a missing measure.
func (sb *Sandbox) kernelUser(ctx context.Context, dir string, spec *KernelSpec, lim Limits, jobs int, mode string) (*nsPlan, error) {
	var plan *nsPlan
	if mode == IsolationContainer {
		sb.container = true
		if err := newContainer(sb, *spec, lim, jobs); err != nil {
			return nil, err
		}
	} else if os.Geteuid() == 0 {
		var why string
		sb.drop, plan, why = prepareDrop(ctx, dir, spec, max(jobs, 1))
		if sb.drop == nil {
			sb.missing("the kernel runs as root, not as a slot user of its own: "+why, "see the reason; docs/grading.md lists what grading as root needs")
		}
	} else {
		sb.missing(fmt.Sprintf("the kernel runs as your own user (uid %d), not as a slot user of its own: it could read your files and "+
			"the other submissions, and nothing gives it a private /tmp or kills what it leaves running between submissions", os.Geteuid()),
			"run agx autograde as root (sudo): each kernel then runs as a user of its own")
	}
	return plan, nil
}

// namespaces makes the driver's namespaces: no network unless --net host
// (net false), and the bind mounts of the dropped kernel. It returns the
// wrapper that enters them, or why there is none. When the bind mounts
// cannot be made, the kernel is not dropped after all: the plan is dropped
// and spec is orig again. done undoes the probe's set-up of slot 0.
func (sb *Sandbox) namespaces(ctx context.Context, dir string, spec *KernelSpec, orig KernelSpec, plan *nsPlan, net bool) (wrap []string, why string, _ *nsPlan, done func()) {
	done = func() {}
	if sb.container || !net && plan == nil {
		return nil, "", plan, done
	}
	var probeEnv []string
	if sb.drop != nil {
		// The probe sets up slot 0's build cache, as for a kernel.
		slot := sb.drop.all[0]
		probeEnv = slot.env()
		done = func() { slot.reset() }
	}
	var keep []string
	if plan != nil {
		keep = sandboxTmpKeep(dir, *spec, plan)
	}
	wrap, why = nsWrap(ctx, dir, net, plan, probeEnv, keep)
	if wrap == nil && plan != nil {
		sb.drop.close()
		sb.drop, plan = nil, nil
		sb.missing("the kernel runs as root, not as a slot user of its own: cannot bind-mount what it needs into a mount namespace ("+why+")", fixNamespaces)
		*spec = orig
		if net {
			wrap, why = nsWrap(ctx, dir, net, nil, nil, nil)
		}
	}
	return wrap, why, plan, done
}

// limitsPrefix returns the prlimit command that sets lim for the kernel,
// or nil when there are no limits or no prlimit.
func (sb *Sandbox) limitsPrefix(lim Limits) []string {
	if lim.MemoryBytes <= 0 && lim.Procs <= 0 && lim.FileBytes <= 0 {
		return nil
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		sb.missing("no resource limits: prlimit is not installed", "install util-linux")
		return nil
	}
	prefix := []string{prlimit, "--core=0"}
	if lim.MemoryBytes > 0 {
		prefix = append(prefix, "--as="+strconv.FormatInt(lim.MemoryBytes, 10))
		sb.measures = append(sb.measures, fmt.Sprintf("address space %d MiB per process (prlimit --as)", lim.MemoryBytes>>20))
	}
	if lim.FileBytes > 0 {
		prefix = append(prefix, "--fsize="+strconv.FormatInt(lim.FileBytes, 10))
		sb.measures = append(sb.measures, fmt.Sprintf("files up to %d MiB (prlimit --fsize)", lim.FileBytes>>20))
	}
	if lim.Procs > 0 {
		prefix = append(prefix, "--nproc="+strconv.Itoa(lim.Procs))
		if os.Geteuid() == 0 && sb.drop == nil {
			sb.missing("the process limit does not bind: the kernel runs as root, which RLIMIT_NPROC exempts", "let the kernel run as a slot user (the first missing measure)")
		} else {
			sb.measures = append(sb.measures, fmt.Sprintf("%d processes and threads for the kernel's user (prlimit --nproc)", lim.Procs))
		}
	}
	return append(prefix, "--")
}

// writeKernelSpec writes the sandbox's kernelspec, wrapped (spec with the
// environment it runs in): spec's command behind the drop script when the
// kernel is dropped to a slot user, else behind the limits' prefix.
func (sb *Sandbox) writeKernelSpec(dir string, spec, wrapped KernelSpec, prefix []string) error {
	if sb.drop != nil {
		quoted := make([]string, len(prefix))
		for i, a := range prefix {
			quoted[i] = shQuote(a)
		}
		script := filepath.Join(dir, "drop.sh")
		exports := slotExports
		if sb.container {
			exports = containerExports
		}
		if err := os.WriteFile(script, fmt.Appendf(nil, dropScript, exports, shQuote(sb.drop.setpriv), strings.Join(quoted, " ")), 0o644); err != nil {
			return err
		}
		wrapped.Argv = append([]string{"/bin/sh", script, "{connection_file}", "--"}, spec.Argv...)
	} else {
		wrapped.Argv = append(prefix, spec.Argv...)
	}
	wrapped.DisplayName = spec.DisplayName + " (agx autograde)"
	b, _ := json.MarshalIndent(wrapped, "", "  ") // plain values always encode
	kdir := filepath.Join(dir, "kernels", sb.kernel)
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(kdir, "kernel.json"), b, 0o644)
}

// setEnv sets the kernel's environment: this process's, with dir first in
// JUPYTER_PATH so that Jupyter finds the sandbox's kernelspec.
func (sb *Sandbox) setEnv(dir string) {
	jp := dir
	if old := os.Getenv("JUPYTER_PATH"); old != "" {
		jp += string(os.PathListSeparator) + old
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "JUPYTER_PATH=") {
			sb.env = append(sb.env, kv)
		}
	}
	sb.env = append(sb.env, "JUPYTER_PATH="+jp)
}

// network records the network isolation in force: the namespace that wrap
// enters, the host's with --net host, or none, which --net none refuses.
func (sb *Sandbox) network(lim Limits, plan *nsPlan, wrap []string, why string) error {
	switch {
	case sb.container:
		// checkContainer looked at the container's network.
	case lim.Network == NetHost:
		sb.measures = append(sb.measures, "network: the host's (--net host)")
		if plan != nil {
			sb.wrap = wrap
		}
	case wrap != nil:
		sb.wrap = wrap
		sb.measures = append(sb.measures, "no network (unshare -n: a network namespace with loopback only)")
	case lim.Network == NetNone:
		return fmt.Errorf("--net none: cannot make a network namespace: %s", why)
	default:
		sb.missing("the network is NOT isolated: "+why, fixNamespaces+"; or grade with --net host if the kernel may use the network")
	}
	return nil
}

// offlineGoEnv returns env with the go command told that there is no
// network: GOPROXY=off and GOSUMDB=off. In the network namespace the module
// cache is all the kernel has, and GoNB's `go get` after each cell would
// otherwise still ask the checksum database about modules missing from the
// scratch module's go.sum. It can answer from the cache only while every
// cached lookup comes from one signed tree: modules downloaded on different
// days carry trees of different sizes, and proving those consistent needs
// tiles that the cache may lack, so every cell failed with "verifying
// module: ... network is unreachable" on such a machine. Turning the
// database off here trusts nothing new: the cached modules were verified
// when they were downloaded, and nothing can be downloaded without the
// network.
func offlineGoEnv(env map[string]string) map[string]string {
	out := make(map[string]string, len(env)+2)
	for k, v := range env {
		out[k] = v
	}
	out["GOPROXY"] = "off"
	out["GOSUMDB"] = "off"
	return out
}

// prepareDrop sets up the slot users and works out what the kernel needs
// that they cannot reach (see hidePlan). It adds root's Go settings to
// spec's environment (the kernel's HOME is not root's, so root's go env file
// is not read). It returns a nil dropper, with the reason, when the kernel
// cannot run unprivileged.
func prepareDrop(ctx context.Context, dir string, spec *KernelSpec, jobs int) (*dropper, *nsPlan, string) {
	env := map[string]string{}
	for k, v := range spec.Env {
		env[k] = v
	}
	goBin := env["AGX_GO"]
	if goBin == "" {
		var err error
		if goBin, err = exec.LookPath("go"); err != nil {
			return nil, nil, "no go on PATH"
		}
	}
	goEnv, err := ReadGoEnv(ctx, goBin)
	if err != nil {
		return nil, nil, err.Error()
	}
	plan := &nsPlan{stage: filepath.Join(dir, "stage")}
	if c := goEnv["GOCACHE"]; c != "" && c != "off" {
		plan.gocache = c
	}
	delete(goEnv, "GOCACHE")
	for k, v := range goEnv {
		if _, set := env[k]; !set {
			env[k] = v
		}
	}
	need := []string{filepath.Dir(filepath.Dir(goBin)), env["GOMODCACHE"]}
	if filepath.IsAbs(spec.Argv[0]) {
		need = append(need, filepath.Dir(spec.Argv[0]))
	}
	for _, k := range []string{"AGX_ROOT", "AGX_BIN"} {
		need = append(need, env[k])
	}
	if err := plan.expose(need); err != nil {
		return nil, nil, err.Error()
	}
	if err := os.Mkdir(plan.stage, 0o700); err != nil {
		return nil, nil, err.Error()
	}
	if root := env["AGX_ROOT"]; root != "" {
		// Only the module's packages, not the checkout (moduleview.go).
		var keep []string
		for _, k := range []string{filepath.Dir(spec.Argv[0]), env["AGX_BIN"]} {
			if k != "" && filepath.IsAbs(k) && within(filepath.Clean(root), filepath.Clean(k)) {
				keep = append(keep, k)
			}
		}
		mv := filepath.Join(dir, "agx-module")
		if err := moduleView(root, mv, keep); err != nil {
			return nil, nil, "cannot copy the agx module for the kernel: " + err.Error()
		}
		plan.views = append(plan.views, view{src: mv, dst: filepath.Clean(root)})
	}
	for _, p := range []string{dir, filepath.Join(dir, "home")} {
		if err := os.MkdirAll(p, 0o711); err != nil {
			return nil, nil, err.Error()
		}
		if err := os.Chmod(p, 0o711); err != nil {
			return nil, nil, err.Error()
		}
	}
	d, err := newDropper(dir, jobs)
	if err != nil {
		return nil, nil, err.Error()
	}
	spec.Env = env
	return d, plan, ""
}

// Kernel is the name of the wrapping kernelspec.
func (sb *Sandbox) Kernel() string { return sb.kernel }

// Env is the notebook driver's environment (JUPYTER_PATH finds the kernelspec).
func (sb *Sandbox) Env() []string { return sb.env }

// Wrap is the command prefix of the notebook driver; nil for none.
func (sb *Sandbox) Wrap() []string { return sb.wrap }

// Warnings lists the measures not in force (best-effort mode only).
func (sb *Sandbox) Warnings() []string { return sb.warnings }

// Dir is the run's directory: the kernelspec, the slot homes.
func (sb *Sandbox) Dir() string { return sb.cleanupTo }

// Acquire waits for a free slot user for one submission's kernel; it
// returns nil, nil when the kernel does not run as a slot user. Release
// gives it back, with its processes killed and its home emptied.
func (sb *Sandbox) Acquire(ctx context.Context) (*Slot, error) {
	if sb.drop == nil {
		return nil, nil
	}
	return sb.drop.acquire(ctx)
}

// Release: see Acquire.
func (sb *Sandbox) Release(s *Slot) {
	if s != nil {
		sb.drop.release(s)
	}
}

// Cleanup kills what the slot users still run and removes the run's directory.
func (sb *Sandbox) Cleanup() {
	if sb.drop != nil {
		sb.drop.close()
	}
	os.RemoveAll(sb.cleanupTo)
}

// Mode is the isolation mode the run graded in: IsolationBestEffort when a
// measure was missing (New refuses that in strict mode).
func (sb *Sandbox) Mode() string {
	if sb.container {
		return IsolationContainer
	}
	if len(sb.warnings) > 0 {
		return IsolationBestEffort
	}
	return IsolationStrict
}

// Isolation lists the measures and the missing ones, for the gradebook.
func (sb *Sandbox) Isolation() []string {
	out := append([]string{}, sb.measures...)
	for _, w := range sb.warnings {
		out = append(out, "missing: "+w)
	}
	return out
}

// nsWrap returns the prefix that runs the notebook driver (and so the
// kernel) in new namespaces: a network namespace with only loopback (the
// driver talks to the kernel over 127.0.0.1) when net, and a mount namespace
// set up by plan when it is not nil, with private temporary directories
// (keep: see writePrivateTmp); or why it cannot. The prefix runs a script
// that it writes into dir.
func nsWrap(ctx context.Context, dir string, net bool, plan *nsPlan, probeEnv, keep []string) ([]string, string) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return nil, "unshare (util-linux) is not installed"
	}
	var script strings.Builder
	script.WriteString("set -e\n")
	args := []string{unshare}
	if net {
		if _, err := exec.LookPath("ip"); err != nil {
			return nil, "ip (iproute2) is not installed"
		}
		args = append(args, "-n")
		script.WriteString("ip link set lo up\n")
	}
	if plan != nil {
		args = append(args, "-m", "--propagation", "private")
		plan.writeStage(&script)
		writePrivateTmp(&script, coveredTmpDirs(), keep)
		plan.write(&script)
	}
	script.WriteString("exec \"$@\"\n")
	path := filepath.Join(dir, "enter.sh")
	if err := os.WriteFile(path, []byte(script.String()), 0o644); err != nil {
		return nil, err.Error()
	}
	wrap := append(args, "--", "/bin/sh", path)
	probe := exec.CommandContext(ctx, wrap[0], append(wrap[1:], "true")...)
	probe.Env = append(os.Environ(), probeEnv...)
	out, err := probe.CombinedOutput()
	if err != nil {
		what := "unshare -n"
		if plan != nil {
			what = strings.Join(args[1:], " ") + " with its mounts"
		}
		return nil, fmt.Sprintf("%s failed (%v: %s); it needs root or CAP_SYS_ADMIN", what, err, strings.TrimSpace(string(out)))
	}
	return wrap, ""
}

// ReadKernelSpec asks Jupyter for the kernelspec called name.
func ReadKernelSpec(ctx context.Context, python, name string) (KernelSpec, error) {
	const script = `import json, sys
from jupyter_client.kernelspec import KernelSpecManager
s = KernelSpecManager().get_kernel_spec(sys.argv[1])
print(json.dumps({"argv": s.argv, "display_name": s.display_name, "language": s.language,
                  "interrupt_mode": s.interrupt_mode, "env": s.env, "metadata": s.metadata}))
`
	var spec KernelSpec
	out, err := exec.CommandContext(ctx, python, "-c", script, name).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg = strings.TrimSpace(string(ee.Stderr))
			if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
				msg = msg[i+1:]
			}
		}
		return spec, fmt.Errorf("reading the kernelspec %q: %s", name, msg)
	}
	if err := json.Unmarshal(out, &spec); err != nil {
		return spec, fmt.Errorf("reading the kernelspec %q: %w", name, err)
	}
	if len(spec.Argv) == 0 {
		return spec, fmt.Errorf("the kernelspec %q has no argv", name)
	}
	return spec, nil
}
