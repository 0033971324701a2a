package dockercheck

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goagx/agx/internal/studentview"
)

// ParseVersions reads docker/versions.env: KEY=value lines (values may be
// quoted), comments and blank lines.
func ParseVersions(src string) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(key) {
			return nil, fmt.Errorf("versions.env:%d: not a KEY=value line: %q", n, line)
		}
		out[key] = unquote(val)
	}
	return out, sc.Err()
}

var (
	digestRef = regexp.MustCompile(`^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$`)
	h1Hash    = regexp.MustCompile(`^h1:[A-Za-z0-9+/]{43}=$`)
	// A "# syntax=" parser directive makes BuildKit pull its frontend from a registry.
	syntaxDirective = regexp.MustCompile(`(?i)^#\s*syntax\s*=`)
)

// CheckDirectives reports a "# syntax=" parser directive: the build would need a
// registry for the frontend image, and nothing in the Dockerfile needs one.
func CheckDirectives(src string) []string {
	var probs []string
	for n, line := range strings.Split(src, "\n") {
		l := strings.TrimSpace(line)
		if l != "" && !strings.HasPrefix(l, "#") {
			break // directives come before the first instruction
		}
		if syntaxDirective.MatchString(l) {
			probs = append(probs, fmt.Sprintf("Dockerfile:%d: %s pulls a BuildKit frontend from a registry; the built-in one is enough", n+1, l))
		}
	}
	return probs
}

// The rules a target of the lab Dockerfile must satisfy.
const (
	StudentTarget = "lab"
	GraderTarget  = "grader"
	labUser       = "jovyan"
	labUID        = "1000"
	labPort       = "8888"
)

// CheckDockerfile returns every rule docker/Dockerfile breaks, one message each,
// given the pins of docker/versions.env and the instructor-only paths of
// docker/instructor-only (which the student image must not hold).
func CheckDockerfile(f *File, versions map[string]string, instructorOnly []string) []string {
	var probs []string
	probs = append(probs, checkBasePins(f, versions)...)
	probs = append(probs, checkArgDefaults(f, versions)...)
	probs = append(probs, checkNoCUDAStubs(f)...)
	probs = append(probs, checkTargets(f, instructorOnly)...)
	probs = append(probs, checkKernelName(f, versions)...)
	return probs
}

// dockerfileProblem formats a problem found at instruction in.
func dockerfileProblem(in Instruction, format string, a ...any) string {
	return fmt.Sprintf("Dockerfile:%d: %s", in.Line, fmt.Sprintf(format, a...))
}

// checkBasePins reports base images not pinned by digest (unless the FROM
// names an earlier stage) and *_IMAGE entries of versions.env without one.
func checkBasePins(f *File, versions map[string]string) []string {
	var probs []string
	for _, s := range f.Stages {
		if f.Stage(s.Base) != nil && f.Stage(s.Base).Index < s.Index {
			continue
		}
		if !digestRef.MatchString(s.Base) {
			probs = append(probs, dockerfileProblem(s.From, "FROM %s is not pinned by digest (want image:tag@sha256:<64 hex>)", s.Base))
		}
	}

	// The pins themselves: every *_IMAGE of versions.env carries a digest.
	keys := make([]string, 0, len(versions))
	for k := range versions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasSuffix(k, "_IMAGE") && !digestRef.MatchString(versions[k]) {
			probs = append(probs, fmt.Sprintf("versions.env: %s=%s is not pinned by digest", k, versions[k]))
		}
	}
	return probs
}

