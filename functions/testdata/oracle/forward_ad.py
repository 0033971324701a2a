"""PyTorch reference for the forward-mode rules (Jvp) of agx's function
library (functions/forward_test.go): each case's op runs on a dual tensor
inside a dual level; the output and its tangent are returned."""
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F

import agx_oracle as o


def soft_rank(x, p):
    return torch.sigmoid((x.unsqueeze(-1) - x.unsqueeze(-2)) / p["tau"]).sum(-1) + 0.5


OPS = {
    "gelu": lambda x, p: F.gelu(x),
    "gelu_tanh": lambda x, p: F.gelu(x, approximate="tanh"),
    "silu": lambda x, p: F.silu(x),
    "soft_rank": soft_rank,
    "batch_norm": lambda x, p: F.batch_norm(x, None, None, training=True, eps=p["eps"]),
}


def run(case):
    with fwAD.dual_level():
        x = fwAD.make_dual(o.tensor(case["input"]), o.tensor(case["tangent"]))
        primal, tangent = fwAD.unpack_dual(OPS[case["op"]](x, case["params"] or {}))
        return {"out": primal, "tangent": tangent}


o.dump([run(c) for c in o.load()])
