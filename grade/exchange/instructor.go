package exchange

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Init makes the course's tree (see the package documentation) owned by the
// caller with the group named group ("" for the course's own, agx-COURSE,
// made when run as root; see initGroup), and
// fixes the modes and group of directories that exist. Run as root, it can
// also make each listed student's inbound and feedback directories, owned by
// them, so that nobody can take those names first. It is idempotent and
// returns one line per directory: made, fixed or ok.
func (x Exchange) Init(group string, students []string) ([]string, error) {
	if err := x.check(); err != nil {
		return nil, err
	}
	if len(students) > 0 && os.Geteuid() != 0 {
		return nil, fmt.Errorf("--students needs root (the directories are given to each student)")
	}
	gid, report, err := x.initGroup(group, students)
	if err != nil {
		return report, err
	}
	ensure := func(path string, mode os.FileMode, uid, gid int) error {
		line, err := ensureDir(path, mode, uid, gid)
		if err != nil {
			return err
		}
		report = append(report, line)
		return nil
	}
	open, line, err := x.initRoot()
	if err != nil {
		return nil, err
	}
	if line != "" {
		report = append(report, line)
	}
	uid := -1 // the course's directories may belong to any instructor,
	if open { // but in a root anyone may write, the course directory is root's
		uid = 0
	}
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{x.Dir(), modeCourse}, {x.outbound(), modeOutbound}, {x.inbound(), modeInbound}, {x.feedback(), modeFeedback}} {
		if err := takeOver(d.path, gid); err != nil {
			return report, err
		}
		if err := ensure(d.path, d.mode, uid, gid); err != nil {
			return report, err
		}
		uid = -1
	}
	for _, s := range students {
		u, err := user.Lookup(s)
		if err != nil {
			return report, fmt.Errorf("student %q: %v", s, err)
		}
		if !userPattern.MatchString(s) {
			return report, fail(ErrBadName, "student %q", s)
		}
		suid, _ := strconv.Atoi(u.Uid)
		if err := ensure(x.inbound(s), modeStudentI, suid, gid); err != nil {
			return report, err
		}
		if err := ensure(x.feedback(s), modeStudentF, suid, gid); err != nil {
			return report, err
		}
	}
	report = append(report, fmt.Sprintf("note  every member of group %s can read every submission and feedback page: no student may be in it", groupName(gid)))
	return report, nil
}

// initGroup returns the instructors' group: group, or by default the
// course's own group agx-COURSE, which init makes when run as root. It
// refuses a group that students may share: users, the primary group of
// several users, or one that holds a student listed.
func (x Exchange) initGroup(group string, students []string) (int, []string, error) {
	var report []string
	if group == "" {
		group = "agx-" + x.Course
		if _, err := user.LookupGroup(group); err != nil && os.Geteuid() == 0 {
			if out, err := exec.Command("groupadd", group).CombinedOutput(); err != nil {
				return 0, nil, fmt.Errorf("groupadd %s: %v: %s (or name the instructors' group with --group)", group, err, strings.TrimSpace(string(out)))
			}
			report = append(report, fmt.Sprintf("made  group %s: add the instructors to it (usermod -aG %s NAME; they log in again)", group, group))
		}
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return 0, report, fmt.Errorf("group %q: %v: make it and add the instructors to it (sudo groupadd %s && sudo usermod -aG %s $USER, then log in again), or run init as root, which makes the course's group agx-%s, or name the instructors' group with --group",
			group, err, group, group, x.Course)
	}
	gid, _ := strconv.Atoi(g.Gid)
	if g.Name == "users" || gid == 100 {
		return 0, report, fmt.Errorf("group %s is shared by the users of this machine: students would read every submission; use a group of the instructors only (by default the course's own, agx-%s)", g.Name, x.Course)
	}
	if us := primaryUsers(gid); len(us) > 1 {
		return 0, report, fmt.Errorf("group %s is shared: it is the primary group of %d users (%s): students among them would read every submission; use a group of the instructors only (by default the course's own, agx-%s)", g.Name, len(us), strings.Join(us[:min(len(us), 3)], ", "), x.Course)
	}
	for _, s := range students {
		if u, err := user.Lookup(s); err == nil {
			uid, _ := strconv.Atoi(u.Uid)
			if memberOf(uint32(uid), uint32(gid)) {
				return 0, report, fmt.Errorf("student %s is in group %s: they would read every submission; use a group of the instructors only", s, g.Name)
			}
		}
	}
	return gid, report, nil
}

