package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress reports `agx run`'s progress on stderr: one line per finished cell,
// and on a terminal also a spinner line for the running cell with its elapsed
// time.
type progress struct {
	mu   sync.Mutex
	w    io.Writer
	tty  bool
	busy string // label of the running step ("" when idle)
	t0   time.Time
	stop chan struct{}
}

var spinnerFrames = []string{"|", "/", "-", "\\"}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, tty: isTerminal(w)}
	if p.tty {
		p.stop = make(chan struct{})
		go p.spin()
	}
	return p
}

// isTerminal reports whether w is a character device (and TERM is not "dumb").
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) spin() {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for frame := 0; ; frame++ {
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
		p.mu.Lock()
		if p.busy != "" {
			fmt.Fprintf(p.w, "\r\x1b[K%s %s  %.1fs", spinnerFrames[frame%len(spinnerFrames)], p.busy, time.Since(p.t0).Seconds())
		}
		p.mu.Unlock()
	}
}

// close stops the spinner.
func (p *progress) close() {
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
}

// setBusy shows label on the spinner line (terminal only); "" clears it.
func (p *progress) setBusy(label string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.busy != "" && label == "" {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	p.busy, p.t0 = label, time.Now()
}

// println prints a finished line (above the spinner line on a terminal).
func (p *progress) println(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.busy != "" {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *progress) notebook(path string, codeCells int) {
	p.println("== %s (%d code %s)", path, codeCells, plural(codeCells, "cell", "cells"))
	p.setBusy("starting the kernel")
}

func (p *progress) kernelUp() { p.setBusy("") }

func (p *progress) cellStart(k, n int, firstLine string) {
	p.setBusy(fmt.Sprintf("[%d/%d] %s", k, n, clipLine(firstLine, 60)))
}

func (p *progress) cellDone(k, n int, firstLine string, seconds float64, ok bool) {
	p.setBusy("")
	p.println("  [%*d/%d] %6.2fs  %-4s  %s", digits(n), k, n, seconds, verdict(boolToFailures(!ok)), clipLine(firstLine, 60))
}

func (p *progress) cellSkipped(k, n int, reason string) {
	p.println("  [%*d/%d] skipped: %s", digits(n), k, n, reason)
}

func (p *progress) wrote(path string) {
	p.setBusy("")
	p.println("  wrote %s", path)
}

func (p *progress) fail(path string, failures []string) {
	p.setBusy("")
	p.println("FAIL %s", path)
	for _, f := range failures {
		p.println("  - %s", strings.ReplaceAll(f, "\n", "\n    "))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func digits(n int) int { return len(fmt.Sprint(n)) }

func boolToFailures(failed bool) int {
	if failed {
		return 1
	}
	return 0
}
