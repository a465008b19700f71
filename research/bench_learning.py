"""Seconds of one learning step (Eq. 10 loss, SGD) in float32 and in bfloat16 autocast.

The training's ``learn_precision`` option: a network of ``--blocks`` x
``--channels`` for GAME, mini-batches of ``--batch`` random planes and targets, one PyTorch
thread; each precision timed twice (10 steps after 2 warm-up steps), e.g.::

    .venv/bin/python research/bench_learning.py othello6 --blocks 3 --channels 64
"""

from __future__ import annotations

import argparse
import time

import torch
import torch.nn.functional as F

from sparring.games import get_game
from sparring.nn.model import NetworkConfig, build_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    game = get_game(args.game)
    net = NetworkConfig.for_game(game, blocks=args.blocks, channels=args.channels)
    model = build_model(net, seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    x = (torch.rand(args.batch, game.num_planes, *game.board_shape) < 0.3).float()
    pi = torch.softmax(torch.randn(args.batch, game.num_actions), 1)
    z = torch.rand(args.batch) * 2 - 1

    def step(precision: str) -> None:
        if precision == "bfloat16":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits, value = model(x)
            logits, value = logits.float(), value.float()
        else:
            logits, value = model(x)
        loss = F.mse_loss(value, z) - (pi * F.log_softmax(logits, 1)).sum(1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    for precision in ("float32", "bfloat16", "float32", "bfloat16"):
        for _ in range(2):
            step(precision)
        start = time.perf_counter()
        for _ in range(10):
            step(precision)
        print(f"{precision}: {(time.perf_counter() - start) / 10:.4f} s a step")


if __name__ == "__main__":
    main()
