// Package gotool looks after the Go toolchain that the grading kernel
// uses: it makes sure that the module cache holds every module a notebook's
// scratch module needs before the kernel runs without network
// (EnsureKernelModules), and it tells a failure of the kernel's Go tooling
// (goimports, `go get`, the go command) from a compile error in a cell
// (CellFailure).
package gotool
