#!/usr/bin/python3
"""PyTorch side of `agx bench`: the same workloads as bench/workloads.go.

Protocol (one line each way): the Go harness writes "NAME ITERS"; this script
runs the workload ITERS times and answers {"seconds": total}. "list" answers
the workload names, "blas" the BLAS it runs on. Runs as many threads as
the agx side's GOMAXPROCS (AGX_BENCH_THREADS, set by the harness; 1 when
unset), so that agx never runs on more cores than PyTorch.
"""
import json
import math
import os
import sys
import time

import torch
from torch.autograd import Function

torch.set_num_threads(int(os.environ.get("AGX_BENCH_THREADS", "1")))


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x * 2.0


class StableLogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        m = x.amax(-1, keepdim=True)
        e = (x - m).exp()
        s = e.sum(-1, keepdim=True)
        ctx.save_for_backward(e / s)
        return (s.log() + m).squeeze(-1)

    @staticmethod
    def backward(ctx, g):
        (p,) = ctx.saved_tensors
        return g.unsqueeze(-1) * p


class Attention(torch.autograd.Function):
    """Scaled dot-product attention with a hand-written backward."""

    @staticmethod
    def forward(ctx, q, k, v):
        scale = q.shape[-1] ** -0.5
        p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
        ctx.save_for_backward(q, k, v, p)
        ctx.scale = scale
        return p @ v

    @staticmethod
    def backward(ctx, g):
        q, k, v, p = ctx.saved_tensors
        dv = p.transpose(-2, -1) @ g
        dp = g @ v.transpose(-2, -1)
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        dq = ds @ k * ctx.scale
        dk = ds.transpose(-2, -1) @ q * ctx.scale
        return dq, dk, dv


def matmul(n, dtype):
    g = torch.Generator().manual_seed(1)
    a = torch.randn(n, n, generator=g, dtype=dtype)
    b = torch.randn(n, n, generator=g, dtype=dtype)
    return lambda: a @ b


def matmul_into(n, dtype):
    g = torch.Generator().manual_seed(1)
    a = torch.randn(n, n, generator=g, dtype=dtype)
    b = torch.randn(n, n, generator=g, dtype=dtype)
    c = torch.empty(n, n, dtype=dtype)
    return lambda: torch.matmul(a, b, out=c)


def mlp_step():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(64, 784, generator=g)
    target = torch.randint(0, 10, (64,), generator=g)
    w1 = (torch.rand(256, 784, generator=g) * 2 - 1).div(28).requires_grad_()
    b1 = (torch.rand(256, generator=g) * 2 - 1).div(28).requires_grad_()
    w2 = (torch.rand(10, 256, generator=g) * 2 - 1).div(16).requires_grad_()
    b2 = (torch.rand(10, generator=g) * 2 - 1).div(16).requires_grad_()

    def step():
        for p in (w1, b1, w2, b2):
            p.grad = None
        h = torch.relu(x @ w1.t() + b1)
        logits = h @ w2.t() + b2
        torch.nn.functional.cross_entropy(logits, target).backward()
    return step


def elementwise_chain():
    x = torch.randn(1_000_000).requires_grad_()

    def step():
        x.grad = None
        y = torch.sigmoid(x) * x + torch.tanh(x)
        y.sum().backward()
    return step


def tiny_ops():
    x = torch.tensor([0.5], requires_grad=True)
    c = torch.tensor([1.0001])

    def step():
        x.grad = None
        y = x
        for _ in range(500):
            y = y * c + c
        y.sum().backward()
    return step


def custom_function():
    x = torch.randn(16).requires_grad_()
    ones = torch.ones(16)

    def step():
        x.grad = None
        Square.apply(x).backward(ones)
    return step


def gradcheck_lse():
    x = torch.randn(4, 16, dtype=torch.float64, requires_grad=True)
    return lambda: torch.autograd.gradcheck(StableLogSumExp.apply, (x,))


