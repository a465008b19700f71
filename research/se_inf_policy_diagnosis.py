"""Diagnosis of the Go SE-inf policy head (docs/research/strength-estimation.md).

Usage (from a checkout, ``SPARRING_DATA`` pointing at ``shared/data``)::

    PYTHONPATH=src python research/se_inf_policy_diagnosis.py train STEPS LOSS [START]
    PYTHONPATH=src python research/se_inf_policy_diagnosis.py gradients

``train``: ``STEPS`` training steps on a small cache (80 games per rank, 16 positions per
player, Adam) under ``LOSS`` -- ``se``, ``se_inf`` (as trained) or ``se_inf_detach`` (the
``r_inf`` pairs' strength scores read the trunk features with the gradient stopped) --
starting from the shipped network ``START`` (``go-se``, ``go-se-inf``; 1 group of 7 pairs per
rank a step, lr 5e-4), from scratch as the shipped network (``scratch``: 4 blocks x 32,
2 groups, lr 2e-3) or from a smaller one (``START`` left out: 2 blocks x 32, 2 groups,
lr 2e-3); prints the policy's top-1 and its argmax / probability on occupied points for the
cache's validation positions every 50 steps, one JSON line each.  ``gradients``: the norm of
the policy and ranking losses' gradients on the trunk, at initialisation and for the shipped
networks, averaged over 4 training batches of the small cache.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

import sparring.estimation.train as T
from sparring.estimation.data import GO_RANKS, PairSet, load_split
from sparring.nn.estimators import resolve_estimator
from sparring.nn.strength_net import (
    StrengthNet,
    StrengthNetConfig,
    build_strength_model,
    load_strength_model,
)

RUNS = Path("/work/runs/sematch")


def base_config(start: str | None) -> dict[str, Any]:
    if start is None:
        net = {"blocks": 2, "groups_per_batch": 2, "learning_rate": 0.002}
    elif start == "scratch":  # the shipped Go network and optimiser (configs/se-go.toml)
        net = {"blocks": 4, "groups_per_batch": 2, "learning_rate": 0.002}
    else:
        net = {"blocks": 4, "groups_per_batch": 1, "learning_rate": 0.0005}
    return {
        "game": "go",
        "cache_dir": str(RUNS / "cache"),
        "max_records_per_rank": 80,
        "val_fraction": 0.15,
        "train_positions_per_side": 16,
        "eval_positions_per_side": 8,
        "channels": 32,
        "head_channels": 32,
        "head_hidden": 64,
        "value_hidden": 64,
        "pairs_per_rank": 7,
        "optimizer": "adam",
        "lr_decay_steps": [100000],
        "checkpoint_every": 100000,
        "log_every": 50,
        "val_every": 0,
        "seed": 1,
        **net,
    }


def evaluate(model: StrengthNet, pairs: PairSet, n: int = 600) -> dict[str, float]:
    """Policy top-1 and the argmax / mass on occupied points (planes 0 and 1 are stones)."""
    rng = np.random.default_rng(5)
    idx = np.sort(rng.choice(len(pairs), min(n, len(pairs)), replace=False))
    planes = torch.from_numpy(pairs.planes(idx))
    model.eval()
    with torch.no_grad():
        _, logits, _ = model.trunk(planes)
    p = torch.softmax(logits, 1).numpy()
    occ = (planes[:, 0] + planes[:, 1]).reshape(len(idx), -1).numpy() > 0
    occ = np.concatenate([occ, np.zeros((len(idx), 1), bool)], 1)
    arg = p.argmax(1)
    return {
        "top1": round(float((arg == pairs.action[idx]).mean()), 4),
        "occupied_argmax": round(float(occ[np.arange(len(idx)), arg].mean()), 4),
        "occupied_mass": round(float((p * occ).sum(1).mean()), 4),
    }


def train(steps: int, loss: str, start: str | None) -> None:
    cfg = T.SEConfig.from_mapping(
        base_config(start) | {"variant": "se" if loss == "se" else "se_inf", "steps": steps}
    )
    trainer = T.SETrainer(cfg, RUNS / f"diag-{start}-{loss}-{steps}", show_progress=False)
    if start not in (None, "scratch"):
        net, _ = load_strength_model(resolve_estimator(start))
        trainer.model.load_state_dict(net.state_dict())
    val = load_split(trainer.data_dir, "val")
    if loss == "se_inf_detach":
        human = {"b": 0}
        strength = trainer.model.strength
        losses = T.se_losses

        def detached(f: torch.Tensor, lg: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
            b = human["b"]
            return strength(torch.cat([f[:b], f[b:].detach()]), lg, a)

        def counted(model: StrengthNet, batch: T.Batch, pw: float = 1.0, vw: float = 1.0) -> Any:
            human["b"] = batch.actions.shape[0]
            return losses(model, batch, pw, vw)

        trainer.model.strength = detached  # type: ignore[method-assign]
        T.se_losses = counted  # type: ignore[assignment]
    print(
        json.dumps({"loss": loss, "start": start, "step": 0, "val": evaluate(trainer.model, val)})
    )
    t0 = time.time()
    for k in range(steps):
        out = trainer.train_step()
        if (k + 1) % 50 == 0:
            record = {
                "loss": loss,
                "step": k + 1,
                "losses": {a: round(b, 3) for a, b in out.items()},
            }
            record |= {"val": evaluate(trainer.model, val), "s": round(time.time() - t0)}
            print(json.dumps(record), flush=True)


def gradients() -> None:
    cache = next((RUNS / "cache").iterdir())
    pairs = load_split(cache, "train")
    for label, kind, src in [
        ("init", "se", None),
        ("init", "se_inf", None),
        ("shipped", "se", "go-se"),
        ("shipped", "se_inf", "go-se-inf"),
    ]:
        if src is None:
            cfg = StrengthNetConfig("go", GO_RANKS, kind, blocks=4, channels=32)
            model = build_strength_model(cfg, seed=1)
        else:
            model, _ = load_strength_model(resolve_estimator(src))
        model.train()
        trunk = [p for n, p in model.named_parameters() if n.startswith(("az.stem", "az.body"))]
        sampler = T.BatchSampler(pairs, kind, 2, 7, True, torch.device("cpu"))
        rows = []
        for seed in range(4):
            out = T.se_losses(model, sampler.sample(np.random.default_rng(seed)))
            gp, gr = (
                torch.cat(
                    [g.reshape(-1) for g in torch.autograd.grad(out[k], trunk, retain_graph=True)]
                )
                for k in ("policy", "rank")
            )
            rows.append((gp.norm().item(), gr.norm().item(), out["rank"].item()))
        r = np.array(rows).mean(0)
        print(
            f"{label} {kind}: |grad policy| {r[0]:.3f} |grad rank| {r[1]:.3f} "
            f"ratio {r[1] / r[0]:.1f} rank loss {r[2]:.2f}"
        )


if __name__ == "__main__":
    torch.set_num_threads(1)
    if sys.argv[1] == "train":
        train(int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        gradients()
