package nb

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// withStdoutPipe points file descriptor 1 at a new pipe for the duration of
// f, which gets the read end.
func withStdoutPipe(t *testing.T, f func(r *os.File)) {
	t.Helper()
	saved, err := unix.Dup(1)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(int(w.Fd()), 1); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = unix.Dup2(saved, 1)
		unix.Close(saved)
		w.Close()
		r.Close()
	}()
	f(r)
}

func TestDrainStdout(t *testing.T) {
	tests := []struct {
		name      string
		write     string
		readAfter time.Duration // -1: nobody reads
		limit     time.Duration
		want      bool
	}{
		{"empty pipe", "", -1, time.Second, true},
		{"read after a while", "hello\n", 50 * time.Millisecond, 5 * time.Second, true},
		{"never read", "stuck\n", -1, 100 * time.Millisecond, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bool
			var unread, left int
			withStdoutPipe(t, func(r *os.File) {
				if tc.write != "" {
					if _, err := unix.Write(1, []byte(tc.write)); err != nil {
						t.Fatal(err)
					}
				}
				unread, _ = stdoutUnread()
				if tc.readAfter >= 0 {
					go func() {
						time.Sleep(tc.readAfter)
						buf := make([]byte, 64)
						_, _ = r.Read(buf)
					}()
				}
				start := time.Now()
				got = drainStdout(tc.limit)
				if d := time.Since(start); d > tc.limit+time.Second {
					t.Errorf("drainStdout took %v, limit %v", d, tc.limit)
				}
				left, _ = stdoutUnread()
			})
			if unread != len(tc.write) {
				t.Errorf("stdoutUnread() = %d before draining, want %d", unread, len(tc.write))
			}
			if got != tc.want {
				t.Errorf("drainStdout() = %v, want %v", got, tc.want)
			}
			if tc.want && left != 0 {
				t.Errorf("%d bytes unread after a successful drain", left)
			}
		})
	}
}

// TestBytesWritten: the count grows by what the program writes, from any
// goroutine, and stays put when it writes nothing.
func TestBytesWritten(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before, ok := bytesWritten()
	if !ok {
		t.Fatal("bytesWritten: /proc/self/io has no wchar")
	}
	done := make(chan error)
	go func() {
		_, err := w.Write([]byte("0123456789"))
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	after, _ := bytesWritten()
	if after-before < 10 {
		t.Errorf("wrote 10 bytes: the count went from %d to %d", before, after)
	}
	if again, _ := bytesWritten(); again != after {
		t.Errorf("nothing written: the count went from %d to %d", after, again)
	}
}
