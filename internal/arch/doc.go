// Package arch holds the one test of agx's layering, checked in every
// combination of the project's build tags (openblas, cuda, cudaemu, race,
// agx_goid_stack: 32 builds, the default one included): tensor ← agx ←
// functions/nn/grade ← cmd; gpu depends on tensor only; only agx/nb talks to
// GoNB and draws plots; only tensor's openblas build imports the OpenBLAS
// binding (tensor/internal/openblas); and cgo only where a build tag asks
// for it. A package that a rule names and that is missing in a build fails
// the test, and so does a build tag that a file of the module uses and
// that none of those builds sets (TestBuildsCoverEveryTag).
package arch
