// Command coursegen regenerates the course map in notebooks/00-welcome.ipynb
// and docs/notebooks-index.md from the notebooks' example tags (see package
// internal/course). Run it from the repository root:
//
//	go run ./internal/course/coursegen
//
// With -quiz it writes nothing and instead reports, for every notebook with
// multiple-choice questions, whether their right answers can be guessed from
// the options' lengths or positions (exit status 1 if any can).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/goagx/agx/internal/course"
	"github.com/goagx/agx/internal/notebook"
)

func main() {
	root := flag.String("root", ".", "repository root")
	quiz := flag.Bool("quiz", false, "check the quizzes instead of generating")
	flag.Parse()
	if *quiz {
		os.Exit(checkQuizzes(*root))
	}
	files, err := course.Generate(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coursegen:", err)
		os.Exit(1)
	}
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		full := filepath.Join(*root, filepath.FromSlash(p))
		if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, files[p]) {
			fmt.Println("unchanged", p)
			continue
		}
		if err := notebook.WriteFileAtomic(full, files[p]); err != nil {
			fmt.Fprintln(os.Stderr, "coursegen:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", p)
	}
}

func checkQuizzes(root string) int {
	status := 0
	for _, dir := range []string{"notebooks", "notebooks/exercises"} {
		paths, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.ipynb"))
		for _, p := range paths {
			nb, err := notebook.Read(p)
			if err != nil {
				fmt.Fprintln(os.Stderr, "coursegen:", err)
				return 1
			}
			qs := course.Questions(nb)
			if len(qs) == 0 {
				continue
			}
			problems := course.Guessable(qs)
			verdict := "ok"
			if len(problems) > 0 {
				verdict, status = "GUESSABLE", 1
			}
			fmt.Printf("%s: %s: %s\n", p, course.QuizSummary(qs), verdict)
			for _, s := range problems {
				fmt.Println("  -", s)
			}
		}
	}
	return status
}
