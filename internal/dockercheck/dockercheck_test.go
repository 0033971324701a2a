package dockercheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/studentview"
)

const root = "../.."

func readRepo(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRepo runs every check on this repository's docker/ directory.
func TestRepo(t *testing.T) {
	probs, err := CheckRepo(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Error(p)
	}
}

// TestDockerfileMutations breaks the real Dockerfile one rule at a time and
// checks that the rule's check notices.
func TestDockerfileMutations(t *testing.T) {
	versions, err := ParseVersions(readRepo(t, "docker/versions.env"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := studentview.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	orig := readRepo(t, "docker/Dockerfile")
	base := versions["BASE_IMAGE"]
	tag, _, _ := strings.Cut(base, "@")
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{"base by tag only", "ARG BASE_IMAGE=" + base, "ARG BASE_IMAGE=" + tag, "not pinned by digest"},
		{"base latest", "ARG BASE_IMAGE=" + base, "ARG BASE_IMAGE=debian:latest", "not pinned by digest"},
		{"go version drift", "ARG GO_VERSION=" + versions["GO_VERSION"], "ARG GO_VERSION=1.26.7", "differs from docker/versions.env"},
		{"go checksum missing", "ARG GO_H1_AMD64=" + versions["GO_H1_AMD64"], "ARG GO_H1_X=" + versions["GO_H1_AMD64"], "no ARG GO_H1_AMD64"},
		{"go checksum drift", "ARG GO_H1_AMD64=" + versions["GO_H1_AMD64"], "ARG GO_H1_AMD64=h1:AAAAe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM=", "differs from docker/versions.env"},
		{"root user", "USER ${NB_UID}", "USER root", "want jovyan"},
		{"uid changed", "ARG NB_UID=1000\nARG NB_GID=100\nCOPY --from=student-src", "ARG NB_UID=1001\nARG NB_GID=100\nCOPY --from=student-src", "want jovyan"},
		{"no user", "USER ${NB_UID}\n", "", "want jovyan"},
		{"user after cmd", "USER ${NB_UID}\n", "", "the user set before CMD"},
		{"no healthcheck", "HEALTHCHECK --interval", "# HEALTHCHECK --interval", "no HEALTHCHECK"},
		{"no expose", "EXPOSE 8888", "EXPOSE 9999", "no EXPOSE 8888"},
		{"no tini", `ENTRYPOINT ["/usr/bin/tini", "-g", "--"]`, `ENTRYPOINT ["/bin/bash", "-c"]`, "does not run tini"},
		{"toolchain auto", "GOTOOLCHAIN=local", "GOTOOLCHAIN=auto", "no ENV GOTOOLCHAIN=local"},
		{"stubs on loader path", "LANG=C.UTF-8 \\", "LANG=C.UTF-8 LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs \\", "CUDA stubs"},
		{"student copies context", "COPY --from=student-src /opt/agx /opt/agx", "COPY . /opt/agx", "from the build context"},
		{"student copies exercises", "COPY --from=student-src /opt/agx /opt/agx", "COPY --from=student-src /opt/agx /opt/agx\nCOPY notebooks/exercises /opt/agx/notebooks/exercises", "from the build context"},
		{"student copies from source", "COPY --from=student-src /opt/agx /opt/agx", "COPY --from=source /opt/agx /opt/agx", `from stage "source"`},
		{"exercises not removed", "RUN rm -rf /opt/agx/notebooks/exercises /opt/agx/functions/solutions /opt/agx/bench/solution_workloads.go /opt/agx/bench/course_workloads.go /opt/agx/bench/course_test.go", "RUN rm -rf /opt/agx/functions/solutions /opt/agx/bench/solution_workloads.go /opt/agx/bench/course_workloads.go /opt/agx/bench/course_test.go", `from stage "student-src", which holds notebooks/exercises/`},
		{"solutions not removed", "RUN rm -rf /opt/agx/notebooks/exercises /opt/agx/functions/solutions /opt/agx/bench/solution_workloads.go /opt/agx/bench/course_workloads.go /opt/agx/bench/course_test.go /opt/agx/internal/nbgrader/testdata/gelu.ipynb /opt/agx/internal/course/answers_test.go", "RUN rm -rf /opt/agx/notebooks/exercises", `which holds bench/course_test.go, bench/course_workloads.go, bench/solution_workloads.go, functions/solutions/, internal/course/answers_test.go, internal/nbgrader/testdata/gelu.ipynb`},
		{"nothing removed", "RUN rm -rf /opt/agx/notebooks/exercises /opt/agx/functions/solutions /opt/agx/bench/solution_workloads.go /opt/agx/bench/course_workloads.go /opt/agx/bench/course_test.go", "RUN true", `from stage "student-src"`},
		{"student copies solutions", "COPY --from=student-src /opt/agx /opt/agx", "COPY --from=student-src /opt/agx /opt/agx\nCOPY functions /opt/agx/functions", "(it contains functions/solutions/)"},
		{"agx built with solutions", "FROM student-src AS agx-bin", "FROM source AS agx-bin", `from stage "agx-bin", which holds`},
		{"assign beside solutions", "FROM toolchain AS assign", "FROM source AS assign", `copies /out/exercises from stage "assign", which holds bench/course_test.go, bench/course_workloads.go, bench/solution_workloads.go, functions/solutions/, internal/course/answers_test.go, internal/nbgrader/testdata/gelu.ipynb, notebooks/exercises/`},
		{"grader is default", "FROM student AS lab", "FROM student AS labx", "no stage \"lab\""},
		{"kernel name", "kernel_name=agx-go", "kernel_name=gonb", "kernel_name=gonb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(orig, tc.old) {
				t.Fatalf("docker/Dockerfile no longer contains %q; update this test", tc.old)
			}
			src := strings.Replace(orig, tc.old, tc.new, 1)
			if tc.name == "user after cmd" {
				cmd := `CMD ["/opt/agx/docker/scripts/start-lab.sh"]`
				src = strings.Replace(src, cmd, cmd+"\nUSER ${NB_UID}", 1)
			}
			f, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			probs := CheckDockerfile(f, versions, list)
			for _, p := range probs {
				if strings.Contains(p, tc.want) {
					return
				}
			}
			t.Errorf("no problem mentions %q; got %q", tc.want, probs)
		})
	}
}

