// Package nb holds agx's notebook display helpers. It is the only agx package
// that talks to GoNB (through gonbui); the tensor, autograd and function
// packages never import it, so they build and test without Jupyter. It draws
// its pictures as SVG itself, with no plotting library: a cell's program
// stays small and quick to link, and its start-up leaves no parsed fonts or
// tables on the heap for every garbage collection to mark.
//
// # Overview
//
// Tables: Tensor and TensorWithGrad show a tensor as an HTML table captioned
// with its dtype, shape and autograd state (requires_grad, grad_fn), and its
// gradient beside it on request. One- and two-dimensional tensors give one
// table; higher ones give a table per leading index. Long dimensions and long
// runs of tables are cut to their first and last three entries. Show picks a
// renderer for each value it is given: tensors, strings, errors (in a red box)
// and anything else through fmt.
//
// Println is fmt.Println with tensors drawn as tables; its output also keeps
// the plain text, so the checks of `agx run` read the same numbers.
//
// Pictures: Graph draws the backward graph of agx.GraphDOT as SVG with
// Graphviz's dot program. PlotFunc, PlotLines, PlotCurve, PlotActivation and PlotSTE draw
// line plots (axes with round ticks, a grid, a legend at the top left; points
// that are not finite are left out): a function and its gradient as agx's
// backward computes it, the straight-through picture (hard forward, zero true
// gradient, STE gradient), training curves. Heatmap draws a matrix and
// JacobianMismatch the numerical and analytical Jacobians of a failed
// agx.GradCheck with their difference.
//
// Every display helper has a twin that returns its HTML or SVG (TensorHTML,
// GraphSVG, PlotActivationSVG, ...), for tests and for saving pictures. Their
// output depends only on their arguments.
//
// Outside a GoNB kernel the helpers print text on stdout instead (a tensor's
// String, or a one-line summary of a picture), so code written for a notebook
// also runs as an ordinary Go program.
//
// # Order of text and displays
//
// GoNB carries printed text and displays on different channels, so a display
// could overtake the text printed just before it. Every display of this
// package first waits until GoNB has taken in that text and, when text was
// printed since the last display, a little longer for GoNB to pass it on
// (order.go), so a cell's outputs come in the order the program made them, on
// a busy machine too, and stored outputs do not drift. Nothing tells the
// program when GoNB has passed text on, so this is very likely, not certain.
// Text on standard error is not ordered.
//
// # Errors
//
// Display helpers do not panic on bad input and return nothing: a picture that
// cannot be drawn (a ragged matrix, a function that is not element-wise) is
// replaced by the error in a red box, or by "error: ..." outside a notebook.
// The SVG twins return the error instead. GraphSVG returns ErrNoGraphviz when
// dot is not installed; Graph then shows the DOT text with a note on how to
// install Graphviz. GoNB drops every later display of a cell once one send has
// failed; Err reports that.
package nb
