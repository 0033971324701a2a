package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Each submission's kernel gets temporary directories of its own: in the
// notebook driver's mount namespace, /tmp, /var/tmp and /dev/shm are each
// covered by a new tmpfs (mode 1777, nosuid, nodev, privateTmpSize), so what
// one submission leaves there is neither seen by the submissions graded
// after or beside it nor kept: the tmpfs goes with the namespace when the
// submission's processes are gone. The grader's own directories under them
// (the run directory with the kernelspec and the slot homes, the
// submission's work directory, what the kernel's environment names) are
// bound back at their own paths from the directory as it was.

// PrivateTmpDirs are the directories covered.
var PrivateTmpDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// privateTmpSize bounds each tmpfs (tmpfs pages are memory that no rlimit of
// the kernel's processes counts).
const privateTmpSize = "1g"

// WorkEnv names, in the driver's environment, the submission's work
// directory, bound back like the paths given to writePrivateTmp.
const WorkEnv = "AGX_SANDBOX_WORK"

// tmpKeep returns the directories among paths (values of environment
// variables: lists are split) that lie under one of the covered
// directories, without those under another one kept.
func tmpKeep(covered []string, paths []string) []string {
	var keep []string
	for _, v := range paths {
		for _, p := range filepath.SplitList(v) {
			if !filepath.IsAbs(p) {
				continue
			}
			p = filepath.Clean(p)
			if st, err := os.Stat(p); err != nil || !st.IsDir() {
				continue
			}
			for _, d := range covered {
				if p != d && within(d, p) {
					keep = append(keep, p)
				}
			}
		}
	}
	slices.Sort(keep)
	var out []string
	for _, p := range keep {
		if len(out) > 0 && within(out[len(out)-1], p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// coveredTmpDirs returns the directories of PrivateTmpDirs that exist and
// are not symbolic links (a link to another one would be covered twice).
func coveredTmpDirs() []string {
	var out []string
	for _, d := range PrivateTmpDirs {
		if st, err := os.Lstat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// writePrivateTmp appends to the namespace's script the commands that cover
// each directory with a tmpfs and bind keep (and $AGX_SANDBOX_WORK) back.
// Each is bound back with what is mounted below it (--rbind): the stage of
// the hidden directories lies in the run directory (see nsPlan.writeStage).
// The directory as it was stays reachable through an open descriptor
// (/proc/self/fd/3) while it is covered; mount must not canonicalize that
// path, which would resolve to the new tmpfs.
func writePrivateTmp(b *strings.Builder, covered, keep []string) {
	b.WriteString("agx_keep() {\n\tmkdir -p \"$2\"\n\tmount --no-canonicalize --rbind \"/proc/self/fd/3/${2#\"$1\"/}\" \"$2\"\n}\n")
	for _, d := range covered {
		fmt.Fprintf(b, "exec 3<%s\n", shQuote(d))
		fmt.Fprintf(b, "mount -t tmpfs -o mode=1777,nosuid,nodev,size=%s agx-private-tmp %s\n", privateTmpSize, shQuote(d))
		for _, k := range keep {
			if within(d, k) {
				fmt.Fprintf(b, "agx_keep %s %s\n", shQuote(d), shQuote(k))
			}
		}
		fmt.Fprintf(b, "case \"${%s:-}\" in %s/*) agx_keep %s \"$%s\" ;; esac\n", WorkEnv, shQuote(d), shQuote(d), WorkEnv)
		b.WriteString("exec 3<&-\n")
	}
}

// sandboxTmpKeep is what the kernel and the driver need under the covered
// directories: the run directory dir, and the directories that the
// kernelspec (launcher, environment), root's build cache and the grader's
// environment name.
func sandboxTmpKeep(dir string, spec KernelSpec, plan *nsPlan) []string {
	paths := []string{dir, plan.gocache}
	if len(spec.Argv) > 0 && filepath.IsAbs(spec.Argv[0]) {
		paths = append(paths, filepath.Dir(spec.Argv[0]))
	}
	for _, v := range spec.Env {
		paths = append(paths, v)
	}
	for _, kv := range os.Environ() {
		if _, v, ok := strings.Cut(kv, "="); ok {
			paths = append(paths, v)
		}
	}
	return tmpKeep(coveredTmpDirs(), paths)
}
