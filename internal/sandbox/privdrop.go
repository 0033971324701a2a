package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// When agx autograde runs as root, the kernel of each submission runs as an
// unprivileged user of its own job slot: agx-grader-0, agx-grader-1, ... (one
// per submission graded at once, created with useradd when missing). A user
// per slot makes RLIMIT_NPROC, which counts every process and thread of the
// real user, bound one submission's kernel and nothing else, and lets the
// grader kill whatever a submission left running (kill -1 as that user)
// before the slot's next submission. Each slot has a private home (HOME,
// TMPDIR and GOCACHE) in the run's temporary directory; the paths the kernel
// reads that the user cannot reach (root's module cache, GoNB's install
// directory, a checkout under /root) are bind-mounted read-only into the run
// directory, in a mount namespace of the notebook driver only.

// graderUserPrefix names the slot users: graderUserPrefix + slot number.
const graderUserPrefix = "agx-grader-"

// Slot is one job slot's user.
type Slot struct {
	name     string
	uid, gid int
	home     string // the private home, owned by the user
	lock     *os.File
	keepHome bool // the image's user in a grading container: its home is its own, not emptied
}

// dropper hands out the slots of a run.
type dropper struct {
	setpriv string
	slots   chan *Slot
	all     []*Slot
}

// lockDir holds the slot locks: two runs of agx autograde on one machine
// never share a slot user.
func lockDir() string {
	for _, d := range []string{"/run/lock", "/var/lock"} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return os.TempDir()
}

// newDropper takes n slot users (creating them when missing) and makes
// their homes under dir.
func newDropper(dir string, n int) (*dropper, error) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		return nil, errors.New("setpriv (util-linux) is not installed")
	}
	d := &dropper{setpriv: setpriv, slots: make(chan *Slot, n)}
	for k := 0; len(d.all) < n && k < n+64; k++ {
		lock, err := os.OpenFile(filepath.Join(lockDir(), fmt.Sprintf("%s%d.lock", graderUserPrefix, k)), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			d.close()
			return nil, err
		}
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			lock.Close() // another run holds this slot
			continue
		}
		s := &Slot{name: fmt.Sprintf("%s%d", graderUserPrefix, k), lock: lock}
		d.all = append(d.all, s)
		if err := s.setup(dir); err != nil {
			d.close()
			return nil, err
		}
		d.slots <- s
	}
	if len(d.all) < n {
		d.close()
		return nil, fmt.Errorf("no free %s* user: other runs hold them", graderUserPrefix)
	}
	return d, nil
}

// setup finds or creates the slot's user and makes its home.
func (s *Slot) setup(dir string) error {
	u, err := user.Lookup(s.name)
	if err != nil {
		out, aerr := exec.Command("useradd", "--system", "--user-group", "--no-create-home",
			"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
			"--comment", "agx autograde sandbox", s.name).CombinedOutput()
		if u, err = user.Lookup(s.name); err != nil {
			return fmt.Errorf("cannot create the user %s: %v: %s", s.name, aerr, strings.TrimSpace(string(out)))
		}
	}
	if s.uid, err = strconv.Atoi(u.Uid); err == nil {
		s.gid, err = strconv.Atoi(u.Gid)
	}
	if err != nil || s.uid == 0 {
		return fmt.Errorf("the user %s has uid %s gid %s: not usable", s.name, u.Uid, u.Gid)
	}
	s.home = filepath.Join(dir, "home", s.name)
	return s.reset()
}

// reset kills every process of the slot's user and gives it an empty home.
func (s *Slot) reset() error {
	s.kill()
	if s.keepHome {
		return nil
	}
	if err := os.RemoveAll(s.home); err != nil {
		return err
	}
	for _, p := range []string{s.home, filepath.Join(s.home, "tmp")} {
		if err := os.Mkdir(p, 0o700); err != nil {
			return err
		}
		if err := os.Chown(p, s.uid, s.gid); err != nil {
			return err
		}
	}
	return nil
}

