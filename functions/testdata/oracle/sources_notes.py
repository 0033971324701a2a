"""PyTorch references for the reference notes' Functions (examples D1-D11)."""
import torch
import torch.nn.functional as F


class BinarizeSTE(torch.autograd.Function):
    """(x > 0) forward, identity backward."""

    @staticmethod
    def forward(ctx, x):
        return (x > 0).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        return g


class ClipGrad(torch.autograd.Function):
    """Identity forward, gradient clamped to [-clip, clip]."""

    @staticmethod
    def forward(ctx, x, clip):
        ctx.clip = clip
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g.clamp(-ctx.clip, ctx.clip), None


def scaled_activation(x, scale, use_relu):
    return scale * (torch.relu(x) if use_relu else torch.tanh(x))


OPS = {
    "relu_via_clamp": torch.relu,
    "quadratic": lambda x, a, b, c: a * x ** 2 + b * x + c,
    "power": lambda x, n: x ** int(n),
    "scaled_activation": scaled_activation,
    "my_sigmoid": torch.sigmoid,
    "binarize_ste": BinarizeSTE.apply,
    "stable_logsumexp_1d": lambda x: torch.logsumexp(x.reshape(-1), dim=0),
    "clip_gradient": lambda x, clip: ClipGrad.apply(x, clip),
    "split_and_transform": lambda x: (torch.relu(x), torch.relu(-x)),
    "differentiable_clamp": lambda x, lo, hi: torch.clamp(x, lo, hi),
    "smooth_l1": lambda x, beta: F.smooth_l1_loss(x, torch.zeros_like(x), reduction="none", beta=beta),
    "smooth_l1_loss": lambda pred, target, beta: F.smooth_l1_loss(pred, target, beta=beta),
}