// primaryUsers lists the users of /etc/passwd whose primary group is gid.
func primaryUsers(gid int) []string {
	b, _ := os.ReadFile("/etc/passwd")
	var names []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, ":"); len(f) > 3 && f[3] == strconv.Itoa(gid) {
			names = append(names, f[0])
		}
	}
	return names
}

// initRoot makes the exchange root when missing, or checks it (see
// checkRoot): in a root others may write, only root may make the course
// directory, so that students can tell it from one a student made.
func (x Exchange) initRoot() (open bool, line string, err error) {
	open, _, err = x.checkRoot()
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(x.Root, 0o755); err != nil {
			return false, "", permission(err, "make the exchange root as root once (mkdir -p "+x.Root+"), or choose another with --exchange")
		}
		return false, "made  " + x.Root + " (0755)", os.Chmod(x.Root, 0o755)
	}
	if err != nil {
		return false, "", err
	}
	if open && os.Geteuid() != 0 {
		return false, "", fail(ErrPermission, "the exchange root %s may be written by others: run `sudo agx exchange init` (as root, it makes the course directory root's, so that students can tell it from one a student made), or make the root 0755", x.Root)
	}
	return open, "", nil
}

// takeOver refuses to make a directory of the course's tree (not a
// student's) out of one that exists and belongs to another user than root,
// the caller or a member of the instructors' group gid: anyone may have
// made it and planted things in it.
func takeOver(path string, gid int) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil // ensureDir makes it, or says why not
	}
	s := statT(st)
	if s.Uid == 0 || int(s.Uid) == os.Geteuid() || memberOf(s.Uid, uint32(gid)) {
		return nil
	}
	return fail(ErrPermission, "%s belongs to %s, who is neither root nor in the instructors' group %s: anyone may have made it, and init never takes over a directory another user made; look at it, remove it (sudo rm -r %s) and run init again",
		path, userName(s.Uid), groupName(gid), path)
}

// testHookChecked, when set (by tests), runs after ensureDir or returnTo has
// looked at the directory path and before it acts on it: the moment a
// student who owns the directory could swap it for a symbolic link or
// another directory.
var testHookChecked func(path string)

// ensureDir makes path a directory with mode, owner uid (-1: the caller
// when made, anyone when it exists) and group gid, or checks and fixes one
// that exists. It changes owner and mode through a handle on the directory
// it checked, opened without following a symbolic link: run as root on a
// student's directory, a swap after the check changes nothing elsewhere.
func ensureDir(path string, mode os.FileMode, uid, gid int) (string, error) {
	fix := func(checked os.FileInfo) error {
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK|noFollow, 0)
		if err != nil {
			return fmt.Errorf("%s changed while agx fixed it (%v): nothing was changed; run again", path, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if !os.SameFile(st, checked) {
			return fmt.Errorf("%s was replaced while agx fixed it: nothing was changed; run again", path)
		}
		if err := f.Chown(uid, gid); err != nil {
			return permission(err, "run `agx exchange init` as the owner of "+path+" or as root")
		}
		// chown may clear the set-group-ID bit, so the mode comes after it.
		return permission(f.Chmod(mode), "run `agx exchange init` as the owner of "+path+" or as root")
	}
	st, err := os.Lstat(path)
	if err == nil && uid != -1 && (!st.IsDir() || int(statT(st).Uid) != uid) {
		aside, err := moveAside(path, st)
		if err != nil {
			return "", err
		}
		line, err := ensureDir(path, mode, uid, gid)
		return fmt.Sprintf("%s, after moving the one %s made to %s (look at it, then remove it)", line, userName(statT(st).Uid), aside), err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(path, 0o700); err != nil {
			return "", permission(err, "run `agx exchange init` as root, or as the owner of "+filepath.Dir(path))
		}
		if st, err = os.Lstat(path); err != nil {
			return "", err
		}
		if testHookChecked != nil {
			testHookChecked(path)
		}
		if err := fix(st); err != nil {
			return "", err
		}
		return fmt.Sprintf("made  %s (%s)", path, modeString(mode)), nil
	case err != nil:
		return "", err
	case !st.IsDir():
		return "", fmt.Errorf("%s exists and is not a directory (a symbolic link is refused): remove it and run again", path)
	}
	s := statT(st)
	if (uid == -1 || int(s.Uid) == uid) && int(s.Gid) == gid && st.Mode()&modeBits == mode {
		return fmt.Sprintf("ok    %s (%s)", path, modeString(mode)), nil
	}
	if testHookChecked != nil {
		testHookChecked(path)
	}
	if err := fix(st); err != nil {
		return "", fmt.Errorf("%s has owner %s, group %d, mode %s, want owner %s, group %d, mode %s: %w",
			path, userName(s.Uid), s.Gid, modeString(st.Mode()&modeBits), ownerName(uid), gid, modeString(mode), err)
	}
	return fmt.Sprintf("fixed %s (%s)", path, modeString(mode)), nil
}

// takenPrefix begins the names of the directories moveAside moved.
const takenPrefix = ".agx-taken-"

// moveAside renames path, a student's directory that another user made
// (or a link, or a file), out of the way, to a hidden name next to it: its
// maker may hold it or a subdirectory open, so it is never reused.
func moveAside(path string, st os.FileInfo) (string, error) {
	aside := filepath.Join(filepath.Dir(path), takenPrefix+filepath.Base(path)+"-"+randHex(4))
	if err := os.Rename(path, aside); err != nil {
		return "", permission(fmt.Errorf("%s belongs to %s: %w", path, userName(statT(st).Uid), err), "run `agx exchange init --students` as root, or as the owner of "+filepath.Dir(path))
	}
	return aside, nil
}

func ownerName(uid int) string {
	if uid == -1 {
		return "any"
	}
	return userName(uint32(uid))
}

// modeString writes a mode as chmod's octal (2755, 3773).
func modeString(m os.FileMode) string {
	n := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		n |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		n |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		n |= 0o1000
	}
	return fmt.Sprintf("%04o", n)
}

