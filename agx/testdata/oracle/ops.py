"""PyTorch reference for agx's built-in ops (agx/oracle_test.go).

Input: a JSON list of cases {name, op, params, inputs, grad, grad_output}.
For each case the op named `op` runs on the inputs (those with grad[i] set
require grad), then autograd.grad with grad_output. Output: a list of
{name, out, grads}, one gradient per input that requires grad.
"""
import torch
import torch.nn.functional as F

import agx_oracle as o


def like(x, v):
    """A 0-d tensor of x's dtype (a Go number operand)."""
    return torch.tensor(v, dtype=x.dtype)


def dims_or_all(x, p):
    """The reduced dims: the given ones, or all of x's."""
    return p["dims"] if p["dims"] else list(range(x.dim()))


def slice_op(x, p):
    index = [slice(None)] * p["dim"] + [slice(p["start"], p["stop"], p["step"])]
    return x[tuple(index)]


def squeeze(x, p):
    if not p["dims"]:
        return x.squeeze()
    for d in sorted(p["dims"], reverse=True):
        x = x.squeeze(d)
    return x


def round_trip(x):
    other = torch.float32 if x.dtype == torch.float64 else torch.float64
    return (x.to(other) * 2).to(x.dtype)


def straight_through(hard, soft):
    """hard in the forward pass, soft's gradient in the backward pass."""
    return (soft - soft.detach()) + hard.detach()


def quantize_ste(x, p):
    v = x.detach() / p["scale"] + p["zero_point"]
    q = (v.round().clamp(p["qmin"], p["qmax"]) - p["zero_point"]) * p["scale"]
    in_range = (v >= p["qmin"]) & (v <= p["qmax"])
    return straight_through(q, torch.where(in_range, x, x.detach()))


class ClipGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        ctx.limit = limit
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g.clamp(-ctx.limit, ctx.limit), None

    @staticmethod
    def jvp(ctx, t, _):
        return t


