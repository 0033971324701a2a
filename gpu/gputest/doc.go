// Package gputest gives tests the gpu Backend that the build tags select: the
// GPU with -tags cuda, the host emulator with -tags cudaemu. Without either
// tag it is empty.
package gputest