def gradgradcheck_square():
    x = torch.randn(4, 8, dtype=torch.float64, requires_grad=True)
    return lambda: torch.autograd.gradgradcheck(Square.apply, (x,))


def attention_backward():
    g = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(2, 4, 128, 64, generator=g).requires_grad_() for _ in range(3))
    up = torch.randn(2, 4, 128, 64, generator=g)

    def step():
        for t in (q, k, v):
            t.grad = None
        Attention.apply(q, k, v).backward(up)
    return step


def batchnorm_backward():
    g = torch.Generator().manual_seed(8)
    x = torch.randn(256, 512, generator=g).requires_grad_()
    up = torch.randn(256, 512, generator=g)

    def step():
        x.grad = None
        mean = x.mean(0, keepdim=True)
        var = x.var(0, unbiased=False, keepdim=True)
        y = (x - mean) / torch.sqrt(var + 1e-5)
        y.backward(up)
    return step


def batchnorm_pow():
    g = torch.Generator().manual_seed(8)
    x = torch.randn(256, 512, generator=g).requires_grad_()
    up = torch.randn(256, 512, generator=g)
    gamma = torch.randn(512, generator=g).requires_grad_()
    beta = torch.randn(512, generator=g).requires_grad_()

    def step():
        for t in (x, gamma, beta):
            t.grad = None
        mean = x.mean(0)
        var = ((x - mean) ** 2).mean(0)
        y = (x - mean) / torch.sqrt(var + 1e-5) * gamma + beta
        y.backward(up)
    return step


def square_step(f):
    g = torch.Generator().manual_seed(8)
    x = torch.randn(256, 512, generator=g).requires_grad_()
    up = torch.randn(256, 512, generator=g)

    def step():
        x.grad = None
        f(x).backward(up)
    return step


def batchnorm_native():
    g = torch.Generator().manual_seed(8)
    x = torch.randn(256, 512, generator=g).requires_grad_()
    up = torch.randn(256, 512, generator=g)
    w = torch.randn(512, generator=g).requires_grad_()
    b = torch.randn(512, generator=g).requires_grad_()

    def step():
        for t in (x, w, b):
            t.grad = None
        torch.nn.functional.batch_norm(x, None, None, w, b, training=True, eps=1e-5).backward(up)
    return step


def train_step(make_opt):
    g = torch.Generator().manual_seed(9)
    torch.manual_seed(9)
    x = torch.randn(64, 784, generator=g)
    target = torch.randint(0, 10, (64,), generator=g)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    opt = make_opt(model.parameters())
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), target).backward()
        opt.step()
    return step


WORKLOADS = {
    "mlp_step": mlp_step,
    "elementwise_chain": elementwise_chain,
    "tiny_ops_overhead": tiny_ops,
    "custom_function_overhead": custom_function,
    "gradcheck_logsumexp": gradcheck_lse,
    "gradgradcheck_square": gradgradcheck_square,
    "attention_backward": attention_backward,
    "batchnorm_backward": batchnorm_backward,
    "batchnorm_function": batchnorm_backward,
    "batchnorm_pow": batchnorm_pow,
    "pow_square": lambda: square_step(lambda x: x ** 2),
    "mul_self": lambda: square_step(lambda x: x * x),
    "batchnorm_native": batchnorm_native,
    "matmul_into_f32_256": lambda: matmul_into(256, torch.float32),
    "train_step_sgd": lambda: train_step(lambda ps: torch.optim.SGD(ps, lr=0.01, momentum=0.9)),
    "train_step_adam": lambda: train_step(lambda ps: torch.optim.Adam(ps, lr=1e-3)),
}
for _n in (256, 512, 1024):
    WORKLOADS[f"matmul_f32_{_n}"] = (lambda n: lambda: matmul(n, torch.float32))(_n)
    WORKLOADS[f"matmul_f64_{_n}"] = (lambda n: lambda: matmul(n, torch.float64))(_n)


