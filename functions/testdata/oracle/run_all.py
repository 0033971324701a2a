"""Runs every oracle case of the functions package in one Python process.

Input (stdin): {case name: {"op", "inputs", "requires", "params", "upstream"}}.
For each case the op (from the modules below) is applied to the inputs, the
backward pass runs with the given upstream gradients, and the outputs and
the gradients of the inputs that require grad are written back.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join("testdata", "oracle"))

import agx_oracle as o  # noqa: E402
import sources_article  # noqa: E402
import sources_notes  # noqa: E402
import sources_qa  # noqa: E402

OPS = {}
for module in (sources_article, sources_notes, sources_qa):
    OPS.update(module.OPS)


def run(case):
    xs = [o.tensor(t, requires_grad=r) for t, r in zip(case["inputs"], case["requires"])]
    outs = OPS[case["op"]](*xs, **case["params"])
    if not isinstance(outs, tuple):
        outs = (outs,)
    ups = [o.tensor(u) for u in case["upstream"]]
    torch.autograd.backward(list(outs), ups)
    grads = [x.grad if r else None for x, r in zip(xs, case["requires"])]
    return {"outputs": list(outs), "grads": grads}


o.dump({name: run(case) for name, case in o.load().items()})
