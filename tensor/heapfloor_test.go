package tensor

import "testing"

func TestParseHeapFloor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       string
		set     bool
		want    int
		wantErr bool
	}{
		{"unset", "", false, defaultHeapFloorMiB(), false},
		{"empty", "", true, defaultHeapFloorMiB(), false},
		{"off", "0", true, 0, false},
		{"value", "64", true, 64, false},
		{"negative", "-1", true, defaultHeapFloorMiB(), true},
		{"huge", "100000", true, defaultHeapFloorMiB(), true},
		{"unit", "16MB", true, defaultHeapFloorMiB(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseHeapFloor(tc.s, tc.set)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("parseHeapFloor(%q, %v) = %d, %v; want %d, error %v", tc.s, tc.set, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestDefaultHeapFloor checks that the default floor follows GOMAXPROCS:
// 4 MiB on one P, 64 MiB on more.
func TestDefaultHeapFloor(t *testing.T) {
	for _, tc := range []struct{ procs, want int }{{1, 4}, {2, 64}, {8, 64}} {
		withProcs(tc.procs, func() {
			if got, err := parseHeapFloor("", false); got != tc.want || err != nil {
				t.Errorf("GOMAXPROCS=%d: default floor %d MiB, %v; want %d", tc.procs, got, err, tc.want)
			}
		})
	}
}

// TestHeapFloorHeld checks that the floor is allocated at the configured
// size and stays reachable (the collector's target depends on it).
func TestHeapFloorHeld(t *testing.T) {
	if got := len(heapFloor) >> 20; got != HeapFloorMiB() {
		t.Fatalf("heap floor holds %d MiB, HeapFloorMiB says %d", got, HeapFloorMiB())
	}
}