// TestVersionsGoHash checks that the Go pin must be an h1: hash.
func TestVersionsGoHash(t *testing.T) {
	versions, err := ParseVersions(readRepo(t, "docker/versions.env"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(readRepo(t, "docker/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := studentview.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "d0f743b33e8d8945e6b1f432edd15785c70507121d6e2a723b21285eddf8b57b", "h1:short="} {
		v := map[string]string{}
		for k, val := range versions {
			v[k] = val
		}
		v["GO_H1_AMD64"] = bad
		found := false
		for _, p := range CheckDockerfile(f, v, list) {
			found = found || strings.Contains(p, "GO_H1_AMD64") && strings.Contains(p, "not an h1: hash")
		}
		if !found {
			t.Errorf("GO_H1_AMD64=%q was not reported", bad)
		}
	}
}

// TestDirectives checks that a "# syntax=" line before the first instruction is
// reported, in any spelling, and that the same text after it is not a directive.
func TestDirectives(t *testing.T) {
	orig := readRepo(t, "docker/Dockerfile")
	if probs := CheckDirectives(orig); len(probs) > 0 {
		t.Errorf("docker/Dockerfile: %q", probs)
	}
	for _, d := range []string{"# syntax=docker/dockerfile:1", "#syntax = docker/dockerfile:1.7", "# SYNTAX=example.org/frontend"} {
		if probs := CheckDirectives(d + "\n" + orig); len(probs) != 1 {
			t.Errorf("%q: got %q, want one problem", d, probs)
		}
	}
	if probs := CheckDirectives("FROM x\n# syntax=docker/dockerfile:1\n"); len(probs) > 0 {
		t.Errorf("a comment after FROM is not a directive; got %q", probs)
	}
}

func TestCompose(t *testing.T) {
	versions, err := ParseVersions(readRepo(t, "docker/versions.env"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(readRepo(t, "docker/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	orig := readRepo(t, "docker/compose.yaml")
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{"unpinned base", "BASE_IMAGE: " + versions["BASE_IMAGE"], "BASE_IMAGE: debian:bookworm-slim", "is not BASE_IMAGE"},
		{"unknown target", "target: grader", "target: teacher", `target "teacher"`},
		{"no work volume", "agx-work:/home/jovyan/work", "agx-work:/data", "no volume mounted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(orig, tc.old) {
				t.Fatalf("docker/compose.yaml no longer contains %q; update this test", tc.old)
			}
			probs := CheckCompose(strings.ReplaceAll(orig, tc.old, tc.new), f, versions)
			for _, p := range probs {
				if strings.Contains(p, tc.want) {
					return
				}
			}
			t.Errorf("no problem mentions %q; got %q", tc.want, probs)
		})
	}
}

func TestNoLatest(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.sh":  "go install golang.org/x/tools/cmd/goimports@latest\n",
		"b.yml": "image: debian:latest\n",
		"c.sh":  "# the latest release is fine in prose\nGO=1.26.8\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		file string
		bad  bool
	}{
		{"a.sh", true},
		{"b.yml", true},
		{"c.sh", false},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got := CheckNoLatest(dir, []string{tc.file})
			if (len(got) > 0) != tc.bad {
				t.Errorf("CheckNoLatest(%s) = %q, want problems: %v", tc.file, got, tc.bad)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "x", "EMPTY": ""}
	tests := []struct{ in, want string }{
		{"$A/b", "x/b"},
		{"${A}b", "xb"},
		{"${EMPTY:-d}", "d"},
		{"${MISSING:-d}", "d"},
		{"${MISSING}", "${MISSING}"},
		{"$MISSING", "$MISSING"},
		{"a$", "a$"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := Expand(tc.in, vars); got != tc.want {
				t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEnvPairs(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]string
	}{
		{`A=1 B="two words" C=3`, map[string]string{"A": "1", "B": "two words", "C": "3"}},
		{`KEY some value`, map[string]string{"KEY": "some value"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got := EnvPairs(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("EnvPairs(%q) = %v, want %v", tc.in, got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("EnvPairs(%q)[%s] = %q, want %q", tc.in, k, got[k], v)
				}
			}
		})
	}
}
