// Package score grades an executed, rebuilt notebook (Score): each test
// cell gets its points from the one result that carries its nonce and
// that this run's secret authenticates; results anywhere else are flagged
// as forged. VoidAfterFlags takes the points of the test cells after code
// that could forge them, and Sanitize keeps run-dependent paths and
// terminal escapes out of the gradebook's messages.
package score
