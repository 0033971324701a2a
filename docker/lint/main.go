// Command lint runs BuildKit's own Dockerfile checks (the rules behind
// `docker build --check`) on docker/Dockerfile without a Docker engine: every
// target, with the default build arguments and with AGX_GPU=1 (the CUDA variant). Any
// parse error or lint warning fails it. It is a separate module so that
// BuildKit stays out of agx's dependencies; `make test` runs it.
//
// Usage: go run . DOCKERFILE VERSIONS_ENV
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerui"
	"github.com/sirupsen/logrus"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: lint DOCKERFILE VERSIONS_ENV")
		os.Exit(2)
	}
	// BuildKit logs its (expected, offline) failures to resolve the base images.
	logrus.SetOutput(io.Discard)
	n, err := run(os.Args[1], os.Args[2], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docker lint:", err)
		os.Exit(1)
	}
	if n > 0 {
		fmt.Printf("docker lint: %d warning(s)\n", n)
		os.Exit(1)
	}
}

// run lints every target of the Dockerfile once per variant (CPU, CUDA) and returns the
// number of warnings it printed.
func run(dockerfile, versionsFile string, out io.Writer) (int, error) {
	dt, err := os.ReadFile(dockerfile)
	if err != nil {
		return 0, err
	}
	versions, err := readVersions(versionsFile)
	if err != nil {
		return 0, err
	}
	res, err := parser.Parse(strings.NewReader(string(dt)))
	if err != nil {
		return 0, err
	}
	stages, _, err := instructions.Parse(res.AST, nil)
	if err != nil {
		return 0, err
	}
	variants := []struct {
		name string
		args map[string]string
	}{
		{"cpu", map[string]string{"BASE_IMAGE": versions["BASE_IMAGE"]}},
		{"cuda", map[string]string{"BASE_IMAGE": versions["BASE_IMAGE"], "AGX_GPU": "1"}},
	}
	warnings := 0
	seen := map[string]bool{} // the same warning shows up in every target that includes its line
	for _, v := range variants {
		for _, st := range stages {
			if st.Name == "" {
				continue
			}
			opt := dockerfile2llb.ConvertOpt{
				Config:    dockerui.Config{Target: st.Name, BuildArgs: v.args},
				SourceMap: llb.NewSourceMap(nil, dockerfile, "Dockerfile", dt),
			}
			def, err := llb.Scratch().Marshal(context.Background())
			if err != nil {
				return warnings, err
			}
			opt.SourceMap.Definition = def
			lint, err := dockerfile2llb.DockerfileLint(context.Background(), dt, opt)
			if err != nil {
				return warnings, fmt.Errorf("%s, target %s: %w", v.name, st.Name, err)
			}
			for _, w := range lint.Warnings {
				line := 0
				if w.Location != nil && len(w.Location.Ranges) > 0 {
					line = int(w.Location.Ranges[0].Start.Line)
				}
				msg := fmt.Sprintf("%s:%d: %s: %s", dockerfile, line, w.RuleName, w.Detail)
				if seen[msg] {
					continue
				}
				seen[msg] = true
				fmt.Fprintf(out, "%s (%s, target %s)\n", msg, v.name, st.Name)
				warnings++
			}
		}
	}
	if warnings == 0 {
		fmt.Fprintf(out, "docker lint: %s: %d targets x {cpu, cuda}, no warnings\n", dockerfile, len(stages))
	}
	return warnings, nil
}

// readVersions reads the KEY=value lines of docker/versions.env.
func readVersions(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = strings.Trim(v, `"`)
		}
	}
	if out["BASE_IMAGE"] == "" {
		return nil, fmt.Errorf("%s has no BASE_IMAGE", path)
	}
	return out, sc.Err()
}