// kill sends SIGKILL to every process of the slot's user: kill(-1) as that
// user reaches exactly its processes. Twice, for a process that forked
// while the first signal went round.
func (s *Slot) kill() {
	for range 2 {
		cmd := exec.Command("kill", "-s", "KILL", "--", "-1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(s.uid), Gid: uint32(s.gid), Groups: []uint32{}}}
		cmd.Run() // fails when there was nothing to kill
	}
}

// acquire waits for a free slot; release gives it back, with the user's
// processes killed.
func (d *dropper) acquire(ctx context.Context) (*Slot, error) {
	select {
	case s := <-d.slots:
		return s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (d *dropper) release(s *Slot) {
	s.reset() // a slot whose home cannot be emptied still runs the next kernel
	d.slots <- s
}

// Home is the slot's private home (HOME and TMPDIR of its kernel), owned by its user.
func (s *Slot) Home() string { return s.home }

// UID and GID are the slot user's.
func (s *Slot) UID() int { return s.uid }

// GID: see UID.
func (s *Slot) GID() int { return s.gid }

// Env is what the kernel wrapper needs to know about the slot, and work, the
// submission's work directory (bound back into the private /tmp).
func (s *Slot) Env(work string) []string {
	return append(s.env(), WorkEnv+"="+work)
}

// env is what the kernel wrapper needs to know about the slot.
func (s *Slot) env() []string {
	return []string{
		"AGX_SANDBOX_USER=" + s.name,
		"AGX_SANDBOX_UID=" + strconv.Itoa(s.uid),
		"AGX_SANDBOX_GID=" + strconv.Itoa(s.gid),
		"AGX_SANDBOX_HOME=" + s.home,
	}
}

func (d *dropper) close() {
	for _, s := range d.all {
		if s.home != "" {
			s.kill()
		}
		if s.lock != nil {
			s.lock.Close()
		}
	}
}

// dropScript is the kernel's wrapper (argv: SCRIPT CONNECTION_FILE -- KERNEL
// ARGV...). It runs as root in the driver's namespaces: it hands the
// connection file (which Jupyter makes readable by root only) to the slot's
// user, points the kernel's home, temporary files and build cache at the
// slot's home, and runs the kernel as that user. %s: the exports
// (slotExports or containerExports), setpriv's path and the prlimit prefix.
const dropScript = `set -eu
conn=$1
shift 2
home=$AGX_SANDBOX_HOME
install -m 600 -o "$AGX_SANDBOX_UID" -g "$AGX_SANDBOX_GID" "$conn" "$home/connection.json"
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	if [ "$a" = "$conn" ]; then a=$home/connection.json; fi
	set -- "$@" "$a"
	n=$((n - 1))
done
uid=$AGX_SANDBOX_UID
gid=$AGX_SANDBOX_GID
%s
unset AGX_SANDBOX_USER AGX_SANDBOX_UID AGX_SANDBOX_GID AGX_SANDBOX_HOME
cd "$home"
exec %s --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs -- %s "$@"
`

// slotExports point a slot user's kernel at the slot's private home.
const slotExports = `export USER="$AGX_SANDBOX_USER" LOGNAME="$AGX_SANDBOX_USER" HOME="$home" TMPDIR="$home/tmp" \
	GOCACHE="$home/go-build" GOPATH="$home/go" XDG_CACHE_HOME="$home/.cache" XDG_CONFIG_HOME="$home/.config" GOENV=off`

// containerExports keep the image user's own home, with its warm caches
// (a fresh copy in every grading container), and the container's /tmp.
const containerExports = `export USER="$AGX_SANDBOX_USER" LOGNAME="$AGX_SANDBOX_USER" HOME="$home" TMPDIR=/tmp`

// nsPlan is the mount namespace of the notebook driver when the kernel runs
// unprivileged. A directory on the way to something the kernel needs that
// other users may not enter (root's home, mode 0700, holding the module
// cache and GoNB) is hidden under an empty tmpfs, and only what the kernel
// needs is bound back, read-only, at its own path: paths do not change, so
// root's build cache still hits, and nothing else of that directory is
// visible. Each kernel's GOCACHE is an overlay: root's build cache below,
// read-only, and an upper layer of the submission's own, thrown away after
// it, so a build is as warm as root's and no submission sees what another
// one wrote.
type nsPlan struct {
	stage   string // root's view of the hidden directories, for root only
	hides   []hide
	gocache string // root's build cache; "" for none
	views   []view // directories shown in place of others (moduleView)
}

// view shows directory src, read-only, at dst.
type view struct{ src, dst string }

type hide struct {
	dir    string
	expose []string
}

// expose plans for the kernel to read paths (directories).
func (p *nsPlan) expose(paths []string) error {
	var abs []string
	for _, path := range paths {
		if path == "" {
			continue
		}
		a, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		st, err := os.Stat(a)
		if err != nil {
			return err
		}
		if st.Mode().Perm()&0o005 != 0o005 {
			return fmt.Errorf("other users may not read %s (mode %v)", a, st.Mode().Perm())
		}
		abs = append(abs, a)
	}
	slices.Sort(abs)
	var kept []string
	for _, a := range abs {
		if len(kept) > 0 && within(kept[len(kept)-1], a) {
			continue // a is under a path already exposed
		}
		kept = append(kept, a)
	}
	for _, a := range kept {
		b := blocker(a)
		if b == "" {
			continue
		}
		i := slices.IndexFunc(p.hides, func(h hide) bool { return h.dir == b })
		if i < 0 {
			p.hides = append(p.hides, hide{dir: b})
			i = len(p.hides) - 1
		}
		p.hides[i].expose = append(p.hides[i].expose, a)
	}
	if t := os.TempDir(); blocker(t) != "" {
		return fmt.Errorf("the temporary directory %s is in %s, which other users may not enter (set TMPDIR, e.g. to /tmp)", t, blocker(t))
	}
	return nil
}

// within reports whether path is dir or under it.
func within(dir, path string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// blocker returns the topmost directory above path (absolute, clean) that
// other users may not enter, or "".
func blocker(path string) string {
	var up []string
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		up = append(up, d)
		if d == "/" || d == "." {
			break
		}
	}
	for i := len(up) - 1; i >= 0; i-- {
		if st, err := os.Stat(up[i]); err == nil && st.Mode().Perm()&0o001 == 0 {
			return up[i]
		}
	}
	return ""
}

func (p *nsPlan) staged(k int) string { return filepath.Join(p.stage, strconv.Itoa(k)) }

// writeStage appends the commands that give root a view of each hidden
// directory under the stage. They come first, before the private temporary
// directories cover /tmp: a hidden directory may lie there (a HOME made by
// mktemp -d), and afterwards only what is bound back of /tmp is visible.
func (p *nsPlan) writeStage(b *strings.Builder) {
	for k, h := range p.hides {
		fmt.Fprintf(b, "mkdir -p %s\nmount --bind %s %s\n", shQuote(p.staged(k)), shQuote(h.dir), shQuote(p.staged(k)))
	}
}

// write appends the rest of the mount commands to the namespace's script:
// each hidden directory covered, what the kernel needs bound back from the
// stage, the module views and the build cache's overlay.
func (p *nsPlan) write(b *strings.Builder) {
	staged := p.staged
	lower := p.gocache
	for k, h := range p.hides {
		fmt.Fprintf(b, "mkdir -p %s\nmount -t tmpfs -o mode=0711 agx-hidden %s\n", shQuote(h.dir), shQuote(h.dir))
		for _, e := range h.expose {
			rel, _ := filepath.Rel(h.dir, e)
			src := filepath.Join(staged(k), rel)
			fmt.Fprintf(b, "mkdir -p %s\nmount --bind %s %s\nmount -o remount,bind,ro %s\n", shQuote(e), shQuote(src), shQuote(e), shQuote(e))
		}
		if lower != "" && within(h.dir, lower) && lower == p.gocache {
			rel, _ := filepath.Rel(h.dir, lower)
			lower = filepath.Join(staged(k), rel)
		}
	}
	for _, v := range p.views {
		fmt.Fprintf(b, "mount --bind %s %s\nmount -o remount,bind,ro %s\n", shQuote(v.src), shQuote(v.dst), shQuote(v.dst))
	}
	b.WriteString("if [ -n \"${AGX_SANDBOX_HOME:-}\" ]; then\n")
	b.WriteString("\th=$AGX_SANDBOX_HOME\n\towner=$AGX_SANDBOX_UID:$AGX_SANDBOX_GID\n\tmkdir -p \"$h/go-build\"\n\tchown \"$owner\" \"$h/go-build\"\n")
	if lower != "" {
		// The upper layer has the cache's 256 directories, owned by the
		// user (a merged directory takes the upper one's owner), and a
		// fresh trim stamp, so that go does not trim root's cache.
		b.WriteString("\tu=$h/go-build.upper\n\tmkdir -p \"$u\" \"$h/go-build.work\"\n")
		b.WriteString("\tfor x in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do for y in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do mkdir -p \"$u/$x$y\"; done; done\n")
		b.WriteString("\tdate +%s >\"$u/trim.txt\"\n\tchown -R \"$owner\" \"$u\"\n")
		fmt.Fprintf(b, "\tmount -t overlay agx-gocache -o \"lowerdir=%s,upperdir=$u,workdir=$h/go-build.work\" \"$h/go-build\"\n", strings.ReplaceAll(lower, `"`, `\"`))
	}
	b.WriteString("fi\n")
	for k := range p.hides {
		fmt.Fprintf(b, "umount -l %s\n", shQuote(staged(k)))
	}
}

// goEnvKeep is the part of root's Go environment the kernel keeps: the user's
// HOME differs, so root's go env file (GOFLAGS, GOTOOLCHAIN, ...) would be
// lost otherwise.
var goEnvKeep = []string{"GOMODCACHE", "GOFLAGS", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOTOOLCHAIN", "GOINSECURE"}

// ReadGoEnv returns those settings and GOCACHE.
func ReadGoEnv(ctx context.Context, goBin string) (map[string]string, error) {
	out, err := exec.CommandContext(ctx, goBin, append([]string{"env", "-json", "GOCACHE"}, goEnvKeep...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	env := map[string]string{}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	for k, v := range env {
		if v == "" {
			delete(env, k)
		}
	}
	return env, nil
}

// shQuote quotes s for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
