package exchange

import (
	"fmt"
	"strings"
	"time"
)

// Messages for people: each result says what happened in a few lines, the
// same in agx's output and in a notebook.

func deadlineLine(d *time.Time, now time.Time) string {
	if d == nil {
		return "no deadline"
	}
	if now.After(*d) {
		return fmt.Sprintf("deadline %s (passed %s ago: a submission now is late)", formatTime(*d), lateBy(now.Sub(*d)))
	}
	return fmt.Sprintf("deadline %s (in %s)", formatTime(*d), lateBy(d.Sub(now)))
}

// Lines describes the fetch.
func (r *FetchResult) Lines() []string {
	var l []string
	switch {
	case len(r.Fetched) > 0:
		l = append(l, fmt.Sprintf("fetched %s into %s: %s", r.Assignment, r.Dir, strings.Join(r.Fetched, ", ")))
	default:
		l = append(l, fmt.Sprintf("nothing new to fetch: %s already holds every file of %s", r.Dir, r.Assignment))
	}
	differs := map[string]bool{}
	for _, n := range r.Differs {
		differs[n] = true
	}
	for _, n := range r.Kept {
		if differs[n] {
			l = append(l, fmt.Sprintf("kept your %s (it differs from the release; not overwritten: to get the released one, rename yours and fetch again)", n))
		} else {
			l = append(l, fmt.Sprintf("kept your %s (not overwritten)", n))
		}
	}
	l = append(l, deadlineLine(r.Deadline, time.Now()))
	return append(l, r.Warnings...)
}

// Lines describes the submission.
func (r *SubmitResult) Lines() []string {
	var l []string
	if r.Identical {
		l = append(l, fmt.Sprintf("already submitted at %s: %s is unchanged since, so nothing was submitted (%d %s so far; the latest counts)",
			formatTime(r.Time), r.Assignment, r.Count, plural(r.Count, "submission", "submissions")))
	} else {
		l = append(l, fmt.Sprintf("submitted %s at %s as %s: %s (submission %d; the latest counts)",
			r.Assignment, formatTime(r.Time), r.Student, strings.Join(r.Files, ", "), r.Count))
	}
	switch {
	case r.Late:
		l = append(l, fmt.Sprintf("LATE: the deadline was %s, %s earlier", formatTime(*r.Deadline), lateBy(r.LateBy)))
	case r.Deadline != nil:
		l = append(l, fmt.Sprintf("on time: the deadline is %s", formatTime(*r.Deadline)))
	}
	if len(r.Missing) > 0 {
		l = append(l, fmt.Sprintf("not in this submission: %s (released with the assignment)", strings.Join(r.Missing, ", ")))
	}
	if len(r.Extra) > 0 {
		l = append(l, fmt.Sprintf("not collected: %s (not released with the assignment; only released notebooks are graded)", strings.Join(r.Extra, ", ")))
	}
	return append(l, r.Warnings...)
}

// Lines describes the feedback fetched.
func (r *FeedbackResult) Lines() []string {
	if len(r.Files) == 0 {
		return []string{fmt.Sprintf("no feedback for %s yet: your instructor has not returned it", r.Assignment)}
	}
	return []string{fmt.Sprintf("feedback for %s in %s: %s", r.Assignment, r.Dir, strings.Join(r.Files, ", "))}
}

// Lines describes the status.
func (r *StatusResult) Lines() []string {
	if !r.Released {
		have := "none is released yet"
		if len(r.Available) > 0 {
			have = "released: " + strings.Join(r.Available, ", ")
		}
		return []string{fmt.Sprintf("%s is not released: nothing to fetch (%s)", r.Assignment, have)}
	}
	l := []string{fmt.Sprintf("%s: released %s, %s", r.Assignment, formatTime(r.ReleasedAt), deadlineLine(r.Deadline, time.Now()))}
	if r.Fetched {
		l = append(l, "fetched")
	} else {
		l = append(l, "not fetched yet")
	}
	if n := len(r.Submissions); n > 0 {
		late := ""
		if r.LastLate {
			late = " (late)"
		}
		l = append(l, fmt.Sprintf("submitted %d %s, the latest at %s%s", n, plural(n, "time", "times"), formatTime(r.Submissions[n-1]), late))
	} else {
		l = append(l, "not submitted")
	}
	if len(r.Feedback) > 0 {
		l = append(l, fmt.Sprintf("feedback returned: %s", strings.Join(r.Feedback, ", ")))
	}
	return l
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
