"""PyTorch reference for agx's forward-mode rules (agx/forward_test.go).

Run after ops.py's source (which defines OPS) with AGX_NO_MAIN set. Input:
a JSON list of cases {name, op, params, inputs, grad, tangents}. Each input
with grad[i] set becomes a dual tensor with tangents[i] inside a dual level;
the output's tangent (zeros when PyTorch gives none) is returned with the
output: a list of {name, out, tangent}.
"""
import torch.autograd.forward_ad as fwAD


def run_forward(case):
    with fwAD.dual_level():
        xs = []
        for t, g, v in zip(case["inputs"], case["grad"], case["tangents"]):
            x = o.tensor(t)
            if g:
                x = fwAD.make_dual(x, o.tensor(v))
            xs.append(x)
        out = OPS[case["op"]](xs, case["params"] or {})
        primal, tangent = fwAD.unpack_dual(out)
        if tangent is None:
            tangent = torch.zeros_like(primal)
        return {"name": case["name"], "out": primal, "tangent": tangent}


o.dump([run_forward(c) for c in o.load()])
