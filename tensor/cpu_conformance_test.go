package tensor_test

import (
	"testing"

	"github.com/goagx/agx/tensor"
	"github.com/goagx/agx/tensor/tensortest"
)

func TestCPUConformance(t *testing.T) {
	tensortest.RunAll(t, tensor.CPU{})
}
