// Package lazyre compiles a package's regular expressions on first use
// instead of at program start.
//
// A regexp compiled into a package-level variable is live heap for the whole
// life of every program that links the package, and Go's collector marks it
// again in every cycle. The agx command links the grader and the notebook
// tools, whose patterns came to about 0.4 MB of heap at start-up; with them
// compiled eagerly each collection during `agx bench` cost about 1.5 times
// what it costs in a notebook cell, which made the command's agx timings
// slower than what a cell meets. Patterns made with New cost nothing until a
// code path that needs them runs. (The public packages, such as
// grade/exchange, may not import internal packages; their few patterns are
// small and stay eager.)
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called and
// returns the same *regexp.Regexp after that. Like regexp.MustCompile it
// panics when expr does not compile, on the first call instead of at
// start-up; the package's tests compile every string literal that the module
// passes to New.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
