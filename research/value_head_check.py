"""Does an estimator's value head say anything about who wins?

The SE networks train a value head on the game result from the mover's view (MSE, human
pairs only; ``sparring.estimation.train.se_losses``), and the human-like search programs
(``human-mcts``, ``sa-mcts``, ``se-mcts``, ``se-inf-mcts``) back its output up the tree.  A
value head that outputs about 0 everywhere leaves the search to the prior alone.  For each
network, over ``--pairs`` pairs drawn from the held-out split of an extracted ``se-train``
cache (``runs/se-cache/GAME-...``; the games' results are the targets), this prints the
value's mean and standard deviation, its correlation with the result, its MSE against the
MSE of always predicting 0, and the correlation on the later half of the move numbers.
With ``--refit-steps N`` it also trains a copy of the value head alone for ``N`` Adam steps
on the cache's training pairs, the trunk frozen, and prints the same row for it: whether the
trunk's features hold what a value needs.  ``--refit-trunk`` trains the whole network on the
value loss alone instead (the same steps); ``--frame black`` makes the refitted value the
result from Black's view, multiplied by the side-to-move plane (Go's planes are in absolute
colours, so a mover's-view value needs the trunk to multiply by the side to move; a Black's
view value is a plain function of the stones).

    PYTHONPATH=src python research/value_head_check.py --cache runs/se-cache/go-9b1881054902 \
        go-se-inf-play go-se go-se-inf

A play network (``se-train --variant play``) is read at each pair's own rank (no refit).
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from sparring.estimation.data import load_split
from sparring.nn.estimators import resolve_estimator
from sparring.nn.strength_net import StrengthNet, load_strength_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", help="shipped estimator names or model files")
    parser.add_argument("--cache", type=Path, required=True, help="an se-train cache folder")
    parser.add_argument("--pairs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--refit-steps", type=int, default=0)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--refit-trunk", action="store_true", help="refit the whole network")
    parser.add_argument("--frame", choices=("mover", "black"), default="mover")
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()
    pairs = load_split(args.cache, "val")
    rng = np.random.default_rng(args.seed)
    idx = np.sort(rng.choice(len(pairs), min(args.pairs, len(pairs)), replace=False))
    planes = torch.from_numpy(pairs.planes(idx))
    target = pairs.value[idx].astype(np.float64)
    late = pairs.move_number[idx] > np.median(pairs.move_number[idx])
    print(f"{idx.size} held-out pairs of {args.cache}; results: {np.mean(target != 0):.1%} decided")
    print(
        "| network | value mean | value sd | corr with result | MSE | MSE of 0 | corr, later half |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in args.models:
        net, _ = load_strength_model(resolve_estimator(name))
        net.eval()
        with torch.no_grad():
            if net.config.kind == "play":  # the rank is an input: each pair's own rank
                _, value = net.play(planes, torch.from_numpy(pairs.rank[idx].astype(np.int64)))
            else:
                _, _, value = net.trunk(planes)
        print(_row(name, value.numpy(), target, late))
        if args.refit_steps and net.config.kind == "play":
            raise SystemExit("--refit-steps is for the estimators, not a play network")
        if args.refit_steps:
            refit = _refit_value(
                net, args.cache, args.refit_steps, args.batch, rng, args.refit_trunk,
                args.frame, args.lr,
            )  # fmt: skip
            what = "network" if args.refit_trunk else "value head"
            with torch.no_grad():
                print(
                    _row(f"{name}, {what} refitted ({args.frame}'s view)",
                         refit(planes).numpy(), target, late)
                )  # fmt: skip


def _row(name: str, value: np.ndarray, target: np.ndarray, late: np.ndarray) -> str:
    v = value.astype(np.float64)
    return (
        f"| {name} | {v.mean():.3f} | {v.std():.3f} | {np.corrcoef(v, target)[0, 1]:.3f} "
        f"| {np.mean((v - target) ** 2):.3f} | {np.mean(target**2):.3f} "
        f"| {np.corrcoef(v[late], target[late])[0, 1]:.3f} |"
    )


def _refit_value(
    net: StrengthNet,
    cache: Path,
    steps: int,
    batch: int,
    rng: np.random.Generator,
    whole: bool = False,
    frame: str = "mover",
    lr: float = 1e-3,
) -> Callable[[torch.Tensor], torch.Tensor]:
    """A copy of the network whose value head (``whole``: every layer) is trained (Adam,
    MSE) on the cache's training pairs, everything else frozen; returns planes -> the
    mover's value (with ``frame="black"`` the head's output times the side-to-move plane)."""
    az = copy.deepcopy(net.az)
    az.eval()
    head = [az] if whole else [az.value_conv, az.value_fc1, az.value_fc2]
    for p in az.parameters():
        p.requires_grad_(False)
    for module in head:
        module.train()
        for p in module.parameters():
            p.requires_grad_(True)

    def value(planes: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = az(planes)[1]
        return out * planes[:, 2, 0, 0] if frame == "black" else out

    train = load_split(cache, "train")
    optimiser = torch.optim.Adam([p for m in head for p in m.parameters()], lr=lr)
    for step in range(steps):
        idx = np.sort(rng.choice(len(train), batch, replace=False))
        target = torch.from_numpy(train.value[idx].astype(np.float32))
        loss = F.mse_loss(value(torch.from_numpy(train.planes(idx))), target)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if (step + 1) % 50 == 0:
            print(f"  step {step + 1}: train MSE {loss.item():.4f}", flush=True)
    az.eval()
    return value


if __name__ == "__main__":
    main()