// Release is outbound/ASSIGNMENT/.agx-release.json.
type Release struct {
	Course     string            `json:"course"`
	Assignment string            `json:"assignment"`
	Released   time.Time         `json:"released"`
	Deadline   *time.Time        `json:"deadline,omitempty"`
	Files      map[string]string `json:"files"` // name -> SHA-256
}

// Release publishes files (name -> content: the student versions and any
// other files) as the assignment, with an optional deadline. Files of an
// earlier release that are not in files are removed; students keep what they
// fetched.
func (x Exchange) Release(assignment string, files map[string][]byte, deadline *time.Time) (*Release, error) {
	if err := CheckName("assignment", assignment); err != nil {
		return nil, err
	}
	if _, err := x.courseDir(); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("nothing to release")
	}
	for name := range files {
		if name != filepath.Base(name) || strings.HasPrefix(name, ".") || name == "feedback" {
			return nil, fail(ErrBadName, "cannot release a file called %q", name)
		}
	}
	dir := x.outbound(assignment)
	fixMsg := "only the instructors (the exchange's group) or root may release"
	if err := os.Mkdir(dir, 0o775); err == nil {
		if err := os.Chmod(dir, modeOutbound); err != nil {
			return nil, permission(err, fixMsg)
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, permission(err, fixMsg)
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	rel := &Release{Course: x.Course, Assignment: assignment, Released: time.Now().UTC(), Deadline: deadline, Files: map[string]string{}}
	for _, name := range sortedKeys(files) {
		if err := writeAtomic(filepath.Join(dir, name), files[name], 0o664); err != nil {
			return nil, permission(err, fixMsg)
		}
		rel.Files[name] = Sum(files[name])
	}
	old, _ := visibleFiles(dir, "", false)
	for _, name := range old {
		if _, ok := files[name]; !ok {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return nil, err
			}
		}
	}
	if err := writeAtomic(filepath.Join(dir, ReleaseFile), marshal(rel), 0o664); err != nil {
		return nil, permission(err, fixMsg)
	}
	return rel, nil
}

// ReadRelease returns the release record of assignment.
func (x Exchange) ReadRelease(assignment string) (*Release, error) {
	if err := CheckName("assignment", assignment); err != nil {
		return nil, err
	}
	if _, err := x.courseDir(); err != nil {
		return nil, err
	}
	var rel Release
	if err := readJSON(x.outbound(assignment, ReleaseFile), &rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, x.notReleased(assignment)
		}
		return nil, permission(err, "the release is not readable: ask the instructor to run `agx exchange init` and release again")
	}
	return &rel, nil
}

