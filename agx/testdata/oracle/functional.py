"""PyTorch reference for agx's functional API (agx/functional_oracle_test.go).

Input: a JSON list of cases {name, op, fn, inputs, v, create, strict,
strategy}: strategy "forward-mode" is passed to jacobian as strategy= and to
hessian as outer_jacobian_strategy=, with vectorize=True (PyTorch's forward
mode needs it). The
function named fn (defined here as in the Go test) goes through
torch.autograd.functional.<op> with all inputs requiring grad. Output, per
case: {error} when PyTorch raised, else {outputs, results, requires_grad,
second}: second is the gradient of the sum of all results with respect to
the inputs (zeros where unused), computed only with create_graph.
"""
import torch
import torch.autograd.functional as AF

import agx_oracle as o

FNS = {
    "vec": lambda x, w: torch.tanh(w @ x),
    "two": lambda x, y: (x * torch.exp(y), (torch.sin(x) * y).sum()),
    "indep": lambda x, y: torch.exp(x).sum(),
    "scalar": lambda x, y: (torch.exp(x) @ y).pow(2).sum() + torch.sin(x).sum() * (y * y).sum(),
    "linear": lambda x: (x * 2).sum(),
}


def run(c):
    f = FNS[c["fn"]]
    xs = tuple(o.tensor(t, requires_grad=True) for t in c["inputs"])
    v = None if c["v"] is None else tuple(o.tensor(t) for t in c["v"])
    kw = dict(create_graph=c["create"], strict=c["strict"])
    op = c["op"]
    outputs = []
    if op in ("vjp", "jvp", "vhp", "hvp"):
        outputs, res = getattr(AF, op)(f, xs, v, **kw)
        outputs = list(outputs) if isinstance(outputs, tuple) else [outputs]
        res = list(res) if isinstance(res, tuple) else [res]
    else:
        if c.get("strategy") == "forward-mode":
            key = "strategy" if op == "jacobian" else "outer_jacobian_strategy"
            kw.update({key: "forward-mode", "vectorize": True})
        j = getattr(AF, op)(f, xs, **kw)
        # vectorize=True may give lists where the default gives tuples.
        rows = list(j) if isinstance(j, (tuple, list)) else [j]
        res = [t for row in rows for t in (row if isinstance(row, (tuple, list)) else (row,))]
    out = {"outputs": outputs, "results": res,
           "requires_grad": [r.requires_grad for r in res]}
    if c["create"]:
        live = [r for r in res if r.requires_grad]
        if live:
            total = sum(r.sum() for r in live)
            gs = torch.autograd.grad(total, xs, allow_unused=True)
            out["second"] = [torch.zeros_like(x) if g is None else g for x, g in zip(xs, gs)]
    return out


def main():
    res = []
    for c in o.load():
        try:
            r = run(c)
        except RuntimeError as e:
            r = {"error": str(e)}
        r["name"] = c["name"]
        res.append(r)
    o.dump(res)


main()