# The idioms (idiom_* workloads, bench/idiom_workloads.go): single ops on
# [256,512] float32 (one float64), forward only.
def idiom(f):
    g = torch.Generator().manual_seed(13)
    x = torch.randn(256, 512, generator=g)
    xp = torch.rand(256, 512, generator=g) + 0.5
    y = torch.randn(256, 512, generator=g)
    x64 = torch.randn(256, 512, generator=g, dtype=torch.float64)

    def step():
        f(x, xp, y, x64)
    return step


WORKLOADS.update({
    "idiom_maximum": lambda: idiom(lambda x, xp, y, x64: torch.maximum(x, y)),
    "idiom_amax0": lambda: idiom(lambda x, xp, y, x64: x.amax(0)),
    "idiom_maxdim1": lambda: idiom(lambda x, xp, y, x64: x.max(1)),
    "idiom_pow3": lambda: idiom(lambda x, xp, y, x64: x ** 3),
    "idiom_pow_frac": lambda: idiom(lambda x, xp, y, x64: xp ** 1.5),
    "idiom_log": lambda: idiom(lambda x, xp, y, x64: xp.log()),
    "idiom_exp_f64": lambda: idiom(lambda x, xp, y, x64: x64.exp()),
    "idiom_sin": lambda: idiom(lambda x, xp, y, x64: x.sin()),
    "idiom_gelu": lambda: idiom(lambda x, xp, y, x64: torch.nn.functional.gelu(x)),
    "idiom_softmax0": lambda: idiom(lambda x, xp, y, x64: x.softmax(0)),
    "idiom_logsumexp0": lambda: idiom(lambda x, xp, y, x64: x.logsumexp(0)),
    "idiom_transpose": lambda: idiom(lambda x, xp, y, x64: x.t().contiguous()),
    "idiom_cat1": lambda: idiom(lambda x, xp, y, x64: torch.cat([x, y], 1)),
    "idiom_to_f64": lambda: idiom(lambda x, xp, y, x64: x.to(torch.float64)),
})


# The course (course_* workloads, bench/course_workloads.go): the seeds' own
# PyTorch code for the computations of the course's examples and exercise
# solutions. Where a seed gives the exercise and not its code (GELU, SiLU,
# batch norm, soft ranks, attention's backward), the Function is written
# the way the seed's other Functions are.


