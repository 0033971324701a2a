// Package autograde grades a class's exercise notebooks. It orchestrates
// the packages that do each step: gotool makes sure the kernel's module
// cache is complete, rebuild rebuilds each submission from the instructor
// source and reviews the student's code, sandbox runs it through Jupyter
// and the Go kernel isolated and under time, output and resource limits,
// score grades the executed notebook, and gradebook records the entries,
// the class table and the per-student feedback. Grade runs the whole for a
// list of submissions, on the host or in containers (docker.go).
// `agx autograde` and `agx feedback` are its command-line front ends;
// docs/grading.md describes the formats and the threat model.
package autograde
