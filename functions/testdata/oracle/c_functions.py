"""PyTorch reference values for the functions package's B/C Functions.

Reads a list of cases (op, inputs, which inputs need a gradient, parameters,
upstream gradient), evaluates each op with torch, backpropagates
sum(output * upstream) and writes {name: {"out": ..., "grads": [...]}}.
"""
import math

import torch
import torch.nn.functional as F

import agx_oracle as o


def attention(q, k, v, mask, scale):
    s = torch.matmul(q, k.transpose(-2, -1)) * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def batch_norm(x, eps):
    flat = x.reshape(x.shape[0], -1)
    y = F.batch_norm(flat, None, None, training=True, eps=eps)
    return y.reshape(x.shape)


OPS = {
    "gelu": lambda a, p: F.gelu(a[0]),
    "gelu_tanh": lambda a, p: F.gelu(a[0], approximate="tanh"),
    "silu": lambda a, p: F.silu(a[0]),
    "batch_norm": lambda a, p: batch_norm(a[0], p["eps"]),
    "attention": lambda a, p: attention(a[0], a[1], a[2], a[3] if len(a) > 3 else None,
                                        p.get("scale") or 1 / math.sqrt(a[0].shape[-1])),
    "linear": lambda a, p: F.linear(a[0], a[1], a[2]),
    "clipped_relu": lambda a, p: torch.clamp(a[0], 0, p["clip"]),
    "soft_threshold": lambda a, p: F.softshrink(a[0], p["t"]),
    "fused_add_relu": lambda a, p: torch.relu(a[0] + a[1]),
}

results = {}
for case in o.load():
    ins = [o.tensor(t, requires_grad=g) for t, g in zip(case["inputs"], case["grad"])]
    out = OPS[case["op"]](ins, case.get("params") or {})
    (out * o.tensor(case["upstream"])).sum().backward()
    results[case["name"]] = {
        "out": out,
        "grads": [t.grad if g else None for t, g in zip(ins, case["grad"])],
    }
o.dump(results)
