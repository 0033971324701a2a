package agx

import (
	"fmt"
	"strings"
)

// GraphDOT returns the backward graph behind the given tensors as Graphviz DOT
// text: one box per node (its name, the shapes of its outputs and the bytes of
// the tensors it saved), one ellipse per leaf that receives a gradient, and the
// output tensors themselves. Rendering is left to the caller (the notebook
// display package turns it into SVG when Graphviz is installed).
func GraphDOT(outputs ...*Tensor) string {
	var b strings.Builder
	b.WriteString("digraph agx {\n  rankdir=BT;\n  node [fontname=\"Helvetica\", fontsize=11];\n")
	ids := map[*Node]string{}
	id := func(n *Node) string {
		if s, ok := ids[n]; ok {
			return s
		}
		s := fmt.Sprintf("n%d", len(ids))
		ids[n] = s
		return s
	}
	var stack []*Node
	for i, o := range outputs {
		label := fmt.Sprintf("output %d\\n%v %v", i, o.DType(), o.data.Shape())
		if o.Name() != "" {
			label = o.Name() + "\\n" + label
		}
		fmt.Fprintf(&b, "  out%d [label=\"%s\", shape=ellipse, style=filled, fillcolor=\"#d5e8d4\"];\n", i, label)
		e := gradEdge(o)
		if e.Node != nil {
			fmt.Fprintf(&b, "  %s -> out%d;\n", id(e.Node), i)
			stack = append(stack, e.Node)
		}
	}
	seen := map[*Node]bool{}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		switch {
		case n.leaf != nil:
			l := n.leaf
			label := fmt.Sprintf("%v %v", l.DType(), l.data.Shape())
			if l.Name() != "" {
				label = l.Name() + "\\n" + label
			}
			fmt.Fprintf(&b, "  %s [label=\"AccumulateGrad\\n%s\", shape=ellipse, style=filled, fillcolor=\"#dae8fc\"];\n", id(n), label)
		default:
			var shapes []string
			for i := range n.numOutMeta() {
				shapes = append(shapes, fmt.Sprint(n.outMetaAt(i).shape))
			}
			label := n.name + "\\nout " + strings.Join(shapes, " ")
			if bytes := n.savedBytes(); bytes > 0 {
				label += fmt.Sprintf("\\nsaved %d B", bytes)
			} else if n.released {
				label += "\\nsaved: freed"
			}
			fmt.Fprintf(&b, "  %s [label=\"%s\", shape=box, style=\"rounded,filled\", fillcolor=\"#fff2cc\"];\n", id(n), label)
		}
		for _, e := range n.next {
			if e.Node == nil {
				continue
			}
			fmt.Fprintf(&b, "  %s -> %s;\n", id(e.Node), id(n))
			stack = append(stack, e.Node)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// savedBytes is the memory held by the node's saved tensors.
func (n *Node) savedBytes() int {
	total := 0
	for _, s := range n.saved {
		if s.t != nil {
			total += s.t.Numel() * s.t.DType().Size()
		}
	}
	return total
}