// checkArgDefaults reports ARG defaults that differ from versions.env, a
// GO_H1_AMD64 that is not an h1: hash, and missing ARGs of the pins.
func checkArgDefaults(f *File, versions map[string]string) []string {
	var probs []string
	for _, in := range f.Args {
		name, val, has := strings.Cut(in.Args, "=")
		name = strings.TrimSpace(name)
		want, pinned := versions[name]
		if has && pinned && unquote(strings.TrimSpace(val)) != want {
			probs = append(probs, dockerfileProblem(in, "ARG %s default %q differs from docker/versions.env (%q)", name, unquote(val), want))
		}
	}
	// Go comes from the module proxy, checked against its go.sum hash.
	if h, ok := versions["GO_H1_AMD64"]; !ok || !h1Hash.MatchString(h) {
		probs = append(probs, fmt.Sprintf("versions.env: GO_H1_AMD64=%q is not an h1: hash (h1: and 44 base64 characters)", h))
	}
	for _, name := range []string{"BASE_IMAGE", "GO_VERSION", "GO_H1_AMD64"} {
		found := false
		for _, in := range f.Args {
			n, _, has := strings.Cut(in.Args, "=")
			found = found || (has && strings.TrimSpace(n) == name)
		}
		if !found {
			probs = append(probs, fmt.Sprintf("Dockerfile: no ARG %s with a default from docker/versions.env", name))
		}
	}
	return probs
}

// checkNoCUDAStubs reports CUDA stub libraries given to the dynamic
// loader: they are for linking only.
func checkNoCUDAStubs(f *File) []string {
	var probs []string
	for _, s := range f.Stages {
		for _, in := range s.Body {
			if in.Cmd == "ENV" {
				if v, ok := EnvPairs(in.Args)["LD_LIBRARY_PATH"]; ok && strings.Contains(v, "stubs") {
					probs = append(probs, dockerfileProblem(in, "LD_LIBRARY_PATH contains a CUDA stubs directory"))
				}
			}
			if in.Cmd == "RUN" && strings.Contains(in.Args, "stubs") &&
				(strings.Contains(in.Args, "ld.so.conf") || strings.Contains(in.Args, "ldconfig")) {
				probs = append(probs, dockerfileProblem(in, "RUN registers a CUDA stubs directory with the dynamic loader"))
			}
		}
	}
	return probs
}

// checkTargets checks the student and grader stages' runtimes, that the
// student image is the last stage, and what the student image holds.
func checkTargets(f *File, instructorOnly []string) []string {
	var probs []string
	for _, target := range []string{StudentTarget, GraderTarget} {
		t := f.Stage(target)
		if t == nil {
			probs = append(probs, fmt.Sprintf("Dockerfile: no stage %q", target))
			continue
		}
		probs = append(probs, checkRuntime(f, t)...)
	}
	if last := f.Stages[len(f.Stages)-1]; last.Name != StudentTarget {
		probs = append(probs, dockerfileProblem(last.From, "the last stage (the default target) is %q; it must be the student image %q", last.Name, StudentTarget))
	}
	if t := f.Stage(StudentTarget); t != nil {
		probs = append(probs, checkStudent(f, t, instructorOnly)...)
	}
	return probs
}

// checkKernelName reports a kernel_name= other than versions.env's
// AGX_KERNEL_NAME, when that is set.
func checkKernelName(f *File, versions map[string]string) []string {
	k := versions["AGX_KERNEL_NAME"]
	if k == "" {
		return nil
	}
	var probs []string
	for _, s := range f.Stages {
		for _, in := range s.Body {
			if m := regexp.MustCompile(`kernel_name=(\S+)`).FindStringSubmatch(in.Args); m != nil && m[1] != k {
				probs = append(probs, dockerfileProblem(in, "kernel_name=%s, but the kernelspec is %s (AGX_KERNEL_NAME)", m[1], k))
			}
		}
	}
	return probs
}

