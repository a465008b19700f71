"""Where a GPU training step of the Go play network goes (for the next GPU run).

The first and the continued Go play network runs went at 0.172-0.173 s a step on an H100 and an H200
alike (BENCHMARKS.md).  This times, on synthetic data of the real shapes
(``configs/se-go-play-gpu.toml``: 10 x 128, 2,112 pairs a step, 19x19), one optimiser step with the
batch already on the device, in float32, under bfloat16 autocast (the runs' setting), and under
bfloat16 with the channels-last memory layout; and the copy of one batch's planes to the device from
ordinary and from pinned memory.  If the device step is well under 0.17 s, the rest of a real step
is the sampler on the CPU (decoding, symmetries) and the copy.  Usage::
    PYTHONPATH=src python3 research/bench_play_step.py [--device cuda] [--steps 30]

(``--device cpu --steps 2 --pairs 64`` tries it here.)
"""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import Any

import torch
import torch.nn.functional as F

from sparring.estimation.data import ranks_for
from sparring.estimation.train import to_channels_last
from sparring.nn.strength_net import StrengthNetConfig, build_strength_model


def step_seconds(
    device: torch.device, pairs: int, steps: int, bf16: bool, channels_last: bool
) -> float:
    """Mean seconds of one optimiser step (after 3 warm-up steps) with a device batch."""
    cfg = StrengthNetConfig(
        game="go", ranks=ranks_for("go"), kind="play", blocks=10, channels=128, value_hidden=128
    )
    model = build_strength_model(cfg, seed=0).to(device)
    planes = torch.rand(pairs, 15, 19, 19, device=device)
    if channels_last:
        to_channels_last(model)
        planes = planes.contiguous(memory_format=torch.channels_last)
    ranks = torch.randint(0, len(cfg.ranks), (pairs,), device=device)
    actions = torch.randint(0, 362, (pairs,), device=device)
    values = torch.rand(pairs, device=device) * 2 - 1
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    cast: Any = (
        torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
    )
    model.train()

    def one() -> None:
        with cast:
            logits, value = model.play(planes, ranks)
            loss = F.cross_entropy(logits, actions) + F.mse_loss(value.float(), values)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for _ in range(3):
        one()
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        one()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def copy_seconds(device: torch.device, pairs: int, pinned: bool, repeats: int = 20) -> float:
    """Mean seconds to copy one batch's float32 planes to ``device``."""
    host = torch.rand(pairs, 15, 19, 19)
    if pinned and device.type == "cuda":
        host = host.pin_memory()
    host.to(device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(repeats):
        host.to(device, non_blocking=pinned)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / repeats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--pairs", type=int, default=2112)
    args = ap.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
        print(torch.cuda.get_device_name(device), "torch", torch.__version__, flush=True)
    for name, bf16, last in (
        ("float32", False, False),
        ("bf16 autocast", True, False),
        ("bf16 autocast, channels_last", True, True),
    ):
        s = step_seconds(device, args.pairs, args.steps, bf16, last)
        print(f"step, batch on the device, {name}: {s:.4f} s ({args.pairs / s:,.0f} pairs/s)")
    for pinned in (False, True):
        s = copy_seconds(device, args.pairs, pinned)
        print(f"copy of one batch's planes, {'pinned' if pinned else 'pageable'}: {s:.4f} s")


if __name__ == "__main__":
    main()
