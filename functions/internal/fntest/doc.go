// Package fntest holds the test helpers shared by the tests of package
// functions and of functions/solutions (the reference solutions of graded
// exercises), so that both check their Functions the same way.
//
// Three families:
//
//   - agx-tensor checks with one tolerance (Randn, Vec, Close, Values,
//     Gradients, Match, the forward table of Case and RunCases, PanicsWith);
//   - gradient checks on tensor data with rtol/atol (Leaf, LeafOf, CloseData,
//     Elements, Grads, Compare, GradChecks, PanicsIs);
//   - the PyTorch comparison (OracleSpec, RunOracle), which skips where the
//     oracle is not available.
//
// DTypes and Tol serve all three. It is a normal package so that both test
// packages can import it; it lies under functions/internal so that only
// functions and its subpackages can.
package fntest
