//go:build race

package tensor

// raceEnabled lets exhaustive numeric sweeps thin out under the race detector,
// which slows plain arithmetic loops about fivefold and finds nothing in them.
const raceEnabled = true
