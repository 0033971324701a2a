#!/usr/bin/python3
"""PyTorch's figures for agx's GPU benchmarks (gpu/cuda_test.go), on the same GPU.

Each workload is timed the way the Go benchmarks time agx: every operation is
followed by a synchronisation and the wall clock covers launch, kernel and
wait ("synced"). For reference it also gives the time per operation when
launches are queued back to back and only the end is awaited ("queued", CUDA
events), which is what a training loop that never reads results sees.

    python3 bench/torch_gpu.py [--json FILE] [--only REGEXP]
"""
import argparse
import json
import math
import re
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def timed(fn, min_seconds=0.5):
    """Median seconds per call over 5 samples, each ≥ min_seconds/5 of synced calls."""
    fn()
    torch.cuda.synchronize()
    n, t = 1, 0.0
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
            torch.cuda.synchronize()
        t = time.perf_counter() - start
        if t >= min_seconds / 5:
            break
        n *= 2
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
            torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / n)
    samples.sort()
    return samples[2]


def queued(fn, reps=50):
    """Seconds per call with launches queued back to back (CUDA events)."""
    for _ in range(3):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1e3 / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--only", default="", help="only workloads whose name matches this regular expression")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("torch_gpu.py: no CUDA device")
    dev = torch.device("cuda")
    # agx's float32 GEMM is cuBLAS without TF32 (full float32): compare the same.
    torch.backends.cuda.matmul.allow_tf32 = False
    print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}, CUDA {torch.version.cuda}")
    rows = []

    only = re.compile(args.only)

    def add(name, fn, flops=None, nbytes=None):
        if not only.search(name):
            return
        s, qd = timed(fn), queued(fn)
        row = {"name": name, "synced_us": s * 1e6, "queued_us": qd * 1e6}
        extra = ""
        if flops:
            row["gflops"] = flops / s / 1e9
            extra = f"  {row['gflops']:9.1f} GFLOP/s"
        if nbytes:
            row["gbps"] = nbytes / s / 1e9
            extra = f"  {row['gbps']:9.1f} GB/s"
        rows.append(row)
        print(f"{name:36s} synced {s * 1e6:10.1f} µs  queued {qd * 1e6:10.1f} µs{extra}", flush=True)

    for n in (256, 1024, 4096):
        for dt, dn in ((torch.float32, "float32"), (torch.float64, "float64")):
            x, y = torch.randn(n, n, device=dev, dtype=dt), torch.randn(n, n, device=dev, dtype=dt)
            add(f"MatMul/{dn}/n={n}", lambda: x @ y, flops=2 * n**3)
    for n in (1 << 16, 1 << 22, 1 << 26):
        x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
        add(f"Elementwise/Mul/n={n}", lambda: x * y, nbytes=12 * n)
    for n in (1 << 12, 1 << 20):
        x = torch.randn(n, device=dev)

        def chain():
            y = x
            for _ in range(10):
                y = y * x + x
            return y

        add(f"Chain/10xMulAdd/n={n}", chain)
    # Attention, head dimension 64: the course's shape (exercise attention:
    # batch 2 x 4 heads, 128 positions), 4x its length, and two larger ones.
    d = 64
    for bh, l in ((8, 128), (8, 512), (16, 512), (16, 2048)):
        q, k, v = (torch.randn(bh, l, d, device=dev) for _ in range(3))
        qg, kg, vg = (t.clone().requires_grad_(True) for t in (q, k, v))
        name = f"BH={bh}/L={l}"
        add(f"Attention/sdpa/{name}", lambda: F.scaled_dot_product_attention(q, k, v, scale=0.125))
        o = F.scaled_dot_product_attention(qg, kg, vg, scale=0.125)
        dout = torch.randn_like(o)
        add(f"Attention/sdpa-backward/{name}",
            lambda: torch.autograd.grad(o, (qg, kg, vg), dout, retain_graph=True))

        def step():
            out = F.scaled_dot_product_attention(qg, kg, vg, scale=0.125)
            return torch.autograd.grad(out, (qg, kg, vg), dout)

        add(f"Attention/sdpa-step/{name}", step)
        add(f"Attention/composite/{name}",
            lambda: torch.softmax(q @ k.transpose(1, 2) * 0.125, 2) @ v)
        with sdpa_kernel(SDPBackend.MATH):
            add(f"Attention/sdpa-math-step/{name}", step)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
