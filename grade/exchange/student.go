package exchange

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// FetchResult is what Fetch did.
type FetchResult struct {
	Assignment string
	Dir        string   // the workspace's assignment directory
	Fetched    []string // files copied
	Kept       []string // files the student already had, left as they are
	Differs    []string // of Kept, those that differ from the release (edited, or released anew)
	Deadline   *time.Time
	Warnings   []string
}

// Fetch copies the released assignment into workspace/ASSIGNMENT/. A file
// that is already there is never overwritten (the student's edits stay);
// Kept lists them. It also makes the student's inbound and feedback
// directories when they are missing, so that nobody else can take them.
func (x Exchange) Fetch(workspace, assignment string) (*FetchResult, error) {
	me, err := CurrentUser()
	if err != nil {
		return nil, err
	}
	if err := refuseGrading(&me); err != nil {
		return nil, err
	}
	rel, err := x.ReadRelease(assignment)
	if err != nil {
		return nil, err
	}
	res := &FetchResult{Assignment: assignment, Dir: filepath.Join(workspace, assignment), Deadline: rel.Deadline}
	if err := os.MkdirAll(res.Dir, 0o755); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(rel.Files) {
		dst := filepath.Join(res.Dir, name)
		if _, err := os.Lstat(dst); err == nil {
			res.Kept = append(res.Kept, name)
			continue
		}
		b, err := x.releasedFile(assignment, name)
		if err != nil {
			return res, err
		}
		if Sum(b) != rel.Files[name] {
			return res, fmt.Errorf("%s changed while it was fetched (a new release?): fetch again", name)
		}
		if err := writeNew(dst, b, 0o644); err != nil {
			if errors.Is(err, fs.ErrExist) {
				res.Kept = append(res.Kept, name)
				continue
			}
			return res, err
		}
		res.Fetched = append(res.Fetched, name)
	}
	for _, name := range res.Kept {
		if b, err := os.ReadFile(filepath.Join(res.Dir, name)); err == nil && Sum(b) != rel.Files[name] {
			res.Differs = append(res.Differs, name)
		}
	}
	res.Warnings = x.claim(me)
	return res, nil
}

func (x Exchange) releasedFile(assignment, name string) ([]byte, error) {
	b, _, err := readRegular(x.outbound(assignment, name), MaxSubmissionBytes)
	return b, permission(err, "ask the instructor to release again (agx release)")
}

// claim makes the student's inbound and feedback directories when missing,
// and says what is wrong with them.
func (x Exchange) claim(me Me) []string {
	gid, err := x.courseDir()
	if err != nil {
		return []string{err.Error()}
	}
	old := syscall.Umask(0o007)
	defer syscall.Umask(old)
	var warn []string
	if _, err := claimDir(x.inbound(me.Name), modeStudentI, me, gid); err != nil {
		warn = append(warn, err.Error())
	}
	if _, err := claimDir(x.feedback(me.Name), modeStudentF, me, gid); err != nil {
		warn = append(warn, err.Error())
	}
	return warn
}

// claimDir makes the student's directory path, or checks the one there: it
// must be a directory of the student's, in the instructors' group gid, with
// the set-group-ID bit (so that what is made in it is in that group too).
// The caller sets the umask.
func claimDir(path string, mode os.FileMode, me Me, gid int) (made bool, err error) {
	err = os.Mkdir(path, mode.Perm())
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return false, permission(err, "ask the instructor to run `agx exchange init` (it sets the exchange's modes)")
	}
	made = err == nil
	st, err := os.Lstat(path)
	if err != nil {
		return made, err
	}
	s := statT(st)
	switch {
	case !st.IsDir() || int(s.Uid) != me.UID:
		return made, fmt.Errorf("%s belongs to %s, not to you (%s): someone took your name; ask your instructor to remove it (agx collect names it too)", path, userName(s.Uid), me.Name)
	case int(s.Gid) != gid || st.Mode()&os.ModeSetgid == 0:
		return made, fmt.Errorf("%s is not in the instructors' group with the set-group-ID bit, so the instructor could not read it: ask the instructor to run `agx exchange init`", path)
	case st.Mode().Perm()&0o050 != 0o050:
		return made, fmt.Errorf("%s has mode %s: the instructors' group needs read and search (chmod g+rx %s)", path, modeString(st.Mode()&modeBits), path)
	case st.Mode().Perm()&0o002 != 0:
		return made, fmt.Errorf("%s has mode %s: others may write it (chmod o-w %s)", path, modeString(st.Mode()&modeBits), path)
	}
	return made, nil
}