// checkRuntime checks what the container of a target runs with.
func checkRuntime(f *File, t *Stage) []string {
	var probs []string
	bad := func(format string, a ...any) {
		probs = append(probs, fmt.Sprintf("Dockerfile: target %s: %s", t.Name, fmt.Sprintf(format, a...)))
	}
	var (
		user, cmdLine                   string
		userBeforeCmd, exposes, toolchn bool
		health, entry                   *Instruction
	)
	vars := map[string]string{}
	for _, s := range f.Chain(t) {
		sv := f.Vars(s)
		for k, v := range sv {
			vars[k] = v
		}
		for i := range s.Body {
			in := s.Body[i]
			switch in.Cmd {
			case "USER":
				user = Expand(strings.TrimSpace(in.Args), sv)
			case "CMD":
				cmdLine = in.Args
				userBeforeCmd = isLabUser(user, vars)
			case "EXPOSE":
				for _, p := range strings.Fields(in.Args) {
					exposes = exposes || strings.TrimSuffix(p, "/tcp") == labPort
				}
			case "HEALTHCHECK":
				health = &in
			case "ENTRYPOINT":
				entry = &in
			case "ENV":
				if EnvPairs(in.Args)["GOTOOLCHAIN"] == "local" {
					toolchn = true
				}
			}
		}
	}
	if cmdLine == "" {
		bad("no CMD")
	} else if !userBeforeCmd {
		bad("the user set before CMD is %q; want %s (uid %s)", user, labUser, labUID)
	}
	if !isLabUser(user, vars) {
		bad("runs as %q; want %s (uid %s)", user, labUser, labUID)
	}
	if !exposes {
		bad("no EXPOSE %s", labPort)
	}
	if health == nil || strings.HasPrefix(strings.ToUpper(strings.TrimSpace(health.Args)), "NONE") {
		bad("no HEALTHCHECK")
	} else if !strings.Contains(health.Args, "/api") {
		bad("the HEALTHCHECK does not query the server's /api")
	}
	if entry == nil {
		bad("no ENTRYPOINT (want tini as init)")
	} else if words := ExecForm(entry.Args); len(words) == 0 || filepath.Base(words[0]) != "tini" {
		bad("ENTRYPOINT %s does not run tini (exec form)", entry.Args)
	}
	if !toolchn {
		bad("no ENV GOTOOLCHAIN=local")
	}
	return probs
}

// isLabUser reports whether a USER argument (name or uid, optional :group) is the
// lab user; a uid must match the ARG NB_USER/NB_UID pair the user was created with.
func isLabUser(user string, vars map[string]string) bool {
	name, _, _ := strings.Cut(user, ":")
	switch name {
	case labUser:
		return true
	case labUID:
		return vars["NB_USER"] == "" || vars["NB_USER"] == labUser
	}
	return false
}

// instructorSources returns the instructor-only paths (docker/instructor-only,
// slash-terminated for directories) that a source path of a COPY from the build
// context brings in: all of them for the whole context, those inside a parent
// directory it names (notebooks, functions, a pattern like notebooks/*), the
// one it names or is inside.
func instructorSources(p string, list []string) []string {
	p = strings.TrimPrefix(strings.TrimSuffix(filepath.ToSlash(p), "/"), "./")
	var out []string
	for _, l := range list {
		lp := strings.TrimSuffix(l, "/")
		hit := p == "" || p == "." || p == "*" || p == lp || strings.HasPrefix(lp, p+"/") || strings.HasPrefix(p, lp+"/")
		for d := lp; !hit && d != "."; d = path.Dir(d) {
			ok, _ := path.Match(p, d)
			hit = ok || strings.HasPrefix(p, d+"/*")
		}
		if hit {
			out = append(out, l)
		}
	}
	return out
}

// copySources returns the source paths of a COPY/ADD (every word but the last,
// JSON form included).
func copySources(in Instruction) []string {
	words := ExecForm(in.Args)
	if words == nil {
		words = strings.Fields(in.Args)
	}
	if len(words) < 2 {
		return nil
	}
	return words[:len(words)-1]
}