# Each op takes the list of input tensors and the params dict.
OPS = {
    # arithmetic
    "add": lambda x, p: x[0] + x[1],
    "add_scalar": lambda x, p: x[0] + p["s"],
    "sub": lambda x, p: x[0] - x[1],
    "rsub_scalar": lambda x, p: p["s"] - x[0],
    "mul": lambda x, p: x[0] * x[1],
    "mul_scalar": lambda x, p: x[0] * p["s"],
    "div": lambda x, p: x[0] / x[1],
    "div_scalar": lambda x, p: x[0] / p["s"],
    "rdiv_scalar": lambda x, p: p["s"] / x[0],
    "pow_scalar": lambda x, p: x[0] ** p["p"],
    "pow": lambda x, p: torch.pow(x[0], x[1]),
    "rpow": lambda x, p: p["b"] ** x[0],
    "neg": lambda x, p: -x[0],
    "maximum": lambda x, p: torch.maximum(x[0], x[1]),
    "maximum_scalar": lambda x, p: torch.maximum(x[0], like(x[0], p["s"])),
    "minimum": lambda x, p: torch.minimum(x[0], x[1]),
    "where": lambda x, p: torch.where(x[0], x[1], x[2]),
    "where_scalar": lambda x, p: torch.where(x[0], x[1], like(x[1], p["s"])),
    "masked_fill": lambda x, p: x[0].masked_fill(x[1], p["v"]),
    # unary
    "exp": lambda x, p: x[0].exp(),
    "expm1": lambda x, p: x[0].expm1(),
    "log": lambda x, p: x[0].log(),
    "log1p": lambda x, p: x[0].log1p(),
    "sqrt": lambda x, p: x[0].sqrt(),
    "rsqrt": lambda x, p: x[0].rsqrt(),
    "abs": lambda x, p: x[0].abs(),
    "sign": lambda x, p: x[0].sign(),
    "round": lambda x, p: x[0].round(),
    "floor": lambda x, p: x[0].floor(),
    "ceil": lambda x, p: x[0].ceil(),
    "clamp": lambda x, p: x[0].clamp(p["lo"], p["hi"]),
    "clamp_min": lambda x, p: x[0].clamp(min=p["lo"]),
    "clamp_max": lambda x, p: x[0].clamp(max=p["hi"]),
    "sigmoid": lambda x, p: x[0].sigmoid(),
    "tanh": lambda x, p: x[0].tanh(),
    "relu": lambda x, p: x[0].relu(),
    "erf": lambda x, p: x[0].erf(),
    "sin": lambda x, p: x[0].sin(),
    "cos": lambda x, p: x[0].cos(),
    "gelu": lambda x, p: F.gelu(x[0]),
    "gelu_tanh": lambda x, p: F.gelu(x[0], approximate="tanh"),
    "silu": lambda x, p: F.silu(x[0]),
    "clone": lambda x, p: x[0].clone(),
    "contiguous_t": lambda x, p: x[0].t().contiguous(),
    "to_round_trip": lambda x, p: round_trip(x[0]),
    # reductions
    "sum": lambda x, p: x[0].sum(dim=dims_or_all(x[0], p), keepdim=p["keep"]),
    "mean": lambda x, p: x[0].mean(dim=dims_or_all(x[0], p), keepdim=p["keep"]),
    "var": lambda x, p: x[0].var(dim=dims_or_all(x[0], p), unbiased=p["unbiased"], keepdim=p["keep"]),
    "std": lambda x, p: x[0].std(dim=dims_or_all(x[0], p), unbiased=p["unbiased"], keepdim=p["keep"]),
    "amax": lambda x, p: x[0].amax(dim=dims_or_all(x[0], p), keepdim=p["keep"]),
    "amin": lambda x, p: x[0].amin(dim=dims_or_all(x[0], p), keepdim=p["keep"]),
    "max": lambda x, p: x[0].max(),
    "min": lambda x, p: x[0].min(),
    "max_dim": lambda x, p: x[0].max(p["dim"], keepdim=p["keep"]).values,
    "min_dim": lambda x, p: x[0].min(p["dim"], keepdim=p["keep"]).values,
    "logsumexp": lambda x, p: x[0].logsumexp(dim=dims_or_all(x[0], p), keepdim=p["keep"]),
    "softmax": lambda x, p: x[0].softmax(p["dim"]),
    "log_softmax": lambda x, p: x[0].log_softmax(p["dim"]),
    # shape
    "reshape": lambda x, p: x[0].reshape(p["shape"]),
    "t_reshape": lambda x, p: x[0].t().reshape(p["shape"]),
    "view": lambda x, p: x[0].view(p["shape"]),
    "flatten": lambda x, p: x[0].flatten(),
    "transpose": lambda x, p: x[0].transpose(p["d0"], p["d1"]),
    "t": lambda x, p: x[0].t(),
    "mT": lambda x, p: x[0].mT,
    "permute": lambda x, p: x[0].permute(p["perm"]),
    "squeeze": lambda x, p: squeeze(x[0], p),
    "unsqueeze": lambda x, p: x[0].unsqueeze(p["dim"]),
    "expand": lambda x, p: x[0].expand(p["shape"]),
    "broadcast_to": lambda x, p: torch.broadcast_to(x[0], p["shape"]),
    "narrow": lambda x, p: x[0].narrow(p["dim"], p["start"], p["length"]),
    "slice": lambda x, p: slice_op(x[0], p),
    "select": lambda x, p: x[0].select(p["dim"], p["index"]),
    "select_twice": lambda x, p: x[0].select(1, 2).select(0, 0),
    "cat": lambda x, p: torch.cat(x, p["dim"]),
    "stack": lambda x, p: torch.stack(x, p["dim"]),
    # indexing
    "gather": lambda x, p: x[0].gather(p["dim"], x[1]),
    "scatter_add": lambda x, p: x[0].scatter_add(p["dim"], x[1], x[2]),
    "scatter": lambda x, p: x[0].scatter(p["dim"], x[1], x[2]),
    "index_select": lambda x, p: x[0].index_select(p["dim"], x[1]),
    # matmul and losses
    "matmul": lambda x, p: torch.matmul(x[0], x[1]),
    "matmul_a_bT": lambda x, p: torch.matmul(x[0], x[1].mT),
    "matmul_aT_b": lambda x, p: torch.matmul(x[0].mT, x[1]),
    "matmul_aT_bT": lambda x, p: torch.matmul(x[0].mT, x[1].mT),
    "cross_entropy": lambda x, p: F.cross_entropy(x[0], x[1]),
    "mse_loss": lambda x, p: F.mse_loss(x[0], x[1]),
    "batch_norm": lambda x, p: F.batch_norm(x[0], None, None, x[1] if len(x) > 1 else None,
                                            x[2] if len(x) > 2 else None, training=True, eps=p["eps"]),
    # straight-through estimators
    "round_ste": lambda x, p: straight_through(x[0].detach().round(), x[0]),
    "sign_ste": lambda x, p: straight_through(x[0].detach().sign(), x[0]),
    "sign_clipped_ste": lambda x, p: straight_through(x[0].detach().sign(), x[0].clamp(-1, 1)),
    "binarize_ste": lambda x, p: straight_through((x[0].detach() > 0).to(x[0].dtype), x[0]),
    "quantize_ste": lambda x, p: quantize_ste(x[0], p),
    "clip_gradient_ste": lambda x, p: ClipGradient.apply(x[0], p["limit"]),
    "straight_through": lambda x, p: straight_through(x[1], x[0] * x[0]),
}


def run(case):
    xs = [o.tensor(t, requires_grad=rg) for t, rg in zip(case["inputs"], case["grad"])]
    out = OPS[case["op"]](xs, case["params"] or {})
    diff = [x for x in xs if x is not None and x.requires_grad]
    grads = torch.autograd.grad(out, diff, o.tensor(case["grad_output"]), allow_unused=True)
    return {"name": case["name"], "out": out, "grads": list(grads)}


# forward_ad.py reuses OPS: it runs this file's source with AGX_NO_MAIN set.
if not globals().get("AGX_NO_MAIN"):
    o.dump([run(c) for c in o.load()])