// Submission is .agx-submission.json, written by the student's agx submit.
type Submission struct {
	Student    string            `json:"student"`
	UID        int               `json:"uid"`
	Course     string            `json:"course"`
	Assignment string            `json:"assignment"`
	Time       time.Time         `json:"timestamp"`
	Files      map[string]string `json:"files"` // name -> SHA-256
}

// Collected is one student's collected submission.
type Collected struct {
	Student     string
	Time        time.Time // when it was submitted (see Collect)
	Recorded    time.Time // the time its record claims
	Late        bool
	LateBy      time.Duration
	Files       []string
	Submissions int    // how many the student made
	Note        string // why the time or an earlier submission was not taken as is
}

// CollectResult is what Collect did.
type CollectResult struct {
	Deadline *time.Time
	Moved    bool // the deadline was given to Collect and is now the release's
	Students []Collected
	Problems []string // entries ignored, with why
	CSV      string   // the path of the class table
}

// Collect copies the latest valid submission of every student into
// nbgrader's layout, out/STUDENT/ASSIGNMENT/, with timestamp.txt and, for a
// late one, late.txt, and writes out/collect-ASSIGNMENT.csv. deadline
// overrides the release's, and is recorded in the release (Moved) so that
// students see it. A submission counts when its directory and files
// are owned by the student whose directory holds it, it is complete (its
// record written last) and every checksum matches; the latest counts. Its
// time is the recorded one unless a file changed more than TimeTolerance
// after it (ctime), then the time of that change.
func (x Exchange) Collect(assignment, out string, deadline *time.Time) (*CollectResult, error) {
	if err := CheckName("assignment", assignment); err != nil {
		return nil, err
	}
	gid, err := x.courseDir()
	if err != nil {
		return nil, err
	}
	res := &CollectResult{Deadline: deadline}
	var released map[string]bool // nil: every notebook
	if rel, err := x.ReadRelease(assignment); err == nil {
		released = releasedNotebooks(rel)
		if res.Deadline == nil {
			res.Deadline = rel.Deadline
		} else if err := x.moveDeadline(rel, res); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, ErrNotReleased) {
		return nil, err
	}
	ents, err := os.ReadDir(x.inbound())
	if err != nil {
		return nil, permission(err, fmt.Sprintf("collect as an instructor: a member of group %s (the exchange's group) or root", groupName(gid)))
	}
	if err := trustedPath(out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o750); err != nil {
		return nil, err
	}
	if err := privateDir(out, "collect into"); err != nil {
		return nil, err
	}
	var probs problemList
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), takenPrefix) {
			continue // moved aside by init, which said so
		}
		c, err := x.collectOne(e.Name(), assignment, released, &probs)
		if err != nil {
			probs.add(e.Name(), err.Error())
			continue
		}
		if c == nil {
			continue
		}
		if res.Deadline != nil && c.sub.Time.After(*res.Deadline) {
			c.Late, c.LateBy = true, c.sub.Time.Sub(*res.Deadline)
		}
		if err := writeCollected(out, assignment, c); err != nil {
			res.Problems = probs.list()
			return res, err
		}
		res.Students = append(res.Students, c.Collected)
	}
	res.Problems = probs.list()
	sort.Slice(res.Students, func(i, j int) bool { return res.Students[i].Student < res.Students[j].Student })
	res.CSV = filepath.Join(out, "collect-"+assignment+".csv")
	return res, writeCollectCSV(res.CSV, res)
}

// collectOne checks the entry name of inbound/ and returns the student's
// latest valid submission; nil when there is none.
func (x Exchange) collectOne(name, assignment string, released map[string]bool, probs *problemList) (*collected, error) {
	path := x.inbound(name)
	st, err := os.Lstat(path)
	if err != nil {
		return nil, errors.New(shown(err.Error()))
	}
	owner := statT(st).Uid
	junk := "entries of inbound/ made by " + userName(owner)
	switch {
	case !st.IsDir():
		probs.add(junk, fmt.Sprintf("%s is not a directory (made by %s): ignored; remove it", shown(path), userName(owner)))
		return nil, nil
	case userName(owner) != name:
		probs.add(junk, fmt.Sprintf("%s belongs to %s, not to a user %s: ignored; remove it (rm -r %s)", shown(path), userName(owner), shown(name), shown(path)))
		return nil, nil
	}
	r := &subReader{student: name, uid: owner, released: released, budget: readBudget}
	return x.latest(r, assignment, probs)
}

