// Command cell is the agx side of `agx bench`: it runs the timing
// comparison (package bench) in a program that links what a course
// notebook's cell links, agx and the packages the workloads use and agx/nb
// (which every lesson imports, and with it GoNB's gonbui), and not the agx
// command's grading, exchange and web code.
//
// A Go program's collections cost more the more heap and globals its
// packages set up at start-up, and a step that allocates results of
// several MiB triggers one every few steps: inside the agx command, one
// collection took about twice its CPU time in such a program, which made
// the element-wise workloads up to a third slower than a notebook runs
// them. `agx bench` builds this command from the agx checkout it runs in
// and starts it with the flags that time workloads; `agx bench
// -in-process` times agx inside the agx command instead.
package main

import (
	"context"
	"os"

	_ "github.com/goagx/agx/agx/nb" // every lesson imports it
	"github.com/goagx/agx/bench"
)

func main() {
	os.Exit(bench.Main(context.Background(), os.Args[1:], "a program linking agx and agx/nb, as a lesson's cell does (bench/cell)", os.Stdout, os.Stderr))
}