// mineAlone checks that path is a directory of the student's that nobody
// else may write: a submission in another's directory would not count.
func mineAlone(path string, me Me) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if s := statT(st); !st.IsDir() || int(s.Uid) != me.UID || st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s belongs to %s and has mode %s, not to you alone: someone made it before you, and nothing submitted into it would count; move it away (mv %s %s.taken) and submit again, and tell your instructor",
			path, userName(s.Uid), modeString(st.Mode()&modeBits), path, path)
	}
	return nil
}

// SubmitResult is what Submit did.
type SubmitResult struct {
	Assignment string
	Student    string
	Time       time.Time // of this submission, or of the identical earlier one
	Files      []string
	Identical  bool // nothing changed since the previous submission: nothing submitted
	Count      int  // submissions of this assignment so far, this one included
	Deadline   *time.Time
	Late       bool
	LateBy     time.Duration
	Missing    []string // released notebooks not in the submission
	Extra      []string // notebooks submitted that the release does not name: collect leaves them
	Warnings   []string
}

// Submit submits the notebooks of workspace/ASSIGNMENT/ (*.ipynb) as the
// user running the program: a new directory inbound/STUDENT/ASSIGNMENT/TIME/
// with the notebooks and a record of their SHA-256 sums and the time. The
// latest submission counts. When the notebooks are those of the previous
// submission, nothing is submitted and Identical says so.
func (x Exchange) Submit(workspace, assignment string) (*SubmitResult, error) {
	me, err := CurrentUser()
	if err != nil {
		return nil, err
	}
	if err := refuseGrading(&me); err != nil {
		return nil, err
	}
	rel, err := x.ReadRelease(assignment)
	if err != nil {
		return nil, err
	}
	gid, err := x.courseDir()
	if err != nil {
		return nil, err
	}
	names, files, err := readNotebooks(filepath.Join(workspace, assignment), assignment)
	if err != nil {
		return nil, err
	}
	res := &SubmitResult{Assignment: assignment, Student: me.Name, Files: names, Deadline: rel.Deadline}
	res.compareRelease(rel, names, files)

	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	base, err := x.assignmentInbox(me, gid, assignment, res)
	if err != nil {
		return nil, err
	}
	prev, count := previous(base)
	res.Count = count
	if prev != nil && sameFiles(prev.Files, files) {
		res.Identical, res.Time = true, prev.Time
		res.setLate()
		return res, nil
	}
	dir, err := newSubmissionDir(base)
	if err != nil {
		return nil, err
	}
	sub := Submission{Student: me.Name, UID: me.UID, Course: x.Course, Assignment: assignment, Files: map[string]string{}}
	if err := writeSubmission(dir, names, files, &sub); err != nil {
		return nil, err
	}
	res.Time, res.Count = sub.Time, count+1
	res.setLate()
	return res, nil
}

