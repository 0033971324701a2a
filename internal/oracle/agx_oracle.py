"""Helpers for agx's PyTorch reference scripts: JSON tensors in and out."""
import json
import sys

import torch

torch.set_num_threads(1)

_DTYPES = {"float32": torch.float32, "float64": torch.float64,
           "int64": torch.int64, "bool": torch.bool}


def load():
    """Read the JSON input object from stdin."""
    return json.load(sys.stdin)


def tensor(obj, requires_grad=False):
    """Build a torch tensor from agx's JSON form (None for a null entry)."""
    if obj is None or obj.get("null"):
        return None
    t = torch.tensor(obj["data"], dtype=torch.float64).reshape(obj["shape"])
    t = t.to(_DTYPES[obj["dtype"]])
    if requires_grad:
        t.requires_grad_(True)
    return t


def encode(t):
    """agx's JSON form of a torch tensor (None becomes a null entry)."""
    if t is None:
        return {"null": True}
    t = t.detach()
    name = {v: k for k, v in _DTYPES.items()}[t.dtype]
    return {"shape": list(t.shape), "dtype": name,
            "data": t.reshape(-1).to(torch.float64).tolist()}


def dump(obj):
    """Write the result object as JSON to stdout."""
    def conv(x):
        if isinstance(x, torch.Tensor) or x is None:
            return encode(x)
        if isinstance(x, dict):
            return {k: conv(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [conv(v) for v in x]
        return x
    json.dump(conv(obj), sys.stdout)