// releasedNotebooks is the set of notebooks the release names; nil when it
// names none.
func releasedNotebooks(rel *Release) map[string]bool {
	var m map[string]bool
	for n := range rel.Files {
		if strings.HasSuffix(n, ".ipynb") {
			if m == nil {
				m = map[string]bool{}
			}
			m[n] = true
		}
	}
	return m
}

// problemList keeps problems, at most maxShown of each key (a student, the
// junk of one user), and counts the others.
type problemList struct {
	lines []string
	n     map[string]int
	over  []string // keys with more than maxShown, in order
}

const maxShown = 5

func (p *problemList) add(key, line string) {
	if p.n == nil {
		p.n = map[string]int{}
	}
	p.n[key]++
	switch {
	case p.n[key] <= maxShown:
		p.lines = append(p.lines, line)
	case p.n[key] == maxShown+1:
		p.over = append(p.over, key)
	}
}

// list returns the problems shown and, for each key with more, a summary.
func (p *problemList) list() []string {
	l := p.lines
	for _, k := range p.over {
		l = append(l, fmt.Sprintf("%s: %d more problems like these, not shown", shown(k), p.n[k]-maxShown))
	}
	return l
}

// moveDeadline records res.Deadline, which collect --deadline chose, in
// the release when it differs from the release's: students' submit and
// status then say what collect rules.
func (x Exchange) moveDeadline(rel *Release, res *CollectResult) error {
	if rel.Deadline != nil && rel.Deadline.Equal(*res.Deadline) {
		return nil
	}
	res.Moved, rel.Deadline = true, res.Deadline
	err := writeAtomic(x.outbound(rel.Assignment, ReleaseFile), marshal(rel), 0o664)
	return permission(err, "collect --deadline records the deadline in the release: collect as an instructor (the exchange's group) or root")
}

type collected struct {
	Collected
	sub   Submission
	dir   string
	files map[string][]byte
}

// latest finds the student's latest valid submission of assignment; nil
// when there is none.
func (x Exchange) latest(r *subReader, assignment string, probs *problemList) (*collected, error) {
	base := x.inbound(r.student, assignment)
	bst, err := os.Lstat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, permission(err, "cannot read "+base)
	}
	if !bst.IsDir() || statT(bst).Uid != r.uid {
		return nil, fmt.Errorf("%s is not a directory of %s (agx makes it one): nothing in it counted", base, r.student)
	}
	ents, err := os.ReadDir(base)
	if err != nil {
		return nil, permission(err, "cannot read "+base)
	}
	var stamps []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			stamps = append(stamps, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(stamps)))
	var broken time.Time // the last change of the later submissions passed over
	brokenDir := ""
	for _, s := range stamps {
		dir := filepath.Join(base, s)
		c, err := (*collected)(nil), fmt.Errorf("%s: a name with control characters is no submission of agx", shown(dir))
		if printable(s) {
			c, err = r.readSubmission(dir)
		}
		if err != nil {
			probs.add(r.student, fmt.Sprintf("%s: %v: not counted", r.student, err))
			if d := lastChange(dir); d.After(broken) {
				broken, brokenDir = d, shown(dir)
			}
			continue
		}
		c.Submissions = len(stamps)
		// A later submission that is not valid may have been the latest
		// at the deadline, broken after it (a byte appended, a record
		// removed) so that this one counts: its last change counts.
		c.delay(broken, fmt.Sprintf("a later submission, %s, is not valid and changed at %s: that change counts", brokenDir, formatTime(broken)))
		// Removing a later submission, or renaming a directory of
		// submissions prepared under another name into place, changes
		// base (its ctime) but not the submissions left: that change
		// counts, so that nobody chooses among earlier submissions after
		// the deadline by deleting the others.
		d := ctime(bst)
		c.delay(d, fmt.Sprintf("%s changed at %s, after it (a later submission removed, or the directory renamed into place): the change counts", base, formatTime(d)))
		return c, nil
	}
	return nil, nil
}

