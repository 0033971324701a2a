// Package apiref keeps the students' API reference, notebooks/reference.ipynb,
// true to the code. Its test reads the notebook and fails when a declaration
// it shows (`func (t *Tensor) Sum(dims ...int) *Tensor`) is not one of the agx
// packages' exported declarations, word for word; when it names a package
// member (`agx.Randn`) or calls a method that does not exist; and, where the
// instructor notebooks are present, when an exercise's solution calls an agx
// function or method that the reference does not document.
//
// The package has no code of its own: the test is the point.
package apiref
