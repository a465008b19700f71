"""Self-play (AlphaDDA app. 1.3): the network plays itself to produce training samples.

Many games are played at once so that the PUCT search evaluates their leaves in one network
batch.  For the first ``T_opening`` moves of a game the move is drawn with Eq. 9,
``p(a|s) = exp(N(s,a)/tau) / sum_b exp(N(s,b)/tau)``; afterwards the most visited move is
played.  Every position yields (input planes, search probabilities pi, outcome z for the
player to move), and *Augmentation* adds the game's symmetric images.

The games are not :class:`~sparring.session.GameSession` objects: many positions advance in
lock-step so that one network batch serves them all.  They share the session's rules: each
move is played with :func:`sparring.session.advance` (the unchecked step the session takes
after checking a move) and scored with :meth:`Outcome.score_for
<sparring.games.base.Outcome.score_for>`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sparring.games.base import Game, Outcome, State
from sparring.nn.evaluators import Evaluator
from sparring.search.puct import PUCTConfig, SearchResult, search_batch
from sparring.session import advance
from sparring.training.config import TrainConfig

Sample = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], int]
"""One position of a game in progress: input planes, search probabilities, player to move."""


@dataclass(frozen=True)
class SelfPlaySettings:
    """How self-play chooses moves (a slice of :class:`~sparring.training.config.TrainConfig`)."""

    search: PUCTConfig
    """Search of every move, with root noise."""
    opening_moves: int
    """``T_opening`` of Eq. 9."""
    temperature: float
    """``tau`` of Eq. 9."""
    parallel_games: int
    """Games in flight at once."""

    @classmethod
    def from_config(cls, config: TrainConfig) -> SelfPlaySettings:
        """The self-play settings of a training run."""
        return cls(
            search=PUCTConfig(
                simulations=config.simulations,
                c_puct=config.c_puct,
                leaves_per_batch=config.leaves_per_batch,
                dirichlet_alpha=config.dirichlet_alpha,
                noise_fraction=config.noise_fraction,
            ),
            opening_moves=config.opening_moves,
            temperature=config.temperature,
            parallel_games=config.parallel_games,
        )


@dataclass
class SelfPlayBatch:
    """The samples of some finished self-play games, before augmentation."""

    planes: npt.NDArray[np.float32]
    pi: npt.NDArray[np.float32]
    z: npt.NDArray[np.float32]
    games: int
    results: list[Outcome]
    lengths: list[int]


def opening_move(result: SearchResult, temperature: float, rng: np.random.Generator) -> int:
    """A move drawn with Eq. 9 from the root visit counts."""
    logits = result.visits.astype(np.float64) / temperature
    p = np.exp(logits - logits.max())
    p /= p.sum()
    return int(result.moves[rng.choice(len(p), p=p)])


def best_move(result: SearchResult, rng: np.random.Generator) -> int:
    """The most visited move, ties broken at random."""
    best = result.best_moves()
    return int(best[rng.integers(len(best))])


def play_games(
    game: Game,
    evaluator: Evaluator,
    settings: SelfPlaySettings,
    games: int,
    rng: np.random.Generator,
) -> SelfPlayBatch:
    """Play ``games`` self-play games, ``settings.parallel_games`` at a time."""
    planes: list[npt.NDArray[np.float32]] = []
    pis: list[npt.NDArray[np.float32]] = []
    zs: list[float] = []
    results: list[Outcome] = []
    lengths: list[int] = []
    started = 0
    live: list[tuple[State, list[Sample]]] = []
    while started < games or live:
        while started < games and len(live) < settings.parallel_games:
            live.append((game.initial_state(), []))
            started += 1
        searches = search_batch(game, [s for s, _ in live], evaluator, settings.search, rng)
        still: list[tuple[State, list[Sample]]] = []
        for (state, history), result in zip(live, searches, strict=True):
            history.append((game.encode(state), result.policy(game.num_actions), result.to_move))
            if game.ply(state) < settings.opening_moves:
                move = opening_move(result, settings.temperature, rng)
            else:
                move = best_move(result, rng)
            child, outcome = advance(game, state, move)  # the session's step (no check)
            if outcome is Outcome.ONGOING:
                still.append((child, history))
                continue
            for p, pi, mover in history:
                planes.append(p)
                pis.append(pi)
                zs.append(2.0 * outcome.score_for(mover) - 1.0)
            results.append(outcome)
            lengths.append(len(history))
        live = still
    return SelfPlayBatch(
        np.stack(planes), np.stack(pis), np.asarray(zs, dtype=np.float32), games, results, lengths
    )


def augment(
    game: Game,
    planes: npt.NDArray[np.float32],
    pi: npt.NDArray[np.float32],
    z: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Every sample with all its symmetric images (2 for Connect4, 8 for Othello)."""
    out_planes, out_pi, out_z = [], [], []
    for p, q, v in zip(planes, pi, z, strict=True):
        for image_planes, image_pi in game.symmetries(p, q):
            out_planes.append(image_planes)
            out_pi.append(image_pi)
            out_z.append(v)
    return np.stack(out_planes), np.stack(out_pi), np.asarray(out_z, dtype=np.float32)
