package nb

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// stdoutUnread returns how many bytes written to the program's standard
// output (file descriptor 1, GoNB's pipe, whatever os.Stdout has been set
// to since) still sit in the pipe, unread by GoNB. ok is false when it is
// not a pipe (a terminal, a file: nothing to wait for).
func stdoutUnread() (n int, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstat(1, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return 0, false
	}
	n, err := unix.IoctlGetInt(1, unix.TIOCINQ) // FIONREAD: also answers on a pipe
	if err != nil {
		return 0, false
	}
	return n, true
}

// drainStdout waits, at most limit, until GoNB has read everything the
// program wrote to standard output.
func drainStdout(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		n, ok := stdoutUnread()
		if !ok || n == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// bytesWritten returns how many bytes the program has written so far, to any
// file, pipe or socket (wchar in /proc/self/io, all threads): when it has not
// changed since the last display, no text can be waiting to go before the
// next one. ok is false when the count cannot be read.
func bytesWritten() (n int64, ok bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(b) {
		if v, found := bytes.CutPrefix(line, []byte("wchar:")); found {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
