// Package nn is a small module layer on top of agx, for the sources' examples
// of nn.Module, training, export and quantisation.
//
// # Overview
//
// A Module has a Forward on one tensor, named Parameters and a train/eval
// mode. Linear (initialised like PyTorch: U(-1/√in, 1/√in) for weight and
// bias), the activations ReLU, Sigmoid, Tanh and Softmax, Func (any function
// of one tensor, which is how a custom agx Function becomes a layer) and
// Sequential (parameters named "0.weight", "2.bias" as in PyTorch's
// state_dict) are the building blocks; MSELoss, CrossEntropyLoss and
// SmoothL1Loss (on functions.SmoothL1) the criteria; SGD (momentum,
// dampening, Nesterov, weight decay) and Adam (bias correction, weight
// decay, AMSGrad) follow PyTorch's update rules step for step.
//
// Save and Load write and read parameters in the safetensors format;
// LoadStateDict reports missing, unexpected and mis-shaped keys as PyTorch's
// load_state_dict does. Trace records the ops a module runs, read from the
// autograd graph, into a Graph that runs again (Run), prints, and is saved
// with its parameters (SaveGraph, LoadGraph). Graph.WriteONNX and ExportONNX
// write ONNX (IR 8; opset 13, or a later one such as the 17 that PyTorch
// users pick, through ONNXOptions.Opset; dynamic batch), and ReadONNX runs such files
// back with agx ops. QuantizeDynamic, PrepareStatic/PrepareQAT and Convert
// make int8 models. docs/nn.md describes the formats and schemes.
//
// # Errors
//
// Misuse (a Linear given the wrong feature size) panics with a typed
// *tensor.Error, as in package agx. File, format and graph problems return
// errors: ErrFormat for malformed files, *LoadError (matching
// tensor.ErrShape) for a state dict that does not fit, *TraceError for an op
// Trace cannot record, and an error naming the custom Function that ONNX
// export cannot write.
//
// # Invariants
//
// Optimisers and Load write parameters in place (bumping their version
// counters, as PyTorch's in-place updates do). Optimisers read gradients
// with agx.Tensor.BorrowGrad and never write them, so ZeroGrad can recycle
// the gradients' memory for the next pass. Prepare* and QuantizeDynamic
// return new models and leave the float model unchanged. Trace and export
// never modify the module.
package nn
