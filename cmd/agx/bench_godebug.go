package main

import (
	"os"
	"strings"
	"syscall"
)

// notebookGODEBUG returns GODEBUG as the lab's kernel (agx-kernel) gives it
// to notebook cells: madvdontneed=0 added unless godebug already sets
// madvdontneed. With it the runtime returns freed pages to the OS with
// MADV_FREE, so that a step after an idle pause (agx bench's agx side idles
// while PyTorch runs its sample) does not fault its memory back in.
func notebookGODEBUG(godebug string) (string, bool) {
	if strings.Contains(","+godebug+",", ",madvdontneed=") {
		return godebug, false
	}
	if godebug == "" {
		return "madvdontneed=0", true
	}
	return godebug + ",madvdontneed=0", true
}

// benchAsNotebook makes `agx bench` measure its agx side as notebook cells
// run: when GODEBUG does not set madvdontneed, it starts agx again in place
// (exec) with notebookGODEBUG's GODEBUG, as the runtime reads the setting
// only at start-up. GODEBUG=madvdontneed=1 measures a plain Go program's
// default. If the exec fails, agx bench runs as it is; its header prints the
// GODEBUG it runs under.
func benchAsNotebook(args []string) {
	if len(args) < 2 || args[1] != "bench" {
		return
	}
	godebug, changed := notebookGODEBUG(os.Getenv("GODEBUG"))
	if !changed {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	env := append(os.Environ(), "GODEBUG="+godebug) // the last value wins
	_ = syscall.Exec(exe, args, env)
}