// checkStudent checks that the student image never receives instructor-only
// files (list, from docker/instructor-only): no stage it is built from copies
// them from the build context, and everything it copies from other stages
// comes from a stage that does not hold them (or removed them), or from a
// build output under /out/.
func checkStudent(f *File, t *Stage, list []string) []string {
	var probs []string
	tainted := taintedStages(f, list)
	holds := func(s *Stage) string { return strings.Join(tainted[s], ", ") }
	for _, s := range f.Chain(t) {
		if len(tainted[s]) > 0 {
			probs = append(probs, fmt.Sprintf("Dockerfile:%d: the student image is built FROM stage %q, which holds %s", s.From.Line, s.Name, holds(s)))
		}
		for _, in := range s.Body {
			if in.Cmd != "COPY" && in.Cmd != "ADD" {
				continue
			}
			from, ok := in.Flags["from"]
			for _, src := range copySources(in) {
				switch {
				case !ok && len(instructorSources(src, list)) > 0:
					probs = append(probs, fmt.Sprintf("Dockerfile:%d: the student image copies %q from the build context (it contains %s)", in.Line, src, strings.Join(instructorSources(src, list), ", ")))
				case ok && f.Stage(from) != nil && len(tainted[f.Stage(from)]) > 0 && !(strings.HasPrefix(src, "/out/") && onlyNotebooks(tainted[f.Stage(from)])):
					probs = append(probs, fmt.Sprintf("Dockerfile:%d: the student image copies %s from stage %q, which holds %s", in.Line, src, from, holds(f.Stage(from))))
				}
			}
		}
	}
	return probs
}

// agxDir is where the Dockerfile's stages keep the checkout.
const agxDir = "/opt/agx"

// onlyNotebooks reports whether the held paths are all notebooks: a build
// output under /out/ of a stage that holds them (the student versions that
// agx assign writes) is allowed, one of a stage that holds Go code of a
// reference solution is not (a program built there may contain it).
func onlyNotebooks(held []string) bool {
	for _, p := range held {
		if !strings.HasPrefix(p, "notebooks/") {
			return false
		}
	}
	return true
}

// rmRecursive finds the arguments of each `rm -r...` command of a RUN (up to the
// next shell separator).
var rmRecursive = regexp.MustCompile(`\brm\s+-[a-zA-Z]*r[a-zA-Z]*((?:\s+[^\s;&|]+)+)`)

// taintedStages returns, for each stage, the instructor-only paths its
// filesystem holds, sorted: those it (or the stage it is built FROM) copied from
// the build context and has not removed since with a RUN rm -r.
func taintedStages(f *File, list []string) map[*Stage][]string {
	out := map[*Stage][]string{}
	for _, s := range f.Stages {
		held := map[string]bool{}
		if b := f.Stage(s.Base); b != nil && b.Index < s.Index {
			for _, p := range out[b] {
				held[p] = true
			}
		}
		for _, in := range s.Body {
			switch in.Cmd {
			case "COPY", "ADD":
				from, ok := in.Flags["from"]
				for _, src := range copySources(in) {
					switch {
					case !ok:
						for _, p := range instructorSources(src, list) {
							held[p] = true
						}
					case f.Stage(from) != nil && f.Stage(from).Index < s.Index:
						// From an earlier stage: what it holds under src (the
						// checkout is at agxDir there), or all of it; nothing
						// from the build outputs of a stage holding notebooks only.
						if strings.HasPrefix(src, "/out/") && onlyNotebooks(out[f.Stage(from)]) {
							continue
						}
						rel, in := strings.CutPrefix(path.Clean(src), agxDir)
						for _, p := range out[f.Stage(from)] {
							if !in || (rel != "" && !strings.HasPrefix(rel, "/")) ||
								slices.Contains(instructorSources(strings.TrimPrefix(rel, "/"), []string{p}), p) {
								held[p] = true
							}
						}
					}
				}
			case "RUN":
				for _, m := range rmRecursive.FindAllStringSubmatch(in.Args, -1) {
					for _, arg := range strings.Fields(m[1]) {
						arg = strings.TrimSuffix(arg, "/")
						for p := range held {
							lp := strings.TrimSuffix(p, "/")
							if arg == lp || strings.HasSuffix(arg, "/"+lp) {
								delete(held, p)
							}
						}
					}
				}
			}
		}
		for p := range held {
			out[s] = append(out[s], p)
		}
		sort.Strings(out[s])
	}
	return out
}

