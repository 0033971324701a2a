package nb

import (
	"sync/atomic"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
)

// GoNB carries a cell's output on two channels: what the program writes to
// standard output (fmt.Println) goes through a pipe that one goroutine of the
// kernel copies to Jupyter as "stream" messages, and displays (HTML, pictures,
// Markdown) through a named pipe that another goroutine turns into
// "display_data" messages. Text printed right before a display therefore
// raced it: in a test run the Markdown came out above the text in 1 of 5 runs.
//
// beforeDisplay puts every display after the text printed before it:
//  1. it waits until the standard output pipe is empty (FIONREAD), that is,
//     until the kernel's copying goroutine has read every byte; that goroutine
//     hands what it read to Jupyter in the same call, before it reads again;
//  2. it then makes a round trip on the display channel (gonbui.Sync), which
//     gives that goroutine time to finish the hand-over;
//  3. on a busy machine the goroutine can be held between its read and its
//     hand-over for longer than a round trip (a lesson's text came out below
//     the display printed after it, once in a full test run), so it waits four
//     round trips' time more (from settleMin to settleMax) and makes one more
//     round trip before the display is written.
//
// This makes a display overtaking text unlikely, not impossible: nothing tells
// the program when the kernel has handed the text over.
//
// All this is needed only when text may be on its way: when the program has
// written something since the last display (the kernel's count of bytes
// written, bytesWritten) or the pipe holds text (a child process that shares
// standard output wrote it). Displays with neither between them (a loop of
// nb.Println that prints nothing else) pay none of it; any write counts, to a
// file or by a child process the program waited for too.
//
// The other order (a display, then text) needs nothing: each display already
// waits for GoNB's acknowledgement before returning. Text written to standard
// error is not ordered (GoNB sends it on a third path).
func beforeDisplay() {
	if !gonbui.IsNotebook {
		return
	}
	if n, ok := bytesWritten(); ok && n == writtenAtDisplay.Load() {
		if unread, _ := stdoutUnread(); unread == 0 {
			return
		}
	}
	drainStdout(drainLimit)
	// Even when the pipe was empty already, its last bytes may have been read
	// only just now: the round trips cover their hand-over too.
	start := time.Now()
	if !syncWithin(syncTimeout) {
		return // GoNB does not answer: waiting longer would not help
	}
	time.Sleep(min(max(settleMin, 4*time.Since(start)), settleMax))
	syncWithin(syncTimeout)
}

// afterDisplay waits until GoNB has read every display sent before it: GoNB
// stops reading the display channel when the cell's program exits, so an
// output sent just before exit could otherwise be lost. The wait is bounded
// (syncTimeout) in case the acknowledgement never comes; it reports whether
// GoNB answered.
func afterDisplay() bool {
	ok := syncWithin(syncTimeout)
	if n, known := bytesWritten(); known {
		writtenAtDisplay.Store(n)
	}
	return ok
}

// writtenAtDisplay is bytesWritten at the end of the last display.
var writtenAtDisplay atomic.Int64

// settleMin and settleMax bound the wait of beforeDisplay's third step.
const (
	settleMin = time.Millisecond
	settleMax = 50 * time.Millisecond
)

// syncTimeout bounds each wait for GoNB's acknowledgement of a display.
const syncTimeout = 10 * time.Second

// drainLimit bounds beforeDisplay's wait for GoNB to read standard output (a
// kernel that stopped reading must not hang the cell).
const drainLimit = 5 * time.Second

// syncWithin is gonbui.Sync with a time limit; it reports whether GoNB
// answered.
func syncWithin(limit time.Duration) bool {
	done := make(chan struct{})
	go func() {
		gonbui.Sync()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}
