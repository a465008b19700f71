"""Is a shipped estimator's move strength score beta(s, a) more than its policy's prior?

SE-MCTS (Eq. 6) steers the search with beta(s, a) of the moves it considers.  The strength
head sees the trunk features, the move (as planes) and the policy's log-probability of the
move (``StrengthNet.strength``).  If beta is (almost) a monotone function of that
log-probability within a position, steering by beta can only prefer more or less likely
moves, not stronger or weaker ones.  For each network, over held-out positions (the ``tune``
half) with at least five legal moves, this prints:

* the within-position Spearman correlation of beta and the log-probability over the legal
  moves (mean and median over positions; +-1: beta orders the moves exactly as the prior);
* the standard deviation of beta among the five most likely moves, and among all legal
  moves, beside the mean gap between adjacent ranks' reference scores (the distance the
  search would have to move beta to change rank).

    SPARRING_DATA=/work/shared/data PYTHONPATH=src python research/semcts_beta_prior.py \
        --positions 220 go:go-se-inf-play go:go-se go:go-se-inf chess:chess-se-inf chess:chess-se
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from scipy.stats import spearmanr

from sparring.estimation.heldout import held_out_positions, legal_move_scores
from sparring.nn.estimators import resolve_estimator
from sparring.nn.strength_net import load_strength_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "models", nargs="+", help="GAME:NAME (a shipped estimator or a model file), e.g. go:go-se"
    )
    parser.add_argument("--positions", type=int, default=220)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(
        "| network | positions | Spearman(beta, log P) mean | median | sd beta, top-5 moves "
        "| sd beta, all legal | mean gap between adjacent ranks |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    cache: dict[str, object] = {}
    for item in args.models:
        game, _, name = item.partition(":")
        if game not in cache:
            cache[game] = held_out_positions(game, args.positions, seed=args.seed, part="tune")
        pos = cache[game]
        net, metadata = load_strength_model(resolve_estimator(name))
        rho: list[float] = []
        sd_top: list[float] = []
        sd_all: list[float] = []
        for beta, logp in legal_move_scores(net, pos):  # type: ignore[arg-type]
            if beta.size < 5:
                continue
            rho.append(float(spearmanr(beta, logp).statistic))
            sd_top.append(float(beta[np.argsort(-logp)[:5]].std()))
            sd_all.append(float(beta.std()))
        refs = metadata.get("references")
        gap = (
            f"{float(np.abs(np.diff(np.asarray(refs['scores'], dtype=float))).mean()):.3f}"
            if isinstance(refs, dict) and "scores" in refs
            else "- (no se-eval yet)"
        )
        print(
            f"| {name} | {len(rho)} | {np.nanmean(rho):.3f} | {np.nanmedian(rho):.3f} | "
            f"{np.mean(sd_top):.3f} | {np.mean(sd_all):.3f} | {gap} |"
        )


if __name__ == "__main__":
    main()
