package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// IsolationContainer is the mode of agx autograde inside a container made
// for one submission (`agx autograde --docker IMAGE` on the host, see
// package autograde's docker.go). The container is the isolation: a fresh
// one per submission, without network, with a read-only root, a private
// /tmp, process and memory limits, and the instructor's paths covered. The
// grader runs in it as root and the kernel as the image's unprivileged
// user. No namespace is made, so CAP_SYS_ADMIN is not needed; instead the
// grader checks, before it grades, that each of those measures is in force,
// and refuses otherwise.
const IsolationContainer = "container"

// KernelUserEnv names the unprivileged user the kernel runs as in
// IsolationContainer mode (default DefaultKernelUser, the image's user).
const (
	KernelUserEnv     = "AGX_KERNEL_USER"
	DefaultKernelUser = "jovyan"
)

// IgnoredGoStub is what a Go file of the instructor's is replaced with in a
// grading container: a file the go command leaves out of every build, so
// that its package still builds without it.
const IgnoredGoStub = "//go:build ignore\n\npackage ignore\n"

// InstructorOnly reads root/docker/instructor-only: the paths of the
// checkout that students never get (relative, a directory ending in /).
func InstructorOnly(root string) ([]string, error) {
	f, err := os.Open(filepath.Join(root, "docker", "instructor-only"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var paths []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		paths = append(paths, line)
	}
	return paths, sc.Err()
}

// mountInfo is one line of /proc/self/mountinfo: the mount point, its
// options and its file system type.
type mountInfo struct {
	point, fstype string
	opts          []string
}

// parseMountInfo reads the format of proc(5)'s /proc/PID/mountinfo.
func parseMountInfo(text string) []mountInfo {
	var out []mountInfo
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		sep := -1
		for i, w := range f {
			if w == "-" {
				sep = i
				break
			}
		}
		if sep < 6 || sep+1 >= len(f) {
			continue
		}
		out = append(out, mountInfo{point: unescapeMount(f[4]), opts: strings.Split(f[5], ","), fstype: f[sep+1]})
	}
	return out
}

// unescapeMount undoes the octal escapes (\040 for a space) of mountinfo.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// lastMount is the mount in force at point (the last one listed), or nil.
func lastMount(ms []mountInfo, point string) *mountInfo {
	var m *mountInfo
	for i := range ms {
		if ms[i].point == point {
			m = &ms[i]
		}
	}
	return m
}

// containerEnv is what the container checks read: the mount table, the
// network interfaces, the cgroup's limits. A variable, so that tests can
// describe a container.
type containerEnv struct {
	mountinfo  string   // /proc/self/mountinfo
	interfaces []string // /sys/class/net
	pidsMax    string   // the cgroup's pids.max ("" when unknown)
	memoryMax  string   // the cgroup's memory.max ("" when unknown)
}

func readContainerEnv() containerEnv {
	var env containerEnv
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		env.mountinfo = string(b)
	}
	if ents, err := os.ReadDir("/sys/class/net"); err == nil {
		for _, e := range ents {
			env.interfaces = append(env.interfaces, e.Name())
		}
	}
	// cgroup v2 (Docker on Debian 12); v1 names the files differently.
	for _, p := range []struct {
		dst   *string
		files []string
	}{
		{&env.pidsMax, []string{"/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids/pids.max"}},
		{&env.memoryMax, []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}},
	} {
		for _, f := range p.files {
			if b, err := os.ReadFile(f); err == nil {
				*p.dst = strings.TrimSpace(string(b))
				break
			}
		}
	}
	return env
}