// CheckCompose checks docker/compose.yaml line by line: every BASE_IMAGE build
// argument is one of the pinned base images, every build target is a stage of
// the Dockerfile, and the lab services mount a volume at /home/jovyan/work.
func CheckCompose(src string, f *File, versions map[string]string) []string {
	var probs []string
	allowed := map[string]bool{versions["BASE_IMAGE"]: true}
	work := false
	for n, line := range strings.Split(src, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "#") {
			continue
		}
		key, val, ok := strings.Cut(l, ":")
		if !ok {
			if strings.HasPrefix(l, "- ") && strings.HasSuffix(l, ":/home/jovyan/work") {
				work = true
			}
			continue
		}
		val = unquote(strings.TrimSpace(val))
		switch strings.TrimPrefix(key, "- ") {
		case "BASE_IMAGE":
			if !allowed[val] {
				probs = append(probs, fmt.Sprintf("compose.yaml:%d: BASE_IMAGE %s is not BASE_IMAGE of docker/versions.env", n+1, val))
			}
		case "target":
			if f.Stage(val) == nil {
				probs = append(probs, fmt.Sprintf("compose.yaml:%d: target %q is not a stage of docker/Dockerfile", n+1, val))
			}
		}
		if strings.HasPrefix(l, "- ") && strings.HasSuffix(l, ":/home/jovyan/work") {
			work = true
		}
	}
	if !work {
		probs = append(probs, "compose.yaml: no volume mounted at /home/jovyan/work")
	}
	return probs
}

var floating = regexp.MustCompile(`[:@]latest\b`)

// CheckNoLatest lists the lines of the given files that use a floating ":latest"
// or "@latest" version.
func CheckNoLatest(root string, files []string) []string {
	var probs []string
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			probs = append(probs, err.Error())
			continue
		}
		for n, line := range strings.Split(string(data), "\n") {
			if floating.MatchString(line) {
				probs = append(probs, fmt.Sprintf("%s:%d: floating version: %s", rel, n+1, strings.TrimSpace(line)))
			}
		}
	}
	return probs
}

// RepoFiles lists the files under docker/ plus the Makefile and .ci/ scripts,
// relative to root: what CheckNoLatest scans.
func RepoFiles(root string) ([]string, error) {
	var files []string
	for _, dir := range []string{"docker", ".ci"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
			return err
		})
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	files = append(files, "Makefile")
	sort.Strings(files)
	return files, nil
}

// CheckRepo runs every check on the repository at root and returns the problems.
func CheckRepo(root string) ([]string, error) {
	read := func(rel string) (string, error) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		return string(b), err
	}
	venv, err := read("docker/versions.env")
	if err != nil {
		return nil, err
	}
	versions, err := ParseVersions(venv)
	if err != nil {
		return nil, err
	}
	df, err := read("docker/Dockerfile")
	if err != nil {
		return nil, err
	}
	f, err := Parse(df)
	if err != nil {
		return nil, fmt.Errorf("docker/Dockerfile: %w", err)
	}
	list, err := studentview.Load(root)
	if err != nil {
		return nil, err
	}
	probs := append(CheckDirectives(df), CheckDockerfile(f, versions, list)...)
	compose, err := read("docker/compose.yaml")
	if err != nil {
		return nil, err
	}
	probs = append(probs, CheckCompose(compose, f, versions)...)
	files, err := RepoFiles(root)
	if err != nil {
		return nil, err
	}
	probs = append(probs, CheckNoLatest(root, files)...)
	return probs, nil
}
