"""Strength estimation from games (Chen, Shih & Wu, "Strength Estimation and Human-Like
Strength Adjustment in Games", ICLR 2025).

* :mod:`~sparring.estimation.data` -- rank-labelled state-action pairs from the Fox Go and
  Lichess records, split by player, cached as compressed shards;
* :mod:`~sparring.estimation.train` -- the Bradley-Terry ranking loss (Eq. 2-5), SE, SE-inf and
  the SL baseline classifier, kill-safe training runs;
* :mod:`~sparring.estimation.predict` -- reference scores, nearest-mean rank prediction,
  accuracy against the number of games, one player's estimate;
* :mod:`~sparring.estimation.baselines` -- SL_sum and SL_vote;
* :mod:`~sparring.estimation.report` -- ``sparring se-eval``'s plots and report;
* :mod:`~sparring.estimation.match` -- human move matching of programs, with paired comparisons.

The networks these train and evaluate live in :mod:`sparring.nn` (the strength estimator
network :mod:`~sparring.nn.strength_net`, its SE-MCTS evaluator
:mod:`~sparring.nn.strength_eval`, play networks :mod:`~sparring.nn.playnet`, the shipped
estimators :mod:`~sparring.nn.estimators`), and the human-like player kinds that play them in
:mod:`sparring.players` (:mod:`~sparring.players.human_like`).  PyTorch is imported by the
submodules that need it, not by this package.
"""

from __future__ import annotations
