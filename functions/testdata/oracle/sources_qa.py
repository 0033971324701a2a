"""PyTorch references for the Q&A's Functions (examples E1-E3)."""
import torch

OPS = {
    "my_exp": torch.exp,
    "two_in_two_out": lambda x, y: (x * x + y * y, x * y),
    "positive_sum": lambda x: torch.relu(x).sum(),
}
