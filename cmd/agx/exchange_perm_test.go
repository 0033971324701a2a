package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goagx/agx/internal/testenv"
)

// tuser is a Unix user made for TestExchangePermissions.
type tuser struct {
	name     string
	uid, gid uint32
	groups   []uint32
	home     string
}

// TestExchangePermissions runs the exchange as real, separate Unix users (an
// instructor in a staff group, students alice, bob and carol) through the
// built agx binary, and checks that file permissions keep them apart: a
// student cannot list, read or alter another's submission or feedback, nor
// overwrite the release, nor submit under another's name; the instructor
// collects the latest submission of each, with late ones marked, and returns
// feedback that only its student reads. It needs root (useradd); the users
// and groups, named with a random prefix, are removed afterwards.
func TestExchangePermissions(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds agx and makes users (-short)")
	}
	if os.Geteuid() != 0 {
		testenv.Missing(t, "skipping: needs root to make the test's Unix users (run go test as root, as make test does)")
	}
	for _, tool := range []string{"useradd", "userdel", "groupadd", "groupdel", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, "skipping: %s not found (Debian's passwd package)", tool)
		}
	}
	b := make([]byte, 3)
	rand.Read(b)
	prefix := "agxx" + hex.EncodeToString(b)
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(base, "gelu.ipynb") // where the instructor may read it
	if b, err := os.ReadFile(assignSource); err != nil || os.WriteFile(src, b, 0o644) != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "agx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	must := func(name string, args ...string) {
		t.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	staff := prefix + "-staff"
	must("groupadd", staff)
	t.Cleanup(func() { exec.Command("groupdel", staff).Run() })
	mkUser := func(role string, args ...string) *tuser {
		name := prefix + "-" + role
		must("useradd", append([]string{"-M", "-s", "/usr/sbin/nologin"}, append(args, name)...)...)
		t.Cleanup(func() {
			exec.Command("userdel", name).Run()
			exec.Command("groupdel", name).Run() // the user's own group, if userdel left it
		})
		u, err := user.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		tu := &tuser{name: name, uid: uint32(uid), gid: uint32(gid), home: filepath.Join(base, "home", role)}
		gids, _ := u.GroupIds()
		for _, g := range gids {
			n, _ := strconv.Atoi(g)
			tu.groups = append(tu.groups, uint32(n))
		}
		if err := os.MkdirAll(tu.home, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(tu.home, uid, gid); err != nil {
			t.Fatal(err)
		}
		return tu
	}
	if err := os.Mkdir(filepath.Join(base, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	inst := mkUser("inst", "-N", "-g", staff)
	alice, bob, carol := mkUser("alice", "-U"), mkUser("bob", "-U"), mkUser("carol", "-U")

	exRoot := filepath.Join(base, "exchange")
	course := filepath.Join(exRoot, "c1")
	env := []string{"PATH=" + os.Getenv("PATH"), "AGX_EXCHANGE=" + exRoot, "AGX_COURSE=c1", "TZ=UTC"}
	// as runs a command as u in u's home and returns its output and exit status.
	as := func(u *tuser, extraEnv []string, name string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = base
		cmd.Env = append(append([]string{"HOME=" + base, "USER=root"}, env...), extraEnv...)
		if u != nil {
			cmd.Dir = u.home
			cmd.Env = append(append([]string{"HOME=" + u.home, "USER=" + u.name, "LOGNAME=" + u.name}, env...), extraEnv...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: u.groups}}
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("%s %v: %v", name, args, err)
			}
			code = ee.ExitCode()
		}
		return out.String(), code
	}
	agx := func(u *tuser, args ...string) (string, int) { t.Helper(); return as(u, nil, bin, args...) }
	ok := func(u *tuser, args ...string) string {
		t.Helper()
		out, code := agx(u, args...)
		if code != 0 {
			t.Fatalf("agx %v as %v: exit %d\n%s", args, who(u), code, out)
		}
		return out
	}
	fails := func(u *tuser, want string, args ...string) {
		t.Helper()
		out, code := agx(u, args...)
		if code == 0 || !strings.Contains(out, want) {
			t.Errorf("agx %v as %s: exit %d, want a failure saying %q:\n%s", args, who(u), code, want, out)
		}
	}
	// denied runs a shell command as u that must fail.
	denied := func(u *tuser, script string) {
		t.Helper()
		if out, code := as(u, nil, "sh", "-c", script); code == 0 {
			t.Errorf("as %s, %q succeeded:\n%s", u.name, script, out)
		}
	}

	// Root makes the exchange root once; init makes the course for the staff group.
	if err := os.MkdirAll(exRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	fails(alice, "agx exchange init", "fetch", "ps1")
	out := ok(nil, "exchange", "init", "--group", staff)
	if !strings.Contains(out, "made  "+course+"/inbound (3773)") {
		t.Errorf("init:\n%s", out)
	}
	if out := ok(inst, "exchange", "init", "--group", staff); strings.Count(out, "ok    ") != 4 {
		t.Errorf("a second init, by the instructor, should find everything in order:\n%s", out)
	}
	fails(alice, "has not been released", "fetch", "ps1")
	// Without --group, the course gets a group of its own, made by root.
	c2 := prefix + "-c2"
	fails(inst, "groupadd agx-"+c2, "exchange", "init", "--course", c2)
	t.Cleanup(func() { exec.Command("groupdel", "agx-"+c2).Run() })
	if out := ok(nil, "exchange", "init", "--course", c2); !strings.Contains(out, "made  group agx-"+c2) {
		t.Errorf("init without --group:\n%s", out)
	}
	ok(inst, "release", "--deadline", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "ps1", src)

	// A student cannot overwrite the release.
	fails(bob, "permission denied", "release", "ps1", src)
	denied(bob, "echo x > "+course+"/outbound/ps1/gelu.ipynb")
	denied(bob, "rm -f "+course+"/outbound/ps1/gelu.ipynb && test ! -e "+course+"/outbound/ps1/gelu.ipynb")
	denied(bob, "mkdir "+course+"/outbound/ps9")

	// Fetch never overwrites the student's edits.
	ok(alice, "fetch", "ps1")
	nbPath := filepath.Join(alice.home, "ps1", "gelu.ipynb")
	edit := func(u *tuser, path, marker string) {
		t.Helper()
		if out, code := as(u, nil, "sh", "-c", "sed -i 's/YOUR CODE HERE/"+marker+"/; s/[a-z]*-v1/"+marker+"/' "+path); code != 0 {
			t.Fatalf("edit: %s", out)
		}
	}
	edit(alice, nbPath, "alice-v1")
	if out := ok(alice, "fetch", "ps1"); !strings.Contains(out, "kept your gelu.ipynb") {
		t.Errorf("second fetch:\n%s", out)
	}
	if b, _ := os.ReadFile(nbPath); !bytes.Contains(b, []byte("alice-v1")) {
		t.Error("fetch overwrote alice's edit")
	}

	// Several submissions; the latest counts; an unchanged one is not repeated.
	if out := ok(alice, "submit", "ps1"); !strings.Contains(out, "submitted ps1") || !strings.Contains(out, "as "+alice.name) {
		t.Errorf("submit:\n%s", out)
	}
	if out := ok(alice, "submit", "ps1"); !strings.Contains(out, "already submitted at") {
		t.Errorf("an unchanged resubmission:\n%s", out)
	}
	edit(alice, nbPath, "alice-v2")
	ok(alice, "submit", "ps1")

	// Bob cannot see, read or alter alice's submission, nor submit as her.
	ok(bob, "fetch", "ps1")
	edit(bob, filepath.Join(bob.home, "ps1", "gelu.ipynb"), "bob-v1")
	as(bob, []string{"USER=" + alice.name, "LOGNAME=" + alice.name}, bin, "submit", "ps1")
	subs, _ := filepath.Glob(filepath.Join(course, "inbound", alice.name, "ps1", "*", "gelu.ipynb"))
	if len(subs) != 2 {
		t.Fatalf("alice has %d submissions, want 2: %v", len(subs), subs)
	}
	if bobs, _ := filepath.Glob(filepath.Join(course, "inbound", bob.name, "ps1", "*", "gelu.ipynb")); len(bobs) != 1 {
		t.Errorf("bob's submission with USER=alice should be bob's: %v", bobs)
	}
	for _, s := range []string{
		"ls " + course + "/inbound",
		"ls " + course + "/inbound/" + alice.name,
		"cat " + subs[0],
		"echo x >> " + subs[0],
		"rm -rf " + course + "/inbound/" + alice.name + " && test ! -e " + course + "/inbound/" + alice.name,
		"mv " + course + "/inbound/" + alice.name + " " + course + "/inbound/x",
		"touch " + filepath.Dir(subs[0]) + "/extra.ipynb",
		"ls " + course + "/feedback",
	} {
		denied(bob, s)
	}
	deadline := time.Now().UTC()
	time.Sleep(1100 * time.Millisecond)

	// A name taken by another student: carol cannot submit until it is removed, and collect names the culprit.
	if out, code := as(bob, nil, "mkdir", filepath.Join(course, "inbound", carol.name)); code != 0 {
		t.Fatalf("mkdir as bob: %s", out)
	}
	ok(carol, "fetch", "ps1")
	fails(carol, "belongs to "+bob.name, "submit", "ps1")
	out, _ = agx(inst, "collect", "-o", filepath.Join(inst.home, "probe"), "ps1")
	if !strings.Contains(out, "inbound/"+carol.name+" belongs to "+bob.name) {
		t.Errorf("collect should report the taken name:\n%s", out)
	}
	// The fix, as root: init --students gives the directory to its student.
	if out := ok(nil, "exchange", "init", "--group", staff, "--students", carol.name); !strings.Contains(out, "made  "+course+"/inbound/"+carol.name+" (2750), after moving the one "+bob.name+" made") {
		t.Errorf("init --students:\n%s", out)
	}
	ok(carol, "submit", "ps1") // late

	// Bob backdates his submission record: the change time counts.
	bobSub, _ := filepath.Glob(filepath.Join(course, "inbound", bob.name, "ps1", "*", ".agx-submission.json"))
	if len(bobSub) != 1 {
		t.Fatalf("bob's records: %v", bobSub)
	}
	if out, code := as(bob, nil, "sh", "-c", `chmod u+w "$1" && s=$(sed 's/"timestamp": "[^"]*"/"timestamp": "2000-01-01T00:00:00Z"/' "$1") && printf '%s\n' "$s" > "$1"`, "sh", bobSub[0]); code != 0 {
		t.Fatalf("bob's edit: %s", out)
	}

	// Submitting while graded does nothing.
	if out, code := as(alice, []string{"AGX_GRADE_SECRET=/nonexistent"}, bin, "submit", "ps1"); code == 0 || !strings.Contains(out, "agx autograde") {
		t.Errorf("submit under grading: exit %d\n%s", code, out)
	}

	// The instructor collects: the latest of each, late ones marked.
	sub := filepath.Join(inst.home, "submitted")
	t.Log(ok(inst, "collect", "-o", sub, "--deadline", deadline.Format(time.RFC3339Nano), "ps1"))
	if b, err := os.ReadFile(filepath.Join(sub, alice.name, "ps1", "gelu.ipynb")); err != nil || !bytes.Contains(b, []byte("alice-v2")) {
		t.Errorf("collected alice: %v (want her latest, v2)", err)
	}
	for _, c := range []struct {
		u    *tuser
		late bool
	}{{alice, false}, {bob, true}, {carol, true}} {
		if _, err := os.Stat(filepath.Join(sub, c.u.name, "ps1", "timestamp.txt")); err != nil {
			t.Errorf("%s: %v", c.u.name, err)
		}
		_, err := os.Stat(filepath.Join(sub, c.u.name, "ps1", "late.txt"))
		if late := err == nil; late != c.late {
			t.Errorf("%s: late.txt present %v, want %v", c.u.name, late, c.late)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(sub, "collect-ps1.csv"))
	if !strings.Contains(string(csv), "recorded time 2000-01-01") {
		t.Errorf("bob's backdated record should be noted:\n%s", csv)
	}

	// After the deadline, alice makes her latest submission unreadable so
	// that her first would count on time: it counts, but as late.
	if out, code := as(alice, nil, "chmod", "000", subs[1]); code != 0 {
		t.Fatalf("chmod as alice: %s", out)
	}
	sub2 := filepath.Join(inst.home, "submitted2")
	out, _ = agx(inst, "collect", "-o", sub2, "--deadline", deadline.Format(time.RFC3339Nano), "ps1")
	if _, err := os.Stat(filepath.Join(sub2, alice.name, "ps1", "late.txt")); err != nil || !strings.Contains(out, "not valid") {
		t.Errorf("alice's first submission, after she broke the later one, should be late (%v):\n%s", err, out)
	}

	// Feedback reaches only its student.
	fb := filepath.Join(inst.home, "feedback")
	for _, u := range []*tuser{alice, bob} {
		p := filepath.Join(fb, u.name, "ps1", "gelu.html")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("<p>feedback for "+u.name+"</p>"), 0o644)
	}
	os.Chmod(base, 0o755)
	if out, code := agx(inst, "return", "--feedback", fb, "ps1"); code != 0 || !strings.Contains(out, "returned 2 feedback pages of ps1 to 2 students") {
		t.Errorf("return: exit %d\n%s", code, out)
	}
	denied(bob, "cat "+course+"/feedback/"+alice.name+"/ps1/gelu.html")
	denied(bob, "ls "+course+"/feedback/"+alice.name)
	ok(alice, "fetch-feedback", "ps1")
	if b, err := os.ReadFile(filepath.Join(alice.home, "ps1", "feedback", "gelu.html")); err != nil || !bytes.Contains(b, []byte("feedback for "+alice.name)) {
		t.Errorf("alice's feedback: %q, %v", b, err)
	}
	if out := ok(carol, "fetch-feedback", "ps1"); !strings.Contains(out, "no feedback for ps1 yet") {
		t.Errorf("carol's feedback:\n%s", out)
	}
}

func who(u *tuser) string {
	if u == nil {
		return "root"
	}
	return u.name
}
