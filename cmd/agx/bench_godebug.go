package main

import (
	"os"
	"strings"
	"syscall"
)

// notebookSettings are the GODEBUG settings the lab's kernel (agx-kernel)
// gives notebook cells, each added unless GODEBUG already sets it:
//   - madvdontneed=0: the runtime returns freed pages to the OS with
//     MADV_FREE, so that a step after an idle pause (agx bench's agx side
//     idles while PyTorch runs its sample) does not fault its memory back in;
//   - memprofilerate=0: no heap-profile sampling. Go samples about one
//     allocation per 512 KiB allocated, and a tensor result is often that
//     large, so most results paid for a stack walk and a profile record.
var notebookSettings = []string{"madvdontneed=0", "memprofilerate=0"}

// notebookGODEBUG returns GODEBUG as agx-kernel gives it to notebook cells:
// godebug with each of notebookSettings appended whose name it does not
// already set, and whether it added any.
func notebookGODEBUG(godebug string) (string, bool) {
	changed := false
	for _, s := range notebookSettings {
		name := s[:strings.IndexByte(s, '=')+1]
		if strings.Contains(","+godebug, ","+name) {
			continue
		}
		if godebug != "" {
			godebug += ","
		}
		godebug += s
		changed = true
	}
	return godebug, changed
}

// benchAsNotebook makes `agx bench` measure its agx side as notebook cells
// run: when GODEBUG lacks one of notebookSettings, it starts agx again in
// place (exec) with notebookGODEBUG's GODEBUG, as the runtime reads these
// settings only at start-up. GODEBUG=madvdontneed=1,memprofilerate=524288
// measures a plain Go program's defaults. If the exec fails, agx bench runs
// as it is; its header prints the GODEBUG it runs under.
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
	_ = syscall.Exec(exe, args, withEnv(os.Environ(), "GODEBUG", godebug))
}

// withEnv returns environ with every entry for key replaced by one
// key=value. Replacing, not appending, matters: Go programs read the first
// entry of a name, so an appended GODEBUG would go unseen and the exec'd
// agx would exec itself again without end.
func withEnv(environ []string, key, value string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}
