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


def sign_ste(x):
    return x + (torch.sign(x) - x).detach()


def sign_clipped_ste(x):
    c = x.clamp(-1, 1)
    return c - c.detach() + torch.sign(x).detach()


def save_patterns(x, y, alpha, relu):
    z = alpha * x + y
    return torch.relu(z) if relu else z


def soft_rank(x, tau):
    d = (x.unsqueeze(-1) - x.unsqueeze(-2)) / tau
    return torch.sigmoid(d).sum(-1) + 0.5  # the self term σ(0) = 0.5 makes ranks start at 1


def gumbel_softmax(logits, u, tau, hard):
    noise = -torch.log(-torch.log(u + 1e-10) + 1e-10)
    y = torch.softmax((logits + noise) / tau, dim=-1)
    if not hard:
        return y
    onehot = torch.zeros_like(y).scatter_(-1, y.argmax(-1, keepdim=True), 1.0)
    return onehot - y.detach() + y


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
    "square": lambda a, p: a[0] * a[0],
    "scaled_sigmoid": lambda a, p: p["scale"] * torch.sigmoid(a[0]),
    "save_patterns": lambda a, p: save_patterns(a[0], a[1], p["alpha"], p["relu"]),
    "weighted_sum": lambda a, p: p["w1"] * a[0] + p["w2"] * a[1],
    "sign_ste": lambda a, p: sign_ste(a[0]),
    "sign_clipped_ste": lambda a, p: sign_clipped_ste(a[0]),
    "product": lambda a, p: a[0] * a[1],
    "soft_rank": lambda a, p: soft_rank(a[0], p["tau"]),
    "gumbel_softmax": lambda a, p: gumbel_softmax(a[0], a[1], p["tau"], p["hard"]),
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
