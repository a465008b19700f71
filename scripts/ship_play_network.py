"""Ship a trained play network (``se-train --variant play``) as a package model, in float16.

Reads ``RUN/model.pt``, writes NAME.pt into ``src/sparring/models/estimators/`` with its
floating-point tensors in float16 (half the file; it loads back into float32) and its ONNX
export NAME.onnx beside it (what the players run; ``scripts/export_onnx.py``), and prints
both sizes and how far the shipped file's policy and value move on the run's held-out
pairs: the share of pairs whose top policy move changes and the largest value change.

    PYTHONPATH=src python scripts/ship_play_network.py runs/go-play go-play \
        --cache runs/se-cache/go-0ad00ab7d015
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from sparring.estimation.data import load_split
from sparring.nn.estimators import ESTIMATOR_DIR
from sparring.nn.onnx_export import export_network_file
from sparring.nn.strength_net import load_strength_model, save_strength_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="the se-train run folder (its model.pt)")
    parser.add_argument("name", help="the shipped name, e.g. go-play")
    parser.add_argument("--cache", type=Path, required=True, help="the run's data cache")
    parser.add_argument("--pairs", type=int, default=2000, help="held-out pairs compared")
    args = parser.parse_args()
    source = args.run / "model.pt"
    model, metadata = load_strength_model(source)
    if model.config.kind != "play":
        raise SystemExit(f"{source}: a {model.config.kind} network, not a play network")
    target = ESTIMATOR_DIR / f"{args.name}.pt"
    save_strength_model(target, model, metadata, half=True)
    for path, data in export_network_file(target).items():
        path.write_bytes(data)
    shipped, _ = load_strength_model(target)
    val = load_split(args.cache, "val")
    rng = np.random.default_rng(0)
    idx = np.sort(rng.choice(len(val), min(args.pairs, len(val)), replace=False))
    planes = torch.from_numpy(val.planes(idx))
    ranks = torch.from_numpy(val.rank[idx].astype(np.int64))
    with torch.no_grad():
        a_logits, a_value = model.play(planes, ranks)
        b_logits, b_value = shipped.play(planes, ranks)
    moved = (a_logits.argmax(1) != b_logits.argmax(1)).float().mean().item()
    print(f"{source}: {source.stat().st_size:,} bytes -> {target}: {target.stat().st_size:,}")
    print(
        f"top move changed on {moved:.2%} of {idx.size} held-out pairs; largest value change "
        f"{(a_value - b_value).abs().max().item():.2e}"
    )


if __name__ == "__main__":
    main()
