#!/usr/bin/python3
"""PyTorch side of `agx bench`: the same workloads as bench/workloads.go.

Protocol (one line each way): the Go harness writes "NAME ITERS"; this script
runs the workload ITERS times and answers {"seconds": total}. "list" answers
the workload names, "blas" the BLAS it runs on. Runs single-threaded, as
the comparison is per core.
"""
import json
import os
import sys
import time

import torch

torch.set_num_threads(1)


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