// delay makes t the submission's time when it is later than its own, and
// notes why. (agx submit changes neither the directory of submissions nor
// an earlier submission after a submission's record is written.)
func (c *collected) delay(t time.Time, why string) {
	if !t.After(c.Time) {
		return
	}
	c.Note = joinNote(c.Note, fmt.Sprintf("submitted at %s, but %s", formatTime(c.Time), why))
	c.Time, c.sub.Time = t, t
}

// lastChange is the latest change time (ctime) of dir and of the entries
// in it that can be looked at (at most MaxSubmissionFiles of them).
func lastChange(dir string) time.Time {
	st, err := os.Lstat(dir)
	if err != nil {
		return time.Time{}
	}
	t := ctime(st)
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK|noFollow, 0)
	if err != nil {
		return t
	}
	defer f.Close()
	names, _ := f.Readdirnames(MaxSubmissionFiles)
	for _, n := range names {
		if st, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			t = later(t, ctime(st))
		}
	}
	return t
}

// subReader reads the submissions of one student: only the notebooks the
// release names (all when released is nil), and at most budget bytes in all.
type subReader struct {
	student  string
	uid      uint32
	released map[string]bool
	budget   int64
}

// readBudget is how much collect reads of one student's submissions
// before it passes over the rest: the latest submission and one more.
const readBudget = 2 * MaxSubmissionBytes

// readSubmission reads and verifies one submission directory.
func (r *subReader) readSubmission(dir string) (*collected, error) {
	st, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() || statT(st).Uid != r.uid {
		return nil, fmt.Errorf("%s is not a directory of %s", dir, r.student)
	}
	changed := ctime(st)
	var sub Submission
	b, mst, err := readRegular(filepath.Join(dir, SubmissionFile), 1<<20)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is incomplete (no %s)", dir, SubmissionFile)
		}
		return nil, err
	}
	if err := json.Unmarshal(b, &sub); err != nil {
		return nil, fmt.Errorf("%s: %v", SubmissionFile, err)
	}
	if statT(mst).Uid != r.uid {
		return nil, fmt.Errorf("%s/%s is not owned by %s", dir, SubmissionFile, r.student)
	}
	changed = later(changed, ctime(mst))
	read, t, err := r.plan(dir, sub)
	if err != nil {
		return nil, err
	}
	changed = later(changed, t)
	c := &collected{dir: dir, sub: sub, files: map[string][]byte{}}
	for _, n := range read {
		b, fst, err := readRegular(filepath.Join(dir, n), MaxSubmissionBytes)
		if err != nil {
			return nil, err
		}
		if statT(fst).Uid != r.uid {
			return nil, fmt.Errorf("%s is not owned by %s", filepath.Join(dir, n), r.student)
		}
		if Sum(b) != sub.Files[n] {
			return nil, fmt.Errorf("%s does not match its checksum (changed after it was submitted)", filepath.Join(dir, n))
		}
		changed = later(changed, ctime(fst))
		c.files[n] = b
		c.Files = append(c.Files, n)
	}
	c.Student, c.Recorded, c.Time = r.student, sub.Time, sub.Time
	if changed.After(sub.Time.Add(TimeTolerance)) {
		c.Time = changed
		c.Note = fmt.Sprintf("recorded time %s, but its files changed at %s: the change counts", formatTime(sub.Time), formatTime(changed))
	}
	if len(read) < len(sub.Files) {
		c.Note = joinNote(c.Note, fmt.Sprintf("not collected (not released): %d of its notebooks", len(sub.Files)-len(read)))
	}
	c.sub.Time = c.Time
	return c, nil
}

