//go:build !linux

package nb

import "time"

// drainStdout cannot see into the standard output pipe on this system: the
// order of text printed just before a display is then up to GoNB.
func drainStdout(time.Duration) bool { return true }

// bytesWritten is not known on this system: every display waits as though
// text had been printed before it.
func bytesWritten() (int64, bool) { return 0, false }

// stdoutUnread cannot see into the standard output pipe on this system.
func stdoutUnread() (int, bool) { return 0, false }
