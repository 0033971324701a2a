// Package exchange moves assignment notebooks between an instructor and the
// students of a course through a directory on one machine (or a volume that
// every user's server mounts at the same path), as nbgrader's exchange does:
// the instructor releases the student versions, each student fetches a copy
// into their workspace and submits it, the instructor collects the latest
// submission of each student into nbgrader's submitted/ layout and returns
// each student's feedback pages.
//
// # Layout
//
// Under ROOT/COURSE/ (ROOT: $AGX_EXCHANGE, default /srv/agx/exchange;
// COURSE: $AGX_COURSE, default agx), made by Init and owned by the
// instructor with the instructors' group G:
//
//	outbound/                 2775  released assignments, readable by all, written by the instructors
//	outbound/ASSIGNMENT/      2775  the student notebooks and .agx-release.json
//	inbound/                  3773  students create their own directory; nobody else may list it
//	inbound/STUDENT/          2750  owned by the student, group G
//	inbound/STUDENT/ASSIGNMENT/TIMESTAMP/    one submission: notebooks and .agx-submission.json
//	feedback/                 3773  as inbound
//	feedback/STUDENT/         2770  owned by the student, group G; the instructor writes into it
//	feedback/STUDENT/ASSIGNMENT/*.html
//
// G is the course's own group (agx-COURSE by default), never one students
// share. ROOT must not be writable by others unless it has the sticky bit,
// and then the course directory is root's: every command checks, so that no
// student can put their own course directory in its place.
//
// File permissions keep students apart, not trust: a student is who the
// operating system says runs the program (its real user id), every file of a
// submission must be owned by that user, and a submission's time is checked
// against the change times (ctime) of its files, which only the kernel sets.
// See docs/grading.md ("The exchange") for what a student can and cannot do.
//
// # Cell helpers
//
// Fetch, Submit, FetchFeedback and Status are for notebook cells: each runs
// the operation for the assignment named, with the exchange of the
// environment, and shows a short HTML status (plain text outside a notebook).
// They refuse to run while agx autograde grades the notebook.
package exchange

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/goagx/agx/grade"
)

// Defaults and the environment variables that override them.
const (
	DefaultRoot   = "/srv/agx/exchange"
	DefaultCourse = "agx"
	RootEnv       = "AGX_EXCHANGE"
	CourseEnv     = "AGX_COURSE"
)

// File names inside the exchange.
const (
	ReleaseFile    = ".agx-release.json"    // in outbound/ASSIGNMENT/
	SubmissionFile = ".agx-submission.json" // in each submission directory
)

// MaxSubmissionBytes bounds the notebooks of one submission together, and
// MaxSubmissionFiles their number: submit refuses more, and collect does not
// count a submission made by hand with more (sparse files cost a student no
// disk, but collect would read and write them in full).
const (
	MaxSubmissionBytes = 64 << 20
	MaxSubmissionFiles = 256
)

// TimeTolerance is how far a submission's recorded time may lie before the
// last change of its files (ctime) before collect distrusts it and uses the
// change time instead. It is the most a student can backdate a submission.
const TimeTolerance = 2 * time.Second

// Errors that callers can test with errors.Is; the returned errors wrap them
// with the path and the fix.
var (
	ErrNoExchange  = errors.New("no exchange")
	ErrNotReleased = errors.New("not released")
	ErrPermission  = errors.New("permission denied")
	ErrGrading     = errors.New("not available while the notebook is being graded")
	ErrBadName     = errors.New("bad name")
)

// kindError is an error of one of the kinds above, with its own message.
type kindError struct {
	kind  error
	msg   string
	cause error // nil, or the error it came from
}

func (e *kindError) Error() string { return e.msg }