// readNotebooks lists and reads the notebooks in src, refusing none, names
// with control characters, and more files or bytes than a submission may
// hold.
func readNotebooks(src, assignment string) ([]string, map[string][]byte, error) {
	names, err := visibleFiles(src, ".ipynb", true)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(names) == 0) {
		return nil, nil, fmt.Errorf("no notebooks to submit in %s: fetch the assignment first (agx fetch %s), and submit from the directory that holds %s/", src, assignment, assignment)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, n := range names {
		if !printable(n) {
			return nil, nil, fmt.Errorf("%s holds a notebook named %q, with control characters: rename it", src, n)
		}
	}
	if len(names) > MaxSubmissionFiles {
		return nil, nil, fmt.Errorf("%s holds %d notebooks, more than the %d a submission may hold", src, len(names), MaxSubmissionFiles)
	}
	files := map[string][]byte{}
	var total int64
	for _, n := range names {
		b, _, err := readRegular(filepath.Join(src, n), MaxSubmissionBytes)
		if errors.Is(err, syscall.ELOOP) { // a symbolic link in the student's own workspace
			b, err = os.ReadFile(filepath.Join(src, n))
		}
		if err != nil {
			return nil, nil, err
		}
		total += int64(len(b))
		if total > MaxSubmissionBytes {
			return nil, nil, fmt.Errorf("the notebooks of %s add up to more than %d MiB: clear large outputs and submit again", src, MaxSubmissionBytes>>20)
		}
		files[n] = b
	}
	return names, files, nil
}

// compareRelease notes the released notebooks missing from the submission,
// and the submitted notebooks the release does not name.
func (r *SubmitResult) compareRelease(rel *Release, names []string, files map[string][]byte) {
	for _, n := range sortedKeys(rel.Files) {
		if strings.HasSuffix(n, ".ipynb") && files[n] == nil {
			r.Missing = append(r.Missing, n)
		}
	}
	if want := releasedNotebooks(rel); want != nil {
		for _, n := range names {
			if !want[n] {
				r.Extra = append(r.Extra, n)
			}
		}
	}
}

// assignmentInbox makes sure the student's inbound directory and its
// ASSIGNMENT directory exist and are the student's alone, adding any claim
// warnings to res, and returns the assignment directory.
func (x Exchange) assignmentInbox(me Me, gid int, assignment string, res *SubmitResult) (string, error) {
	mine := x.inbound(me.Name)
	if _, err := claimDir(mine, modeStudentI, me, gid); err != nil {
		return "", err
	}
	res.Warnings = x.claim(me)
	base := filepath.Join(mine, assignment)
	if err := os.Mkdir(base, 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	if err := mineAlone(base, me); err != nil {
		return "", err
	}
	return base, nil
}

// newSubmissionDir makes a new directory in base named for the current time,
// trying again while one of that name exists.
func newSubmissionDir(base string) (string, error) {
	for {
		dir := filepath.Join(base, time.Now().UTC().Format(stampLayout))
		if err := os.Mkdir(dir, 0o750); err == nil {
			return dir, nil
		} else if !errors.Is(err, fs.ErrExist) {
			return "", permission(err, "ask the instructor to run `agx exchange init`")
		}
	}
}

// writeSubmission writes the notebooks into dir with their sums in sub, then
// the record sub itself, stamped with the time, and makes them read-only.
func writeSubmission(dir string, names []string, files map[string][]byte, sub *Submission) error {
	for _, n := range names {
		if err := writeNew(filepath.Join(dir, n), files[n], 0o640); err != nil {
			return err
		}
		sub.Files[n] = Sum(files[n])
	}
	sub.Time = time.Now().UTC()
	// The record comes last: a submission without one is incomplete and
	// collect passes over it.
	if err := writeNew(filepath.Join(dir, SubmissionFile), marshal(*sub), 0o640); err != nil {
		return err
	}
	// Read-only, against accidents; the student owns them and could undo
	// this, but any change moves their ctime, which collect checks.
	for _, n := range append(names, SubmissionFile) {
		_ = os.Chmod(filepath.Join(dir, n), 0o440)
	}
	return nil
}

func (r *SubmitResult) setLate() {
	if r.Deadline != nil && r.Time.After(*r.Deadline) {
		r.Late, r.LateBy = true, r.Time.Sub(*r.Deadline)
	}
}

// previous returns the latest complete submission in base and how many there are.
func previous(base string) (*Submission, int) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return nil, 0
	}
	var stamps []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			stamps = append(stamps, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(stamps)))
	for _, s := range stamps {
		var sub Submission
		if readJSON(filepath.Join(base, s, SubmissionFile), &sub) == nil {
			return &sub, len(stamps)
		}
	}
	return nil, len(stamps)
}

