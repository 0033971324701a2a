package nb

import (
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
