// Command coursegen regenerates the course map in notebooks/00-welcome.ipynb
// and docs/notebooks-index.md from the notebooks' example tags (see package
// internal/course). Run it from the repository root:
//
//	go run ./internal/course/coursegen
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
	flag.Parse()
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
