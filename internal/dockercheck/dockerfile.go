// Package dockercheck statically checks the lab image recipe (docker/Dockerfile,
// docker/compose.yaml) against the project's rules, without a Docker engine (`make
// image-test` builds and runs the images where one can run): base images pinned by
// digest, versions equal to docker/versions.env, Go's h1: pin, no "# syntax="
// directive, a non-root jovyan user, a health check, port 8888, tini as init,
// GOTOOLCHAIN=local, no CUDA stub libraries on the runtime library path, and a
// student image that never receives the instructor notebooks.
package dockercheck

import (
	"encoding/json"
	"fmt"
	"strings"
)

// An Instruction is one Dockerfile instruction with its continuation lines joined.
type Instruction struct {
	Line  int               // 1-based line where it starts
	Cmd   string            // upper case: FROM, RUN, COPY, ...
	Flags map[string]string // --name=value flags (COPY --from, FROM --platform, ...)
	Args  string            // the rest of the instruction, flags removed
}

// A Stage is a FROM instruction and those that follow it up to the next FROM.
type Stage struct {
	Name  string // the AS name, lower case; "" when unnamed
	Base  string // the FROM argument with global ARG defaults substituted
	From  Instruction
	Body  []Instruction
	Index int
}

// File is a parsed Dockerfile.
type File struct {
	GlobalArgs map[string]string // ARGs before the first FROM, with their defaults
	Args       []Instruction     // every ARG instruction, global and per stage
	Stages     []*Stage
}

// Parse reads a Dockerfile. It understands what the checks need: comments and
// parser directives, backslash continuations, flags, ARG defaults and stages.
func Parse(src string) (*File, error) {
	f := &File{GlobalArgs: map[string]string{}}
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var cur *Stage
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for {
			cont := strings.HasSuffix(line, `\`)
			b.WriteString(strings.TrimSuffix(line, `\`))
			if !cont {
				break
			}
			b.WriteByte(' ')
			// Comment and empty lines inside a continuation are dropped.
			for i++; i < len(lines); i++ {
				line = strings.TrimSpace(lines[i])
				if line != "" && !strings.HasPrefix(line, "#") {
					break
				}
			}
			if i >= len(lines) {
				return nil, fmt.Errorf("line %d: continuation at the end of the file", start)
			}
		}
		in := parseInstruction(start, b.String())
		switch in.Cmd {
		case "FROM":
			fields := strings.Fields(in.Args)
			if len(fields) == 0 {
				return nil, fmt.Errorf("line %d: FROM without an image", start)
			}
			st := &Stage{From: in, Base: Expand(fields[0], f.GlobalArgs), Index: len(f.Stages)}
			if len(fields) >= 3 && strings.EqualFold(fields[1], "AS") {
				st.Name = strings.ToLower(fields[2])
			}
			f.Stages = append(f.Stages, st)
			cur = st
		case "ARG":
			f.Args = append(f.Args, in)
			if cur == nil {
				name, val, _ := strings.Cut(in.Args, "=")
				f.GlobalArgs[strings.TrimSpace(name)] = unquote(strings.TrimSpace(val))
			} else {
				cur.Body = append(cur.Body, in)
			}
		default:
			if cur == nil {
				return nil, fmt.Errorf("line %d: %s before the first FROM", start, in.Cmd)
			}
			cur.Body = append(cur.Body, in)
		}
	}
	if len(f.Stages) == 0 {
		return nil, fmt.Errorf("no FROM instruction")
	}
	return f, nil
}

func parseInstruction(line int, text string) Instruction {
	cmd, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	in := Instruction{Line: line, Cmd: strings.ToUpper(cmd), Flags: map[string]string{}}
	rest = strings.TrimSpace(rest)
	// Flags come first (FROM, COPY, ADD, RUN, HEALTHCHECK).
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		name, val, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		in.Flags[name] = val
		rest = strings.TrimSpace(after)
	}
	in.Args = rest
	return in
}

// Stage returns the stage named name, or nil.
func (f *File) Stage(name string) *Stage {
	for _, s := range f.Stages {
		if s.Name != "" && s.Name == strings.ToLower(name) {
			return s
		}
	}
	return nil
}

// Chain returns the stages a target is built from, the root first: the target's
// FROM names an earlier stage, whose FROM names another, and so on.
func (f *File) Chain(target *Stage) []*Stage {
	var chain []*Stage
	for s := target; s != nil; s = f.Stage(s.Base) {
		chain = append([]*Stage{s}, chain...)
		if len(chain) > len(f.Stages) {
			break // a cycle; Docker rejects it anyway
		}
	}
	return chain
}

// Vars returns the variables visible in stage s: global ARG defaults redeclared
// in the stage, the stage's own ARG defaults and its ENV values, in order.
func (f *File) Vars(s *Stage) map[string]string {
	vars := map[string]string{}
	for _, st := range f.Chain(s) {
		for _, in := range st.Body {
			switch in.Cmd {
			case "ARG":
				name, val, has := strings.Cut(in.Args, "=")
				name = strings.TrimSpace(name)
				if has {
					vars[name] = Expand(unquote(strings.TrimSpace(val)), vars)
				} else if g, ok := f.GlobalArgs[name]; ok {
					vars[name] = g
				}
			case "ENV":
				for k, v := range EnvPairs(in.Args) {
					vars[k] = Expand(v, vars)
				}
			}
		}
	}
	return vars
}

// Expand substitutes $NAME, ${NAME} and ${NAME:-default} from vars; unknown
// names without a default are left as they are.
func Expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				break
			}
			expr := s[i+2 : i+end]
			name, def, hasDef := strings.Cut(expr, ":-")
			if v, ok := vars[name]; ok && (v != "" || !hasDef) {
				b.WriteString(v)
			} else if hasDef {
				b.WriteString(def)
			} else {
				b.WriteString(s[i : i+end+1])
			}
			i += end
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if v, ok := vars[s[i+1:j]]; ok && j > i+1 {
			b.WriteString(v)
		} else {
			b.WriteString(s[i:j])
		}
		i = j - 1
	}
	return b.String()
}

// EnvPairs parses the arguments of ENV: KEY=value pairs (values may be quoted)
// or the legacy single "KEY value" form.
func EnvPairs(args string) map[string]string {
	out := map[string]string{}
	words := splitWords(args)
	if len(words) > 0 && !strings.Contains(words[0], "=") {
		key, val, _ := strings.Cut(strings.TrimSpace(args), " ")
		out[key] = strings.TrimSpace(val)
		return out
	}
	for _, w := range words {
		k, v, _ := strings.Cut(w, "=")
		out[k] = unquote(v)
	}
	return out
}

// splitWords splits on blanks outside double or single quotes.
func splitWords(s string) []string {
	var words []string
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			b.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
			b.WriteByte(c)
		case c == ' ' || c == '\t':
			if b.Len() > 0 {
				words = append(words, b.String())
				b.Reset()
			}
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 {
		words = append(words, b.String())
	}
	return words
}

// unquote removes one level of matching surrounding quotes, everywhere in a word
// such as KEY="a b" → a b.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// ExecForm returns the words of a JSON-array (exec form) argument, or nil when
// the argument is in shell form.
func ExecForm(args string) []string {
	var words []string
	if err := json.Unmarshal([]byte(strings.TrimSpace(args)), &words); err != nil {
		return nil
	}
	return words
}
