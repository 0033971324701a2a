// Package solutions holds the reference solutions of the course's graded
// exercises (notebooks/exercises): the custom Functions a student is asked to
// write, with their forward and backward formulas.
//
// # Overview
//
//   - MySigmoidFunction / MySigmoid and MyLinearFunction / MyLinear: the
//     sigmoid-linear exercise (examples B1-B3, D5).
//   - GELUFunction / GELU and GELUTanh: the gelu exercise (C24).
//   - SiLUFunction / SiLU: the silu exercise (C24).
//   - BatchNormFunction / BatchNorm: the batchnorm exercise (C24; the teaching
//     version of the built-in agx.BatchNorm).
//   - SoftRankFunction / SoftRank: the soft-rank exercise (C24).
//   - ScaledDotProductAttentionFunction / ScaledDotProductAttention: the
//     attention exercise (C25; optional Bool mask, a fully masked row gives
//     zero output and zero gradients).
//
// The package is instructor-side. The hidden tests of the exercises compare a
// submission with it, so the grader's module has it; the student workspace's
// module and the student image do not (docker/instructor-only lists it, and
// internal/studentview fails when a file students get holds a solution). No
// package that students get may import it. The naming rule of package
// functions holds here too.
//
// # Errors
//
// As in package functions: misuse panics with agx's typed errors.
package solutions
