"""PyTorch side of agx's benchmarks (agx/bench_test.go), same workloads.

Run with OPENBLAS_NUM_THREADS=1 /usr/bin/python3 agx/testdata/bench/pytorch_bench.py
and compare with `go test ./agx/ -run '^$' -bench .` from the same shell, so
that both see the same machine load. Prints the median of repeated timed
calls after a warm-up, in the units the Go benchmarks report.
"""
import statistics
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(1)


def median_seconds(fn, repeat, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x * 2


class LogSumExp(torch.autograd.Function):
    """log Σ exp(x) over the last dim, shifted by the row maximum."""

    @staticmethod
    def forward(ctx, x):
        m = x.amax(-1, keepdim=True)
        out = (x - m).exp().sum(-1, keepdim=True).log() + m
        ctx.save_for_backward(x, out)
        return out.squeeze(-1)

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        return g.unsqueeze(-1) * (x - out).exp()


def tiny_ops(ops=1000):
    c = torch.tensor([1.0001])

    def chain(x):
        for _ in range(ops // 2):
            x = x * c + c
        return x

    def fwd_bwd():
        x = torch.tensor([0.5], requires_grad=True)
        chain(x).backward(torch.ones(1))

    def fwd():
        chain(torch.tensor([0.5], requires_grad=True))

    def nograd():
        chain(torch.tensor([0.5]))

    for name, fn in [("fwd+bwd", fwd_bwd), ("fwd", fwd), ("nograd_fwd", nograd)]:
        print(f"tiny_ops_overhead/{name}: {median_seconds(fn, 30) / ops * 1e9:.0f} ns/op")


def custom_function():
    x = torch.randn(16, requires_grad=True)
    ones = torch.ones(16)

    def step():
        Square.apply(x).backward(ones)
        x.grad = None

    n = 1000
    t = median_seconds(lambda: [step() for _ in range(n)], 10)
    print(f"custom_function_overhead: {t / n * 1e9:.0f} ns/call")


def gradchecks():
    torch.manual_seed(1)
    x = torch.randn(4, 16, dtype=torch.float64, requires_grad=True)
    t = median_seconds(lambda: torch.autograd.gradcheck(LogSumExp.apply, (x,)), 20)
    print(f"gradcheck_logsumexp: {t * 1e3:.2f} ms")
    y = torch.randn(4, 8, dtype=torch.float64, requires_grad=True)
    t = median_seconds(lambda: torch.autograd.gradgradcheck(Square.apply, (y,)), 20)
    print(f"gradgradcheck_square: {t * 1e3:.2f} ms")


def elementwise_chain():
    x = torch.randn(1_000_000, requires_grad=True)

    def step():
        y = torch.sigmoid(x) * x + torch.tanh(x)
        y.sum().backward()
        x.grad = None

    print(f"elementwise_chain: {median_seconds(step, 20) * 1e3:.2f} ms")


def mlp_step():
    x = torch.randn(64, 784)
    target = torch.randint(0, 10, (64,))
    w1 = (torch.randn(784, 256) * 0.03).requires_grad_()
    b1 = torch.zeros(256, requires_grad=True)
    w2 = (torch.randn(256, 10) * 0.06).requires_grad_()
    b2 = torch.zeros(10, requires_grad=True)

    def step():
        h = (x @ w1 + b1).relu()
        F.cross_entropy(h @ w2 + b2, target).backward()
        for p in (w1, b1, w2, b2):
            p.grad = None

    print(f"mlp_step: {median_seconds(step, 50) * 1e3:.3f} ms")


if __name__ == "__main__":
    tiny_ops()
    custom_function()
    gradchecks()
    elementwise_chain()
    mlp_step()
