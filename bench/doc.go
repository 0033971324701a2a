// Package bench defines the workloads of agx's performance comparison with
// PyTorch (docs in bench/README.md; targets in the project's performance
// notes). Each workload exists twice: here in Go, and in torch_workloads.py
// with the same shapes, dtypes and steps. `agx bench` runs both in one
// invocation, alternating between them, and reports medians and ratios.
package bench