class SquaredFunction(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * 2 * x


class MyExp(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return torch.exp(input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * torch.exp(input)


class ScaledSigmoid(Function):
    @staticmethod
    def forward(ctx, x, scale):
        sigmoid_x = torch.sigmoid(x)
        ctx.save_for_backward(sigmoid_x, scale)
        ctx.input_shape = x.shape
        return scale * sigmoid_x

    @staticmethod
    def backward(ctx, grad_output):
        sigmoid_x, scale = ctx.saved_tensors
        grad_x = grad_output * scale * sigmoid_x * (1 - sigmoid_x)
        grad_scale = (grad_output * sigmoid_x).sum()
        return grad_x, grad_scale


class StraightThroughRound(Function):
    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class FakeQuantize(Function):
    @staticmethod
    def forward(ctx, x, scale, zero_point, qmin=-128, qmax=127):
        ctx.save_for_backward(x)
        ctx.scale = scale
        ctx.qmin, ctx.qmax = qmin, qmax
        x_int = (x / scale + zero_point).round().clamp(qmin, qmax)
        return (x_int - zero_point) * scale

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        scale, qmin, qmax = ctx.scale, ctx.qmin, ctx.qmax
        in_range = ((x / scale) >= qmin) & ((x / scale) <= qmax)
        grad_x = grad_output * in_range.float()
        return grad_x, None, None, None, None


class ClipGradient(Function):
    @staticmethod
    def forward(ctx, x, clip_value):
        ctx.clip_value = clip_value
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        clipped = grad_output.clamp(-ctx.clip_value, ctx.clip_value)
        return clipped, None


class DifferentiableClamp(Function):
    @staticmethod
    def forward(ctx, x, min_val, max_val):
        ctx.save_for_backward(x)
        ctx.min_val = min_val
        ctx.max_val = max_val
        return x.clamp(min_val, max_val)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        mask = ((x >= ctx.min_val) & (x <= ctx.max_val)).float()
        return grad_output * mask, None, None


class MyLinearFunction(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight, bias)
        output = x @ weight.T + bias
        return output

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        grad_x = grad_output @ weight
        grad_weight = grad_output.T @ x
        grad_bias = grad_output.sum(dim=0)
        return grad_x, grad_weight, grad_bias


class MaskedLinear(Function):
    @staticmethod
    def forward(ctx, x, weight, mask):
        masked_weight = weight * mask.float()
        ctx.save_for_backward(x, masked_weight, mask)
        return x @ masked_weight.T

    @staticmethod
    def backward(ctx, grad_output):
        x, masked_weight, mask = ctx.saved_tensors
        grad_x = grad_weight = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output @ masked_weight
        if ctx.needs_input_grad[1]:
            grad_weight = (grad_output.T @ x) * mask.float()
        return grad_x, grad_weight, None


class MySigmoid(Function):
    @staticmethod
    def forward(ctx, x):
        output = 1.0 / (1.0 + torch.exp(-x))
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (output,) = ctx.saved_tensors
        grad_input = grad_output * output * (1.0 - output)
        return grad_input


class GELU(Function):
    """Exercise 1: GELU(x) = x·Φ(x), Φ(x) = ½(1 + erf(x/√2))."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 0.5 * (1 + torch.erf(x / math.sqrt(2)))

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        cdf = 0.5 * (1 + torch.erf(x / math.sqrt(2)))
        pdf = torch.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
        return grad_output * (cdf + x * pdf)


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


class Swish(Function):
    """Exercise 2: f(x) = x·σ(x), saving the output in forward."""

    @staticmethod
    def forward(ctx, x):
        y = x * torch.sigmoid(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * (y + torch.sigmoid(x) * (1 - y))


class BatchNorm(Function):
    """Exercise 3: x̂ = (x - μ)/√(σ² + ε) over dim 0, gradient for x."""

    @staticmethod
    def forward(ctx, x, eps):
        mean = x.mean(0, keepdim=True)
        var = x.var(0, unbiased=False, keepdim=True)
        std_inv = 1 / torch.sqrt(var + eps)
        x_hat = (x - mean) * std_inv
        ctx.save_for_backward(x_hat, std_inv)
        return x_hat

    @staticmethod
    def backward(ctx, grad_output):
        x_hat, std_inv = ctx.saved_tensors
        n = x_hat.shape[0]
        dx = n * grad_output - grad_output.sum(0, keepdim=True) - x_hat * (grad_output * x_hat).sum(0, keepdim=True)
        return dx * std_inv / n, None


def batchnorm_composite(x):
    mean = x.mean(0)
    var = ((x - mean) ** 2).mean(0)
    return (x - mean) / torch.sqrt(var + 1e-5)


class SoftRank(Function):
    """Exercise 4: soft ranks along the last dim with temperature tau."""

    @staticmethod
    def forward(ctx, x, tau):
        ctx.save_for_backward(x)
        ctx.tau = tau
        s = torch.sigmoid((x.unsqueeze(-1) - x.unsqueeze(-2)) / tau)
        return s.sum(-1) + 0.5

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        s = torch.sigmoid((x.unsqueeze(-1) - x.unsqueeze(-2)) / ctx.tau)
        d = s * (1 - s) / ctx.tau
        own = grad_output * d.sum(-1)
        others = (grad_output.unsqueeze(-1) * d).sum(-2)
        return own - others, None


class StableLogSumExpSeed(Function):
    @staticmethod
    def forward(ctx, x):
        x_max = x.max(dim=-1, keepdim=True).values
        exp_shifted = (x - x_max).exp()
        sum_exp = exp_shifted.sum(dim=-1, keepdim=True)
        log_sum_exp = x_max + sum_exp.log()
        softmax = exp_shifted / sum_exp
        ctx.save_for_backward(softmax)
        return log_sum_exp.squeeze(-1)

    @staticmethod
    def backward(ctx, grad_output):
        softmax, = ctx.saved_tensors
        return softmax * grad_output.unsqueeze(-1)


class ScaledDotProductAttention(Function):
    """The challenge's starter, its backward completed."""

    @staticmethod
    def forward(ctx, Q, K, V, scale, mask=None):
        scores = torch.matmul(Q, K.transpose(-2, -1)) * scale
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))
        attn_weights = torch.softmax(scores, dim=-1)
        output = torch.matmul(attn_weights, V)
        ctx.save_for_backward(Q, K, V, attn_weights)
        ctx.scale = scale
        return output

    @staticmethod
    def backward(ctx, grad_output):
        Q, K, V, attn_weights = ctx.saved_tensors
        scale = ctx.scale
        grad_V = torch.matmul(attn_weights.transpose(-2, -1), grad_output)
        grad_attn = torch.matmul(grad_output, V.transpose(-2, -1))
        grad_scores = attn_weights * (grad_attn - (grad_attn * attn_weights).sum(-1, keepdim=True))
        grad_Q = torch.matmul(grad_scores, K) * scale
        grad_K = torch.matmul(grad_scores.transpose(-2, -1), Q) * scale
        return grad_Q, grad_K, grad_V, None, None


class ClippedReLU(Function):
    @staticmethod
    def forward(ctx, x, cap):
        ctx.save_for_backward(x)
        ctx.cap = cap
        return x.clamp(0, cap)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        mask = ((x > 0) & (x < ctx.cap)).float()
        return grad_output * mask, None


class SoftThreshold(Function):
    @staticmethod
    def forward(ctx, x, t):
        ctx.save_for_backward(x)
        ctx.t = t
        return x.sign() * (x.abs() - t).clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * (x.abs() > ctx.t).float(), None


class SmoothL1Function(Function):
    @staticmethod
    def forward(ctx, x, beta):
        ctx.save_for_backward(x)
        ctx.beta = beta
        abs_x = x.abs()
        out = torch.where(abs_x < beta, 0.5 * x**2 / beta, abs_x - 0.5 * beta)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        beta = ctx.beta
        abs_x = x.abs()
        grad_x = torch.where(abs_x < beta, x / beta, x.sign())
        return grad_output * grad_x, None


class SmoothL1Loss(torch.nn.Module):
    def __init__(self, beta=1.0):
        super().__init__()
        self.beta = beta

    def forward(self, prediction, target):
        diff = prediction - target
        return SmoothL1Function.apply(diff, self.beta).mean()


class TanhXSin(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.tanh(x) * x + torch.sin(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        t = torch.tanh(x)
        return grad_output * (t + x * (1 - t * t) + torch.cos(x))


class FusedAddReLU(Function):
    @staticmethod
    def forward(ctx, a, b):
        s = a + b
        mask = s > 0
        ctx.save_for_backward(mask)
        return s * mask

    @staticmethod
    def backward(ctx, grad_output):
        mask, = ctx.saved_tensors
        g = grad_output * mask
        return g, g


def course_unary(f):
    g = torch.Generator().manual_seed(8)
    x = torch.randn(256, 512, generator=g).requires_grad_()
    up = torch.randn(256, 512, generator=g)

    def step():
        x.grad = None
        f(x).backward(up)
    return step


def course_scaled_sigmoid():
    scale = torch.tensor(2.0, requires_grad=True)
    inner = course_unary(lambda x: ScaledSigmoid.apply(x, scale))

    def step():
        scale.grad = None
        inner()
    return step


def course_linear(masked):
    g = torch.Generator().manual_seed(10)
    x = torch.randn(64, 256, generator=g).requires_grad_()
    w = torch.randn(128, 256, generator=g).requires_grad_()
    b = torch.randn(128, generator=g).requires_grad_()
    mask = torch.randn(128, 256, generator=g) > 0
    up = torch.randn(64, 128, generator=g)

    def step():
        for t in (x, w, b):
            t.grad = None
        if masked:
            MaskedLinear.apply(x, w, mask).backward(up)
        else:
            MyLinearFunction.apply(x, w, b).backward(up)
    return step


def course_soft_rank():
    g = torch.Generator().manual_seed(12)
    x = torch.randn(32, 64, generator=g).requires_grad_()
    up = torch.randn(32, 64, generator=g)

    def step():
        x.grad = None
        SoftRank.apply(x, 0.5).backward(up)
    return step


def course_logsumexp():
    g = torch.Generator().manual_seed(13)
    x = torch.randn(256, 512, generator=g).requires_grad_()
    up = torch.randn(256, generator=g)

    def step():
        x.grad = None
        StableLogSumExpSeed.apply(x).backward(up)
    return step


def course_attention(causal, composite):
    g = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(2, 4, 128, 64, generator=g).requires_grad_() for _ in range(3))
    up = torch.randn(2, 4, 128, 64, generator=g)
    mask = torch.tril(torch.ones(128, 128)) if causal else None
    scale = 1 / math.sqrt(64)

    def step():
        for t in (q, k, v):
            t.grad = None
        if composite:
            out = torch.matmul(torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * scale, dim=-1), v)
        else:
            out = ScaledDotProductAttention.apply(q, k, v, scale, mask)
        out.backward(up)
    return step


def course_smoothl1_train():
    g = torch.Generator().manual_seed(1)
    x = torch.linspace(-2, 2, 20, dtype=torch.float64)
    target = 3 * x - 1 + 0.05 * torch.randn(20, generator=g, dtype=torch.float64)
    target[15] += 15
    target[4] -= 12
    criterion = SmoothL1Loss(beta=0.5)
    lr = 0.5

    def loop():
        w = torch.zeros((), dtype=torch.float64, requires_grad=True)
        b = torch.zeros((), dtype=torch.float64, requires_grad=True)
        losses = []
        for _ in range(200):
            loss = criterion(x * w + b, target)
            loss.backward()
            losses.append(loss.item())
            with torch.no_grad():
                w -= w.grad * lr
                b -= b.grad * lr
            w.grad = None
            b.grad = None
    return loop


def course_fusion(f):
    x = torch.randn(100_000, generator=torch.Generator().manual_seed(1), dtype=torch.float64)

    def step():
        xl = x.detach().requires_grad_()
        f(xl).sum().backward()
    return step


def course_fused_add_relu():
    g = torch.Generator().manual_seed(3)
    a = torch.randn(100_000, generator=g, dtype=torch.float64)
    b = torch.randn(100_000, generator=g, dtype=torch.float64)

    def step():
        al, bl = a.detach().requires_grad_(), b.detach().requires_grad_()
        FusedAddReLU.apply(al, bl).sum().backward()
    return step


def course_classifier_adam():
    g = torch.Generator().manual_seed(22)
    centres = torch.randn(4, 32, generator=g, dtype=torch.float64) * 0.4
    y = torch.randint(0, 4, (1024,), generator=g)
    x = (centres[y] + torch.randn(1024, 32, generator=g, dtype=torch.float64)).float()
    xtr, ytr, xte, yte = x[:512], y[:512], x[512:], y[512:]
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(), torch.nn.Linear(128, 4))
    opt = torch.optim.Adam(model.parameters(), lr=0.005)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xtr), ytr)
        loss.backward()
        opt.step()
        loss.item()
        with torch.no_grad():
            loss_fn(model(xte), yte).item()
    return step


