package course

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goagx/agx/internal/notebook"
)

// A Question is a multiple-choice question of a notebook: a markdown cell
// with option lines `- **a)** text`, answered by the first grade.C.Choice or
// Choices call in the code cells that follow it (before the next question).
type Question struct {
	Cell    int      // index of the question's markdown cell
	Title   string   // its first line, for messages
	Options []Option // in the order shown
	Correct []string // letters of the right options
}

// Option is one option of a question.
type Option struct {
	Letter string
	Text   string
}

var (
	optionRE  = regexp.MustCompile(`(?m)^\s*-\s+\*\*([a-z])\)\*\*\s+(.*?)\s*$`)
	choiceRE  = regexp.MustCompile(`\.Choice\(\s*\w+\s*,\s*"([a-z])"\s*\)`)
	choicesRE = regexp.MustCompile(`\.Choices\(\s*\w+\s*,\s*\[\]string\{([^}]*)\}\s*\)`)
	letterRE  = regexp.MustCompile(`"([a-z])"`)
)

// Questions returns the multiple-choice questions of nb whose answers it
// finds.
func Questions(nb *notebook.Notebook) []Question {
	var qs []Question
	for i, c := range nb.Cells {
		if c.CellType != notebook.Markdown {
			continue
		}
		ms := optionRE.FindAllStringSubmatch(c.Source, -1)
		if len(ms) < 2 {
			continue
		}
		q := Question{Cell: i, Title: title(c.Source)}
		for _, m := range ms {
			q.Options = append(q.Options, Option{Letter: m[1], Text: m[2]})
		}
	answer:
		for _, d := range nb.Cells[i+1:] {
			if d.CellType == notebook.Markdown && len(optionRE.FindAllString(d.Source, 2)) == 2 {
				break
			}
			if d.CellType != notebook.Code {
				continue
			}
			if m := choiceRE.FindStringSubmatch(d.Source); m != nil {
				q.Correct = []string{m[1]}
				break answer
			}
			if m := choicesRE.FindStringSubmatch(d.Source); m != nil {
				for _, l := range letterRE.FindAllStringSubmatch(m[1], -1) {
					q.Correct = append(q.Correct, l[1])
				}
				break answer
			}
		}
		if len(q.Correct) > 0 {
			qs = append(qs, q)
		}
	}
	return qs
}

// title is the question's first line without emphasis, cut to 60 characters.
func title(src string) string {
	t := strings.TrimSpace(strings.ReplaceAll(strings.SplitN(src, "\n", 2)[0], "**", ""))
	if r := []rune(t); len(r) > 60 {
		t = string(r[:59]) + "…"
	}
	return t
}

// length is what a reader sees of an option: its characters, with the
// backquotes and emphasis of the markdown left out.
func length(s string) int {
	return utf8.RuneCountInString(strings.NewReplacer("`", "", "**", "", "*", "").Replace(s))
}

// MaxLengthRatio bounds how much longer a right option may be than the
// longest wrong one of its question.
const MaxLengthRatio = 1.5

// Guessable lists the ways in which the right answers of single-answer
// questions qs (one notebook's) can be guessed without knowing them:
//
//   - a right option more than MaxLengthRatio times as long as the longest
//     wrong one of its question;
//   - the right option the longest, or the shortest, of its question in more
//     than a fair share of the questions: more than n/k + 1 of n questions of
//     k options (ties count against the right option);
//   - one position (letter) right in more than n/k + 1 questions, or, with
//     at least two questions per position, a position that is never right.
//
// Questions with several right options are left out. An empty result means
// none of these holds.
func Guessable(qs []Question) []string {
	var single []Question
	for _, q := range qs {
		if len(q.Correct) == 1 && len(q.Options) >= 2 {
			single = append(single, q)
		}
	}
	if len(single) == 0 {
		return nil
	}
	var problems []string
	k := len(single[0].Options)
	n := len(single)
	fair := int(math.Floor(float64(n)/float64(k))) + 1
	longest, shortest := 0, 0
	pos := map[string]int{}
	letters := map[string]bool{}
	for _, q := range single {
		right := -1
		maxWrong, minWrong := 0, math.MaxInt
		for i, o := range q.Options {
			letters[o.Letter] = true
			if o.Letter == q.Correct[0] {
				right = i
				continue
			}
			maxWrong = max(maxWrong, length(o.Text))
			minWrong = min(minWrong, length(o.Text))
		}
		if right < 0 {
			problems = append(problems, fmt.Sprintf("%s: the answer %q is not an option", q.Title, q.Correct[0]))
			continue
		}
		r := length(q.Options[right].Text)
		pos[q.Correct[0]]++
		if r >= maxWrong {
			longest++
		}
		if r <= minWrong {
			shortest++
		}
		if float64(r) > MaxLengthRatio*float64(maxWrong) {
			problems = append(problems, fmt.Sprintf("%s: the right option has %d characters, the longest wrong one %d (more than %gx)", q.Title, r, maxWrong, MaxLengthRatio))
		}
	}
	if longest > fair {
		problems = append(problems, fmt.Sprintf("the right option is the longest in %d of %d questions (a fair share is at most %d)", longest, n, fair))
	}
	if shortest > fair {
		problems = append(problems, fmt.Sprintf("the right option is the shortest in %d of %d questions (a fair share is at most %d)", shortest, n, fair))
	}
	keys := make([]string, 0, len(letters))
	for l := range letters {
		keys = append(keys, l)
	}
	slices.Sort(keys)
	for _, l := range keys {
		if pos[l] > fair {
			problems = append(problems, fmt.Sprintf("option %s) is right in %d of %d questions (a fair share is at most %d)", l, pos[l], n, fair))
		}
		if pos[l] == 0 && n >= 2*len(keys) {
			problems = append(problems, fmt.Sprintf("option %s) is never right in %d questions", l, n))
		}
	}
	return problems
}

// QuizSummary describes qs in one line: how many questions, how many of them
// multiple choice, and where the right answers sit.
func QuizSummary(qs []Question) string {
	pos := map[string]int{}
	for _, q := range qs {
		for _, c := range q.Correct {
			pos[c]++
		}
	}
	var parts []string
	for _, l := range []string{"a", "b", "c", "d", "e"} {
		if pos[l] > 0 {
			parts = append(parts, l+")="+strconv.Itoa(pos[l]))
		}
	}
	return fmt.Sprintf("%d multiple-choice questions; right answers at %s", len(qs), strings.Join(parts, " "))
}
