// Package arch holds the test that keeps agx's dependency direction true:
// tensor ← agx ← functions/nn/grade ← cmd; gpu → tensor only; only agx/nb
// talks to GoNB.
package arch
