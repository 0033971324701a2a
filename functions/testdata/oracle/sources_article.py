"""PyTorch references for the article's Functions (examples A1-A5)."""
import torch


class RoundSTE(torch.autograd.Function):
    """round() forward, identity backward."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


class FakeQuant(torch.autograd.Function):
    """Affine fake quantisation; gradient only where x/scale + zp is in range."""

    @staticmethod
    def forward(ctx, x, scale, zero_point, qmin, qmax):
        v = x / scale + zero_point
        ctx.save_for_backward(v)
        ctx.qmin, ctx.qmax = qmin, qmax
        q = torch.clamp(torch.round(v), qmin, qmax)
        return (q - zero_point) * scale

    @staticmethod
    def backward(ctx, g):
        v, = ctx.saved_tensors
        keep = (v >= ctx.qmin) & (v <= ctx.qmax)
        return g * keep.to(g.dtype), None, None, None, None


class MaskedLinear(torch.autograd.Function):
    """x @ (w * mask).T with no gradient for the Bool mask."""

    @staticmethod
    def forward(ctx, x, w, mask):
        ctx.save_for_backward(x, w, mask)
        return x @ (w * mask.to(w.dtype)).T

    @staticmethod
    def backward(ctx, g):
        x, w, mask = ctx.saved_tensors
        m = mask.to(w.dtype)
        gx = g @ (w * m) if ctx.needs_input_grad[0] else None
        gw = (g.T @ x) * m if ctx.needs_input_grad[1] else None
        return gx, gw, None


OPS = {
    "square": lambda x: x.pow(2),
    "scaled_sigmoid": lambda x, scale: scale * torch.sigmoid(x),
    "stable_logsumexp": lambda x: torch.logsumexp(x, dim=-1),
    "straight_through_round": RoundSTE.apply,
    "fake_quantize": lambda x, scale, zero_point, qmin, qmax: FakeQuant.apply(x, scale, zero_point, qmin, qmax),
    "masked_linear": MaskedLinear.apply,
}
