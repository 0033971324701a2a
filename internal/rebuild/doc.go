// Package rebuild rebuilds a student's submission from the instructor
// source (Rebuild): locked and test cells come from the source, with a
// fresh nonce written into each test cell; answer cells come from the
// submission, or from the released stub where one is missing. It reviews
// the student's code statically (ScanStudentCells: shell and kernel magic,
// init functions, redefinitions, unsafe, os/exec, network, uses of what the
// exercise forbids), turns magic lines into comments (DisarmMagic), and
// tells another assignment's notebook from this one's (WrongNotebook).
package rebuild