WORKLOADS.update({
    "course_square": lambda: course_unary(SquaredFunction.apply),
    "course_my_exp": lambda: course_unary(MyExp.apply),
    "course_scaled_sigmoid": course_scaled_sigmoid,
    "course_straight_through_round": lambda: course_unary(StraightThroughRound.apply),
    "course_fake_quantize": lambda: course_unary(lambda x: FakeQuantize.apply(x, 0.01, 0)),
    "course_clip_gradient": lambda: course_unary(lambda x: ClipGradient.apply(x, 0.5)),
    "course_differentiable_clamp": lambda: course_unary(lambda x: DifferentiableClamp.apply(x, -1.0, 1.0)),
    "course_my_linear": lambda: course_linear(False),
    "course_masked_linear": lambda: course_linear(True),
    "course_my_sigmoid": lambda: course_unary(MySigmoid.apply),
    "course_gelu": lambda: course_unary(GELU.apply),
    "course_gelu_tanh": lambda: course_unary(gelu_tanh),
    "course_silu": lambda: course_unary(Swish.apply),
    "course_batchnorm_function": lambda: course_unary(lambda x: BatchNorm.apply(x, 1e-5)),
    "course_batchnorm_composite": lambda: course_unary(batchnorm_composite),
    "course_soft_rank": course_soft_rank,
    "course_logsumexp": course_logsumexp,
    "course_attention": lambda: course_attention(False, False),
    "course_attention_causal": lambda: course_attention(True, False),
    "course_attention_composite": lambda: course_attention(False, True),
    "course_clipped_relu": lambda: course_unary(lambda x: ClippedReLU.apply(x, 6.0)),
    "course_soft_threshold": lambda: course_unary(lambda x: SoftThreshold.apply(x, 1.0)),
    "course_smoothl1_train": course_smoothl1_train,
    "course_tanhxsin_composed": lambda: course_fusion(lambda x: torch.tanh(x) * x + torch.sin(x)),
    "course_tanhxsin_fused": lambda: course_fusion(TanhXSin.apply),
    "course_tanhxsin_loop": lambda: course_fusion(TanhXSin.apply),
    "course_fused_add_relu": course_fused_add_relu,
    "course_classifier_adam": course_classifier_adam,
})