// Unwrap lets errors.Is see the kind and the cause.
func (e *kindError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

func fail(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Modes of the exchange's directories (see the package documentation).
const (
	modeCourse   = os.ModeSetgid | 0o755
	modeOutbound = os.ModeSetgid | 0o775 // every instructor may release
	modeInbound  = os.ModeSetgid | os.ModeSticky | 0o773
	modeFeedback = os.ModeSetgid | os.ModeSticky | 0o773
	modeStudentI = os.ModeSetgid | 0o750 // inbound/STUDENT
	modeStudentF = os.ModeSetgid | 0o770 // feedback/STUDENT
	modeBits     = os.ModePerm | os.ModeSetgid | os.ModeSticky | os.ModeSetuid
)

// Exchange is one course's exchange: the directory Root/Course.
type Exchange struct {
	Root   string // the exchange root, shared by courses
	Course string // the course id
}

// FromEnv returns the exchange named by $AGX_EXCHANGE and $AGX_COURSE, or the
// defaults.
func FromEnv() Exchange {
	x := Exchange{Root: os.Getenv(RootEnv), Course: os.Getenv(CourseEnv)}
	if x.Root == "" {
		x.Root = DefaultRoot
	}
	if x.Course == "" {
		x.Course = DefaultCourse
	}
	return x
}

// namePattern is what a course or assignment may be called: one path
// element, not hidden.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// userPattern is what a student's user name may be (it names directories and
// gradebook entries, as agx autograde's student ids).
var userPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._@+-]*$`)

// CheckName returns an error unless s is a valid course or assignment name.
func CheckName(what, s string) error {
	if len(s) > 128 || !namePattern.MatchString(s) {
		return fail(ErrBadName, "%s %q may hold letters, digits and . _ + - (not first), one path element", what, s)
	}
	return nil
}

func (x Exchange) check() error {
	if x.Root == "" {
		return fail(ErrNoExchange, "the exchange root is empty (set --exchange or %s)", RootEnv)
	}
	return CheckName("course", x.Course)
}

// Dir returns the course's directory in the exchange.
func (x Exchange) Dir() string { return filepath.Join(x.Root, x.Course) }

func (x Exchange) outbound(a ...string) string {
	return filepath.Join(append([]string{x.Dir(), "outbound"}, a...)...)
}
func (x Exchange) inbound(a ...string) string {
	return filepath.Join(append([]string{x.Dir(), "inbound"}, a...)...)
}
func (x Exchange) feedback(a ...string) string {
	return filepath.Join(append([]string{x.Dir(), "feedback"}, a...)...)
}

// courseDir checks that the course's tree exists, and that only the
// instructors can have made it or replace it, and returns the instructors'
// group (the course directory's group).
func (x Exchange) courseDir() (gid int, err error) {
	if err := x.check(); err != nil {
		return 0, err
	}
	open, rootOwner, err := x.checkRoot()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if st, err := os.Lstat(x.Dir()); err == nil {
		if err := x.trustedCourse(st, open, rootOwner); err != nil {
			return 0, err
		}
	}
	st, err := os.Stat(x.outbound())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, fail(ErrNoExchange, "no exchange: %s does not exist: the instructor makes it with `agx exchange init`; or name the exchange with --exchange DIR (%s) and the course with --course ID (%s)",
				x.Dir(), RootEnv, CourseEnv)
		}
		return 0, permission(err, "the exchange is not readable to you: ask the instructor to run `agx exchange init` (it sets the modes)")
	}
	return int(statT(st).Gid), nil
}

// checkRoot refuses an exchange root in which others could replace the
// course directory: one that group or others may write, without the
// sticky bit. open reports whether others may make entries in it (with the
// sticky bit), and owner is its owner.
func (x Exchange) checkRoot() (open bool, owner uint32, err error) {
	st, err := os.Stat(x.Root)
	if err != nil {
		return false, 0, err
	}
	open = st.Mode().Perm()&0o022 != 0
	if open && st.Mode()&os.ModeSticky == 0 {
		return open, 0, fail(ErrPermission, "the exchange root %s has mode %s without the sticky bit: whoever may write it can rename the course directory away and put their own in its place; make it root's and 0755 (sudo chown root: %s && sudo chmod 0755 %s), or set the sticky bit (sudo chmod +t %s)",
			x.Root, modeString(st.Mode()&modeBits), x.Root, x.Root, x.Root)
	}
	return open, statT(st).Uid, nil
}

// trustedCourse checks, for fetch, submit and the others, that the course
// directory is one only the instructors could have made and may change: a
// directory that group and others may not write and, in a root others may
// write (where anyone may make it), of root or of the root's owner.
func (x Exchange) trustedCourse(st fs.FileInfo, open bool, rootOwner uint32) error {
	s := statT(st)
	switch {
	case !st.IsDir():
		return fail(ErrPermission, "%s is not a directory (a symbolic link is refused): ask the instructor to look at it", x.Dir())
	case st.Mode().Perm()&0o022 != 0:
		return fail(ErrPermission, "%s has mode %s: others may change the course's tree; ask the instructor to run `agx exchange init` (it makes it 2755)", x.Dir(), modeString(st.Mode()&modeBits))
	case open && s.Uid != 0 && s.Uid != rootOwner:
		return fail(ErrPermission, "%s belongs to %s, in an exchange root that anyone may write: anyone may have made it, so it is not used; ask the instructor to run `sudo agx exchange init` (as root, which makes the course directory root's)", x.Dir(), userName(s.Uid))
	}
	return nil
}

// memberOf reports whether the user uid is in the group gid.
func memberOf(uid, gid uint32) bool {
	u, err := user.LookupId(strconv.Itoa(int(uid)))
	if err != nil {
		return false
	}
	if u.Gid == strconv.Itoa(int(gid)) {
		return true
	}
	gids, _ := u.GroupIds()
	for _, g := range gids {
		if g == strconv.Itoa(int(gid)) {
			return true
		}
	}
	return false
}

// permission wraps a permission error with what to do; other errors pass.
func permission(err error, fix string) error {
	if errors.Is(err, fs.ErrPermission) {
		return &kindError{ErrPermission, fmt.Sprintf("%v; %s", err, fix), err}
	}
	return err
}

func statT(st fs.FileInfo) *syscall.Stat_t { return st.Sys().(*syscall.Stat_t) }

func ctime(st fs.FileInfo) time.Time {
	s := statT(st)
	return time.Unix(int64(s.Ctim.Sec), int64(s.Ctim.Nsec))
}

// Me is the user running the program, from the operating system (the real
// user id), never from the environment.
type Me struct {
	Name string
	UID  int
	Home string
}

// CurrentUser returns the user that runs the program, as a student.
func CurrentUser() (Me, error) {
	uid := os.Getuid()
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return Me{}, fmt.Errorf("who are you? user id %d has no name: %v", uid, err)
	}
	if !userPattern.MatchString(u.Username) {
		return Me{}, fail(ErrBadName, "user name %q cannot name a submission (letters, digits and . _ @ + -)", u.Username)
	}
	return Me{u.Username, uid, u.HomeDir}, nil
}

// refuseGrading returns ErrGrading while agx autograde runs the notebook (it
// names the test cells' secret in the environment, and grades as users
// called agx-grader-N): a student's cell that submits must do nothing there.
func refuseGrading(me *Me) error {
	if os.Getenv(grade.SecretEnv) != "" || (me != nil && strings.HasPrefix(me.Name, "agx-grader-")) {
		return fail(ErrGrading, "not available while agx autograde grades this notebook: nothing was fetched or submitted")
	}
	return nil
}

// Released lists the released assignments, sorted.
func (x Exchange) Released() ([]string, error) {
	ents, err := os.ReadDir(x.outbound())
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && namePattern.MatchString(e.Name()) {
			if _, err := os.Stat(x.outbound(e.Name(), ReleaseFile)); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// notReleased is the error for an assignment without a release, with the
// ones that are released.
func (x Exchange) notReleased(assignment string) error {
	names, _ := x.Released()
	have := "none is released yet"
	if len(names) > 0 {
		have = "released: " + strings.Join(names, ", ")
	}
	return fail(ErrNotReleased, "nothing to fetch: %q has not been released in course %s (%s)", assignment, x.Course, have)
}

// printable reports whether name holds no control or formatting characters
// (newlines, terminal escapes, bidirectional overrides): names that students
// choose are shown to instructors in terminals and tables.
func printable(name string) bool {
	if !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// shown is s for a message, quoted when it is not printable.
func shown(s string) string {
	if printable(s) {
		return s
	}
	return strconv.Quote(s)
}

// userName returns the name of the user id, or "uid N".
func userName(uid uint32) string {
	if u, err := user.LookupId(strconv.Itoa(int(uid))); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(int(uid))
}

// stampLayout names a submission directory: its time in UTC, sortable.
const stampLayout = "20060102T150405.000000000Z"

// formatTime is how times are shown to people.
func formatTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05 MST") }

// lateBy formats how late d is, to the second.
func lateBy(d time.Duration) string { return d.Round(time.Second).String() }