func sameFiles(sums map[string]string, files map[string][]byte) bool {
	if len(sums) != len(files) {
		return false
	}
	for n, b := range files {
		if sums[n] != Sum(b) {
			return false
		}
	}
	return true
}

// FeedbackResult is what FetchFeedback did.
type FeedbackResult struct {
	Assignment string
	Dir        string   // where the pages went
	Files      []string // the pages
}

// FetchFeedback copies the student's returned feedback pages of assignment
// into workspace/ASSIGNMENT/feedback/, replacing earlier copies.
func (x Exchange) FetchFeedback(workspace, assignment string) (*FeedbackResult, error) {
	me, err := CurrentUser()
	if err != nil {
		return nil, err
	}
	if err := refuseGrading(&me); err != nil {
		return nil, err
	}
	if err := CheckName("assignment", assignment); err != nil {
		return nil, err
	}
	if _, err := x.courseDir(); err != nil {
		return nil, err
	}
	src := x.feedback(me.Name, assignment)
	names, err := visibleFiles(src, ".html", false)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, permission(err, "your feedback directory "+x.feedback(me.Name)+" is not yours: ask your instructor")
	}
	res := &FeedbackResult{Assignment: assignment, Dir: filepath.Join(workspace, assignment, "feedback")}
	if len(names) == 0 {
		return res, nil
	}
	if err := os.MkdirAll(res.Dir, 0o755); err != nil {
		return nil, err
	}
	for _, n := range names {
		b, _, err := readRegular(filepath.Join(src, n), 64<<20)
		if err != nil {
			return nil, err
		}
		if err := writeAtomic(filepath.Join(res.Dir, n), b, 0o644); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, n)
	}
	return res, nil
}

// StatusResult is where a student stands with an assignment.
type StatusResult struct {
	Assignment  string
	Released    bool
	ReleasedAt  time.Time
	Deadline    *time.Time
	Fetched     bool        // workspace/ASSIGNMENT exists
	Submissions []time.Time // oldest first
	LastLate    bool
	Feedback    []string // returned pages
	Available   []string // released assignments (when this one is not)
}

// Status reports, for the user running the program, whether assignment is
// released (and its deadline), fetched into workspace, submitted (when, how
// often, late or not) and has feedback returned.
func (x Exchange) Status(workspace, assignment string) (*StatusResult, error) {
	me, err := CurrentUser()
	if err != nil {
		return nil, err
	}
	res := &StatusResult{Assignment: assignment}
	rel, err := x.ReadRelease(assignment)
	switch {
	case errors.Is(err, ErrNotReleased):
		res.Available, _ = x.Released()
	case err != nil:
		return nil, err
	default:
		res.Released, res.ReleasedAt, res.Deadline = true, rel.Released, rel.Deadline
	}
	if st, err := os.Stat(filepath.Join(workspace, assignment)); err == nil && st.IsDir() {
		res.Fetched = true
	}
	base := x.inbound(me.Name, assignment)
	if ents, err := os.ReadDir(base); err == nil {
		for _, e := range ents {
			var sub Submission
			if e.IsDir() && readJSON(filepath.Join(base, e.Name(), SubmissionFile), &sub) == nil {
				res.Submissions = append(res.Submissions, sub.Time)
			}
		}
	}
	sort.Slice(res.Submissions, func(i, j int) bool { return res.Submissions[i].Before(res.Submissions[j]) })
	if n := len(res.Submissions); n > 0 && res.Deadline != nil {
		res.LastLate = res.Submissions[n-1].After(*res.Deadline)
	}
	res.Feedback, _ = visibleFiles(x.feedback(me.Name, assignment), ".html", false)
	return res, nil
}
