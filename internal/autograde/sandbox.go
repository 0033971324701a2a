package autograde

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

// sandbox is how every submission of a run is executed: a kernelspec that
// wraps the chosen kernel in prlimit(1), and a command prefix for the
// notebook driver (and so the kernel) that puts it in a network namespace
// without network.
type sandbox struct {
	kernel    string   // the wrapping kernelspec's name
	env       []string // the driver's environment (JUPYTER_PATH finds the kernelspec)
	wrap      []string // command prefix of the driver
	measures  []string // what is in force, for the gradebook
	warnings  []string // what could not be put in force
	cleanupTo string
}

// kernelSpec is the part of a Jupyter kernelspec that the wrapper copies.
type kernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	Metadata      json.RawMessage   `json:"metadata,omitempty"`
}

// newSandbox writes the wrapping kernelspec for kernel into a temporary
// directory and works out the isolation this machine allows.
func newSandbox(ctx context.Context, python, kernel string, lim Limits) (*sandbox, error) {
	spec, err := readKernelSpec(ctx, python, kernel)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "agx-autograde-")
	if err != nil {
		return nil, err
	}
	sb := &sandbox{cleanupTo: dir, kernel: "agx-grade-" + filepath.Base(dir)[len("agx-autograde-"):]}

	var prefix []string
	if lim.MemoryBytes > 0 || lim.Procs > 0 || lim.FileBytes > 0 {
		prlimit, err := exec.LookPath("prlimit")
		if err != nil {
			sb.warnings = append(sb.warnings, "no resource limits: prlimit (util-linux) is not installed")
		} else {
			prefix = []string{prlimit, "--core=0"}
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
				if os.Geteuid() == 0 {
					sb.warnings = append(sb.warnings, "the process limit does not bind: the kernel runs as root, which RLIMIT_NPROC exempts (run agx autograde as an unprivileged user)")
				} else {
					sb.measures = append(sb.measures, fmt.Sprintf("%d processes and threads for the user (prlimit --nproc)", lim.Procs))
				}
			}
			prefix = append(prefix, "--")
		}
	}
	wrapped := spec
	wrapped.Argv = append(prefix, spec.Argv...)
	wrapped.DisplayName = spec.DisplayName + " (agx autograde)"
	b, _ := json.MarshalIndent(wrapped, "", "  ") // plain values always encode
	kdir := filepath.Join(dir, "kernels", sb.kernel)
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(kdir, "kernel.json"), b, 0o644); err != nil {
		return nil, err
	}
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

	switch lim.Network {
	case NetHost:
		sb.measures = append(sb.measures, "network: the host's (--net host)")
	default:
		wrap, why := netnsWrap(ctx)
		switch {
		case wrap != nil:
			sb.wrap = wrap
			sb.measures = append(sb.measures, "no network (unshare -n: a network namespace with loopback only)")
		case lim.Network == NetNone:
			sb.cleanup()
			return nil, fmt.Errorf("--net none: cannot make a network namespace: %s", why)
		default:
			sb.warnings = append(sb.warnings, "the network is NOT isolated: "+why)
		}
	}
	return sb, nil
}

func (sb *sandbox) cleanup() { os.RemoveAll(sb.cleanupTo) }

// isolation lists the measures and the missing ones, for the gradebook.
func (sb *sandbox) isolation() []string {
	out := append([]string{}, sb.measures...)
	for _, w := range sb.warnings {
		out = append(out, "missing: "+w)
	}
	return out
}

// netnsScript brings up loopback in the new namespace (the driver talks to
// the kernel over 127.0.0.1) and runs the command.
const netnsScript = `ip link set lo up && exec "$@"`

// netnsWrap returns the prefix that runs a command without network, or why
// it cannot.
func netnsWrap(ctx context.Context) ([]string, string) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return nil, "unshare (util-linux) is not installed"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, "ip (iproute2) is not installed"
	}
	wrap := []string{unshare, "-n", "--", "sh", "-c", netnsScript, "sh"}
	out, err := exec.CommandContext(ctx, wrap[0], append(wrap[1:], "true")...).CombinedOutput()
	if err != nil {
		return nil, fmt.Sprintf("unshare -n failed (%v: %s); it needs root or CAP_SYS_ADMIN", err, strings.TrimSpace(string(out)))
	}
	return wrap, ""
}

// readKernelSpec asks Jupyter for the kernelspec called name.
func readKernelSpec(ctx context.Context, python, name string) (kernelSpec, error) {
	const script = `import json, sys
from jupyter_client.kernelspec import KernelSpecManager
s = KernelSpecManager().get_kernel_spec(sys.argv[1])
print(json.dumps({"argv": s.argv, "display_name": s.display_name, "language": s.language,
                  "interrupt_mode": s.interrupt_mode, "env": s.env, "metadata": s.metadata}))
`
	var spec kernelSpec
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
