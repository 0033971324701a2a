// Package grade is the grading kit that the test cells of agx's exercise
// notebooks use.
//
// # Overview
//
// A test cell names its nbgrader grade_id, runs checks worth points, and
// reports:
//
//	%%
//	g := grade.New("gelu-forward")
//	g.Check("matches the formula", 2, func(c *grade.C) {
//		x := agx.FromSlice([]float64{-1, 0, 1})
//		c.Close(GELU(x), ReferenceGELU(x), 1e-6, 1e-9)
//	})
//	g.Hidden() // checks after this count but their messages stay private
//	g.Check("gradient", 3, func(c *grade.C) {
//		c.GradCheck(GELU, []*agx.Tensor{agx.FromSlice([]float64{0.5, -2})})
//	})
//	g.Done()
//
// Each check runs in its own goroutine under recover with its own deadline
// (DefaultTimeout, or Grader.Timeout): a failed assertion, a panic or an
// endless loop in the code under test costs that check its points, never the
// cell. A check scores all its points or none.
//
// Done emits one display_data output: an HTML table for the student, a
// plain-text report, and the Result as JSON under MIMEType for agx autograde,
// which reads it back with ParseOutput. Outside a notebook (in go test, or a
// plain program) Done prints the plain-text report. Either way it returns the
// Result.
//
// # The secret and the MAC
//
// The JSON carries a MAC (Result.MAC): an HMAC-SHA256 of the result, keyed
// by the secret that agx autograde hands to the test cell's program. The
// secret is never in the program's source (GoNB writes every cell's program
// to a file that student code can read, and the binary holds its string
// constants), nor in the result (which student code in the same program
// could intercept on its way to the notebook). The grader writes it into a
// file just before the test cell runs (SecretEnv names the file); this
// package's init reads and removes it, before any code of package main
// runs, and only the Grader created by the test cell's own main receives
// it. A result whose MAC does not verify (Result.Verify) was not produced,
// as it stands, by the restored test cell. See docs/grading.md for what this
// does and does not protect against.
//
// # Errors
//
// Assertions on C fail the check with a message meant for the student. The
// messages of hidden checks are kept out of feedback. Misuse of the kit by the
// test author (an empty or repeated check name, negative points, Check after
// Done) panics, so that it shows while the exercise is written.
package grade
