//go:build race

package vmath

// raceEnabled lets exhaustive numeric sweeps thin out under the race detector.
const raceEnabled = true
