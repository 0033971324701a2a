// Package autograde grades a class's exercise notebooks: it rebuilds each
// submission from the instructor source (Rebuild), runs it through Jupyter
// and the Go kernel under time, output and resource limits with a fresh
// nonce in every test cell, scores it from the source's points and the
// results that carry their cell's nonce, flags suspicious code for review,
// and keeps a gradebook (Grade, Entry, WriteClassTable, overrides) from
// which it writes per-student HTML feedback (WriteFeedback). How each kernel
// runs isolated (slot users, namespaces, private /tmp) is package sandbox's.
// `agx autograde`
// and `agx feedback` are its command-line front ends; docs/grading.md
// describes the formats and the threat model.
package autograde