// checkContainer lists the measures of a grading container that are in
// force and those that are missing (with the fix for each): a read-only
// root, private /tmp, /var/tmp and /dev/shm, no network (unless net is
// false), a process and a memory limit, and every instructor path of
// hidden covered (absent, an empty directory, or IgnoredGoStub/empty for a
// file). root is the agx checkout in the image.
func checkContainer(env containerEnv, net bool, root string, hidden []string) (measures, missing, fixes []string) {
	const fix = "grade with `agx autograde --docker IMAGE` on the host, which starts each container with these settings"
	miss := func(what string) {
		missing = append(missing, what)
		fixes = append(fixes, fix)
	}
	ms := parseMountInfo(env.mountinfo)
	if m := lastMount(ms, "/"); m == nil || !slices.Contains(m.opts, "ro") {
		miss("the container's root file system is writable (docker run --read-only)")
	} else {
		measures = append(measures, "read-only root file system")
	}
	var tmps []string
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		if m := lastMount(ms, d); m == nil || m.fstype != "tmpfs" {
			miss(d + " is not a tmpfs of this container's own (docker run --tmpfs " + d + ")")
		} else {
			tmps = append(tmps, d)
		}
	}
	if len(tmps) == 3 {
		measures = append(measures, "private /tmp, /var/tmp and /dev/shm (tmpfs of this container's)")
	}
	if net {
		var other []string
		for _, i := range env.interfaces {
			if i != "lo" {
				other = append(other, i)
			}
		}
		switch {
		case len(env.interfaces) == 0:
			miss("cannot list the network interfaces (/sys/class/net)")
		case len(other) > 0:
			miss("the container has network interfaces besides loopback: " + strings.Join(other, ", ") + " (docker run --network none)")
		default:
			measures = append(measures, "no network (docker run --network none: loopback only)")
		}
	}
	if env.pidsMax == "" || env.pidsMax == "max" {
		miss("the container has no process limit (docker run --pids-limit)")
	} else {
		measures = append(measures, "at most "+env.pidsMax+" processes and threads in the container (--pids-limit)")
	}
	if n, err := strconv.ParseInt(env.memoryMax, 10, 64); err != nil || n <= 0 || n >= 1<<60 {
		miss("the container has no memory limit (docker run --memory)")
	} else {
		measures = append(measures, fmt.Sprintf("memory of the container limited to %d MiB (--memory)", n>>20))
	}
	var exposed []string
	for _, p := range hidden {
		if err := coveredPath(filepath.Join(root, p)); err != nil {
			exposed = append(exposed, err.Error())
		}
	}
	if len(exposed) > 0 {
		miss("instructor files are readable in the container: " + strings.Join(exposed, "; "))
	} else if len(hidden) > 0 {
		measures = append(measures, "the instructor's files of the image covered ("+strings.Join(hidden, ", ")+")")
	}
	return measures, missing, fixes
}

// coveredPath says why path, an instructor path of the image, is not
// covered: nil when it is absent, an empty directory, or a file that is
// empty or IgnoredGoStub.
func coveredPath(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %v", path, err)
	case st.IsDir():
		ents, err := os.ReadDir(path)
		if err != nil || len(ents) > 0 {
			return fmt.Errorf("%s holds %d entries", path, len(ents))
		}
		return nil
	default:
		b, err := os.ReadFile(path)
		if err != nil || (len(b) > 0 && string(b) != IgnoredGoStub) {
			return fmt.Errorf("%s has content", path)
		}
		return nil
	}
}

// newContainer sets sb up for IsolationContainer: the kernel runs as the
// image's unprivileged user (KernelUserEnv) under prlimit, in the
// container's own namespaces; it refuses when anything checkContainer
// checks is missing, or when it is not root.
func newContainer(sb *Sandbox, spec KernelSpec, lim Limits, jobs int) error {
	if os.Geteuid() != 0 {
		sb.missing(fmt.Sprintf("the grader runs as uid %d in the container, not as root: it cannot run the kernel as another user", os.Geteuid()),
			"agx autograde --docker starts each container with -u 0")
	}
	if jobs != 1 {
		return errors.New("--isolation=container grades one submission per container: use -j 1")
	}
	name := os.Getenv(KernelUserEnv)
	if name == "" {
		name = DefaultKernelUser
	}
	u, err := user.Lookup(name)
	var uid, gid int
	if err == nil {
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
	}
	if err != nil || uid == 0 {
		sb.missing(fmt.Sprintf("no unprivileged user %q to run the kernel as (%s names it)", name, KernelUserEnv),
			"grade with the grader image of docker/Dockerfile, whose user is "+DefaultKernelUser)
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		sb.missing("setpriv (util-linux) is not installed: the kernel cannot run as "+name, "install util-linux in the image")
	}
	root := spec.Env["AGX_ROOT"]
	var hidden []string
	if root != "" {
		if hidden, err = InstructorOnly(root); err != nil {
			sb.missing("cannot tell which instructor files to cover: "+err.Error(), "grade with an image built from the checkout (docker/Dockerfile)")
		}
	}
	measures, missing, fixes := checkContainer(readContainerEnv(), lim.Network != NetHost, root, hidden)
	sb.measures = append(sb.measures, "a fresh container per submission, removed after it")
	sb.measures = append(sb.measures, measures...)
	for i := range missing {
		sb.missing(missing[i], fixes[i])
	}
	sb.measures = append(sb.measures, "the kernel runs as the image's unprivileged user "+name+" (setpriv --no-new-privs); "+
		"what it leaves running is killed before each test cell and at the end")
	if uid <= 0 {
		return nil
	}
	slot := &Slot{name: name, uid: uid, gid: gid, home: u.HomeDir, keepHome: true}
	sb.drop = &dropper{setpriv: setpriv, slots: make(chan *Slot, 1), all: []*Slot{slot}}
	sb.drop.slots <- slot
	return nil
}
