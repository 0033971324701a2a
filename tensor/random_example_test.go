package tensor_test

import (
	"fmt"

	"github.com/goagx/agx/tensor"
)

func ExampleRandn() {
	tensor.ManualSeed(0)
	fmt.Println(tensor.Randn(tensor.Float32, 2, 3))
	// Output:
	// tensor([[-0.0190, -1.3559, -0.4037],
	//         [ 0.2334,  1.6251, -0.0026]])
}

func ExampleNewGenerator() {
	g := tensor.NewGenerator(42)
	fmt.Println(g.Randint(0, 10, 5))
	fmt.Println(g.Perm(6))
	// Output:
	// tensor([0, 3, 6, 9, 9])
	// tensor([0, 1, 2, 5, 3, 4])
}