// plan checks, before anything is read, that the submission's files are
// those its record lists, regular, not sparse and within the limits, and
// returns the released ones, to read, and their last change.
func (r *subReader) plan(dir string, sub Submission) (read []string, changed time.Time, err error) {
	names, err := visibleFiles(dir, "", true)
	if err != nil {
		return nil, changed, err
	}
	for _, n := range names {
		if _, ok := sub.Files[n]; !ok {
			return nil, changed, fmt.Errorf("%s holds %q, which its record does not list", dir, n)
		}
	}
	if len(sub.Files) > MaxSubmissionFiles {
		return nil, changed, fmt.Errorf("%s lists %d files, more than the %d a submission may hold", SubmissionFile, len(sub.Files), MaxSubmissionFiles)
	}
	var total, toRead int64
	var sparse error
	for _, n := range sortedKeys(sub.Files) {
		if n != filepath.Base(n) || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".ipynb") || !printable(n) {
			return nil, changed, fmt.Errorf("%s lists a bad file name %q", SubmissionFile, n)
		}
		st, err := os.Lstat(filepath.Join(dir, n))
		if err != nil {
			return nil, changed, err
		}
		if !st.Mode().IsRegular() {
			return nil, changed, fmt.Errorf("%s is not a regular file", filepath.Join(dir, n))
		}
		if size := st.Size(); size > 1<<20 && statT(st).Blocks*512 < size/16 && sparse == nil {
			sparse = fmt.Errorf("%s is a sparse file (%d bytes, almost none on disk): no notebook of agx submit", filepath.Join(dir, n), size)
		}
		total += st.Size()
		changed = later(changed, ctime(st))
		if r.released == nil || r.released[n] {
			read, toRead = append(read, n), toRead+st.Size()
		}
	}
	if total > MaxSubmissionBytes {
		return nil, changed, fmt.Errorf("%s: its notebooks add up to more than the %d MiB a submission may hold", dir, MaxSubmissionBytes>>20)
	}
	if sparse != nil {
		return nil, changed, sparse
	}
	if len(read) == 0 {
		return nil, changed, fmt.Errorf("%s holds none of the released notebooks", dir)
	}
	if toRead > r.budget {
		return nil, changed, fmt.Errorf("%s was not read: collect reads at most %d MiB of one student's submissions", dir, readBudget>>20)
	}
	r.budget -= toRead
	return read, changed, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// writeCollected writes one student's collected submission in nbgrader's
// layout, replacing an earlier collection.
func writeCollected(out, assignment string, c *collected) error {
	dir := filepath.Join(out, c.Student, assignment)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	for n, b := range c.files {
		if err := writeNew(filepath.Join(dir, n), b, 0o640); err != nil {
			return err
		}
	}
	// nbgrader's timestamp.txt: the time, with its zone.
	if err := writeNew(filepath.Join(dir, "timestamp.txt"), []byte(c.Time.UTC().Format("2006-01-02 15:04:05.000000 UTC")+"\n"), 0o640); err != nil {
		return err
	}
	if c.Late {
		return writeNew(filepath.Join(dir, "late.txt"), []byte(fmt.Sprintf("late by %s (%.0f seconds)\n", lateBy(c.LateBy), c.LateBy.Seconds())), 0o640)
	}
	return nil
}

func writeCollectCSV(path string, res *CollectResult) error {
	var b strings.Builder
	w := csv.NewWriter(&b)
	deadline := ""
	if res.Deadline != nil {
		deadline = res.Deadline.UTC().Format(time.RFC3339)
	}
	_ = w.Write([]string{"student", "timestamp", "deadline", "late", "late_seconds", "submissions", "files", "note"})
	for _, c := range res.Students {
		lateSec := ""
		if c.Late {
			lateSec = strconv.FormatFloat(c.LateBy.Seconds(), 'f', 0, 64)
		}
		files, _ := json.Marshal(c.Files)
		row := []string{c.Student, c.Time.UTC().Format(time.RFC3339Nano), deadline, strconv.FormatBool(c.Late), lateSec,
			strconv.Itoa(c.Submissions), string(files), c.Note}
		for i := range row {
			row[i] = csvCell(row[i])
		}
		_ = w.Write(row)
	}
	w.Flush()
	return writeAtomic(path, []byte(b.String()), 0o640)
}

// csvCell neutralises a cell that a spreadsheet would take for a formula
// (one starting with = + - @, a tab or a carriage return) by prefixing it
// with ', as OWASP advises for CSV injection.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// privateDir checks that dir, which collect writes into or return reads
// from (as the instructor, maybe as root), belongs to the caller or root and
// is not writable by others: in a directory such as /tmp that a student can
// write, they could plant symbolic links there (submitted/alice -> a
// directory of the instructor's, which collect would empty and fill), or
// make the directory theirs before the instructor does.
func privateDir(dir, what string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	s := statT(st)
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if (int(s.Uid) != os.Geteuid() && s.Uid != 0) || st.Mode().Perm()&0o002 != 0 {
		return fmt.Errorf("%s belongs to %s and has mode %s: %s a directory of yours that others cannot write (in one they can, a student could plant links that lead agx to other places)",
			dir, userName(s.Uid), modeString(st.Mode()&modeBits), what)
	}
	return nil
}

