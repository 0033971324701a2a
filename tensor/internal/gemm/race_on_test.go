//go:build race

package gemm

// raceEnabled thins the serial size sweeps under the race detector (thin),
// which slows their reference loops about fivefold and finds nothing in
// them; the threaded products of TestLarge run whole.
const raceEnabled = true