def blas():
    """Names the BLAS PyTorch's products run on: for OpenBLAS, which the
    process has loaded, its version and set of kernels (the set depends on
    the CPU and on OPENBLAS_CORETYPE, and decides its speed)."""
    import ctypes

    path = None
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libopenblas" in line:
                path = line.split()[-1]
                break
    if path is None:
        return "not OpenBLAS (torch.__config__.show() tells)"
    lib = ctypes.CDLL(path)
    lib.openblas_get_config.restype = ctypes.c_char_p
    lib.openblas_get_corename.restype = ctypes.c_char_p
    config = lib.openblas_get_config().decode().split()
    name = " ".join(config[:2]) if len(config) >= 2 else "OpenBLAS"
    s = f"{name}, {lib.openblas_get_corename().decode()} kernels"
    if "OPENBLAS_CORETYPE" in os.environ:
        s += f" (OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']})"
    return s


def main():
    ready = {}
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "list":
            print(json.dumps({"names": sorted(WORKLOADS)}), flush=True)
            continue
        if parts[0] == "blas":
            print(json.dumps({"blas": blas()}), flush=True)
            continue
        name, iters = parts[0], int(parts[1])
        if name not in WORKLOADS:
            print(json.dumps({"error": "unknown workload " + name}), flush=True)
            continue
        if name not in ready:
            ready[name] = WORKLOADS[name]()
        fn = ready[name]
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)


if __name__ == "__main__":
    main()
