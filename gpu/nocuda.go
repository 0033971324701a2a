//go:build !cuda

package gpu

// Available reports whether the CUDA backend can be used: in this build it
// cannot, and the error says so.
func Available() error { return ErrNoCUDA }

// New returns the CUDA backend on device 0; in this build it returns ErrNoCUDA.
func New() (*Backend, error) { return nil, ErrNoCUDA }