func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return g.Name
	}
	return "gid " + strconv.Itoa(gid)
}

// ReturnResult is what Return did.
type ReturnResult struct {
	Returned map[string][]string // student -> pages
	Problems []string
}

// Return copies each student's feedback pages, from nbgrader's layout
// dir/STUDENT/ASSIGNMENT/*.html, into the student's feedback directory in
// the exchange. The directory must belong to the student (their first fetch
// or submit makes it; run as root, Return makes it for them). Pages are
// written without following symbolic links out of it.
func (x Exchange) Return(assignment, dir string) (*ReturnResult, error) {
	if err := CheckName("assignment", assignment); err != nil {
		return nil, err
	}
	gid, err := x.courseDir()
	if err != nil {
		return nil, err
	}
	if err := trustedPath(dir); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%v (want the feedback of agx feedback --nbgrader %s: DIR/STUDENT/%s/NOTEBOOK.html)", err, assignment, assignment)
	}
	if err := privateDir(dir, "return feedback from"); err != nil {
		return nil, err
	}
	res := &ReturnResult{Returned: map[string][]string{}}
	for _, e := range ents {
		student := e.Name()
		if !e.IsDir() || strings.HasPrefix(student, ".") {
			continue
		}
		pages, err := visibleFiles(filepath.Join(dir, student, assignment), ".html", true)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && len(pages) == 0) {
			continue
		}
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		if err := x.returnTo(student, assignment, gid, filepath.Join(dir, student, assignment), pages); err != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", student, err))
			continue
		}
		res.Returned[student] = pages
	}
	return res, nil
}

func (x Exchange) returnTo(student, assignment string, gid int, src string, pages []string) error {
	u, err := user.Lookup(student)
	if err != nil {
		return fmt.Errorf("no such user (%v): feedback goes to the user of the submission's name", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	area := x.feedback(student)
	st, err := os.Lstat(area)
	if errors.Is(err, fs.ErrNotExist) {
		if os.Geteuid() != 0 {
			return fmt.Errorf("%s has no feedback directory yet: the student's first `agx fetch` or `agx submit` makes it; or return as root, which makes it for them", student)
		}
		if _, err := ensureDir(area, modeStudentF, uid, gid); err != nil {
			return err
		}
		st, err = os.Lstat(area)
	}
	if err != nil {
		return permission(err, "return as an instructor (group "+groupName(gid)+") or root")
	}
	if !st.IsDir() || int(statT(st).Uid) != uid {
		return fmt.Errorf("%s belongs to %s, not to %s: nothing returned; remove it (rm -r %s) and return again", area, userName(statT(st).Uid), student, area)
	}
	if testHookChecked != nil {
		testHookChecked(area)
	}
	root, err := os.OpenRoot(area)
	if err != nil {
		return permission(err, "return as an instructor (group "+groupName(gid)+") or root")
	}
	defer root.Close()
	// The student owns area and may have swapped it for a symbolic link (to
	// another student's area, or anywhere when returned as root) since it
	// was checked: write only into the directory that was checked.
	if opened, err := root.Stat("."); err != nil || !os.SameFile(opened, st) {
		return fmt.Errorf("%s was replaced while feedback was returned: nothing returned; return again (if it happens again, look at who swaps it)", area)
	}
	if err := root.Mkdir(assignment, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return permission(err, "return as an instructor (group "+groupName(gid)+") or root")
	}
	if st, err := root.Lstat(assignment); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a directory: remove it and return again", filepath.Join(area, assignment))
	} else if !ownTrusted(st) || st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s belongs to %s and has mode %s, not made by agx return: nothing returned (whoever made it might read what is written there); remove it (rm -r %s) and return again",
			filepath.Join(area, assignment), userName(statT(st).Uid), modeString(st.Mode()&modeBits), filepath.Join(area, assignment))
	}
	for _, p := range pages {
		b, _, err := readRegular(filepath.Join(src, p), 64<<20)
		if err != nil {
			return err
		}
		tmp := filepath.Join(assignment, "."+p+"."+randHex(6)+".tmp")
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if err == nil {
			err = f.Chmod(0o644) // whatever the umask
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = root.Rename(tmp, filepath.Join(assignment, p))
		}
		if err != nil {
			root.Remove(tmp)
			return err
		}
	}
	return nil
}
