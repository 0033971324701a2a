package nb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"os/exec"
	"strings"
	"time"

	"github.com/goagx/agx/agx"
)

// ErrNoGraphviz is returned by GraphSVG when Graphviz's dot program is not on
// PATH.
var ErrNoGraphviz = errors.New("nb: Graphviz 'dot' not found on PATH (install it: apt-get install graphviz)")

// lookPath finds the dot program; tests replace it to simulate a machine
// without Graphviz.
var lookPath = exec.LookPath

// dotTimeout bounds one run of dot.
const dotTimeout = 20 * time.Second

// Graph displays the backward graph behind outputs (agx.GraphDOT) as SVG,
// rendered by Graphviz. Without Graphviz it shows the DOT text with a note on
// how to install it. Outside a notebook it prints a one-line summary of the
// graph.
func Graph(outputs ...*agx.Tensor) {
	if !InNotebook() {
		fmt.Println(graphSummary(outputs))
		return
	}
	HTML(GraphHTML(outputs...))
}

// GraphHTML returns what Graph displays: the SVG, or the DOT text in a <pre>
// with an installation note when dot is missing or fails.
func GraphHTML(outputs ...*agx.Tensor) string {
	svg, err := GraphSVG(outputs...)
	if err == nil {
		return svg
	}
	note := "Install Graphviz to see this graph drawn (Debian/Ubuntu: apt-get install graphviz); its DOT text:"
	if !errors.Is(err, ErrNoGraphviz) {
		note = "Graphviz failed (" + err.Error() + "); the graph's DOT text:"
	}
	return `<div style="color:#666;font-size:12px">` + html.EscapeString(note) + "</div><pre>" +
		html.EscapeString(agx.GraphDOT(outputs...)) + "</pre>"
}

// GraphSVG renders agx.GraphDOT(outputs...) with `dot -Tsvg` and returns the
// <svg> element (without the XML prolog, ready to embed in HTML). It returns
// ErrNoGraphviz when dot is not installed.
func GraphSVG(outputs ...*agx.Tensor) (string, error) {
	return DOTToSVG(agx.GraphDOT(outputs...))
}

// DOTToSVG renders Graphviz DOT text as an embeddable <svg> element.
func DOTToSVG(dot string) (string, error) {
	bin, err := lookPath("dot")
	if err != nil {
		return "", ErrNoGraphviz
	}
	ctx, cancel := context.WithTimeout(context.Background(), dotTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-Tsvg")
	cmd.Stdin = strings.NewReader(dot)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("nb: dot -Tsvg: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	s := out.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("nb: dot -Tsvg produced no <svg> element")
	}
	return s[i:], nil
}

// graphSummary is the one-line text form of a graph: its node count and the
// distinct node names in the order a walk from the outputs meets them.
func graphSummary(outputs []*agx.Tensor) string {
	seen := map[*agx.Node]bool{}
	var names []string
	named := map[string]bool{}
	var stack []*agx.Node
	leaves := 0 // outputs that are leaves requiring grad: one AccumulateGrad each
	for _, o := range outputs {
		switch {
		case o == nil:
		case o.GradFn() != nil:
			stack = append(stack, o.GradFn())
		case o.RequiresGrad():
			leaves++
			if !named["AccumulateGrad"] {
				names, named["AccumulateGrad"] = append(names, "AccumulateGrad"), true
			}
		}
	}
	for len(stack) > 0 {
		n := stack[0]
		stack = stack[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		if !named[n.Name()] {
			named[n.Name()] = true
			names = append(names, n.Name())
		}
		for _, e := range n.NextFunctions() {
			if e.Node != nil {
				stack = append(stack, e.Node)
			}
		}
	}
	if len(seen)+leaves == 0 {
		return fmt.Sprintf("[autograd graph of %d output(s): no nodes]", len(outputs))
	}
	return fmt.Sprintf("[autograd graph of %d output(s): %d nodes: %s]", len(outputs), len(seen)+leaves, strings.Join(names, ", "))
}
