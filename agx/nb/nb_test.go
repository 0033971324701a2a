package nb_test

import "github.com/goagx/agx/agx/nb"

// Outside a GoNB kernel the helpers print plain text.
func ExampleHTML() {
	nb.HTML("<b>loss</b> 0.25")
	nb.Pre("a < b")
	// Output:
	// <b>loss</b> 0.25
	// <pre>a &lt; b</pre>
}

// Outside a notebook Println is fmt.Println.
func ExamplePrintln() {
	nb.Println("y =", 2.5, "done")
	// Output:
	// y = 2.5 done
}
