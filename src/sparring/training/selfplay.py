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

Search variants (:attr:`TrainConfig.search_variant
<sparring.training.config.TrainConfig.search_variant>`): the training target of a recorded
position is :meth:`RootStats.training_policy <sparring.search.stats.RootStats.training_policy>`,
the visit counts for ``puct``, the root plan's improved policy for ``gumbel`` (completed-Q)
and ``forced`` (pruned visits).  ``gumbel`` plays the action its sequential halving selected
on every ply (the Gumbel sample is the exploration: no Dirichlet noise, no Eq. 9 draws).

Playout cap randomization (KataGo, Wu 2019): with ``full_search_fraction = p < 1`` each move
of each game is, with probability ``p``, a *full* search (``simulations``, the variant's noise,
recorded as a sample), else a *fast* search (``fast_simulations``, no noise of either kind, no
forced playouts, not recorded; the game's outcome still labels the recorded positions).  The
games stay in lock-step: at each step the live games split into the full and the fast group
and :func:`~sparring.search.puct.search_batch` runs once per non-empty group, so a step costs
up to two network-batch sequences (the fast one short) and each batch holds only its group's
leaves, smaller batches than one search of all games would make.

Random draws, all from the run's generator, in this order at each step: with ``p < 1`` one
uniform number per live game (in the order the games started), ``< p`` meaning full; then the
full group's search, then the fast group's (each draws its noise in game order); then, game
by game, the draw of the move played (Eq. 9, or the tie break of the most visited).  With
``p = 1`` no draw is made for the split, so the samples are those of the search alone.

With ``finish_games`` (Go), a move the game's finishing rules rule out is replaced by the most
visited allowed one (:func:`finishing_allowed`, :func:`finishing_move`; one more tie-break
draw then) and the recorded target keeps only the allowed moves (:func:`finishing_target`).

With ``value_targets = "solver"`` (Connect4 only; not AlphaZero, a labelled comparison) the
value target of a recorded position is its exact value for the player to move
(:class:`SolverValues`) instead of the game's outcome; nothing else changes, no random draw
included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from sparring.errors import ConfigError
from sparring.games.base import Game, Outcome, State
from sparring.players.finish import most_visited_allowed
from sparring.search.evaluator import Evaluator
from sparring.search.puct import PUCTConfig, SearchResult, search_batch
from sparring.session import advance
from sparring.training.config import TrainConfig

if TYPE_CHECKING:
    from sparring.evaluation.oracle import SolvedPosition
    from sparring.nn.model import PolicyValueNet

Sample = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], int, int]
"""One position of a game in progress: input planes, search probabilities, player to move,
and its ply (how many moves reach it)."""

ValueOracle = Callable[[Sequence[int]], float]
"""The exact value (+1 won, 0 drawn, -1 lost) of the position that ``moves`` reach, for the
player to move there (``TrainConfig.value_targets = "solver"``)."""


class SolverValues:
    """Connect4's exact values by bitbully (:class:`~sparring.evaluation.oracle.Connect4Solver`),
    each position solved once per process (up to :attr:`keep` positions remembered, then
    forgotten at once).  Picklable: the solver is built on first use, so that self-play worker
    processes each build their own."""

    keep = 200_000

    def __init__(self) -> None:
        self._solve: Callable[[Sequence[int]], SolvedPosition] | None = None
        self._known: dict[tuple[int, ...], float] = {}

    def __call__(self, moves: Sequence[int]) -> float:
        key = tuple(moves)
        if key not in self._known:
            if self._solve is None:
                from sparring.evaluation.oracle import Connect4Solver

                self._solve = Connect4Solver()
            if len(self._known) >= self.keep:
                self._known.clear()
            self._known[key] = float(np.sign(self._solve(key).best_score))
        return self._known[key]

    def __getstate__(self) -> dict[str, object]:
        return {}

    def __setstate__(self, state: dict[str, object]) -> None:
        self._solve = None
        self._known = {}


@dataclass(frozen=True)
class SelfPlaySettings:
    """How self-play chooses moves (a slice of :class:`~sparring.training.config.TrainConfig`)."""

    search: PUCTConfig
    """The full searches: every move's with ``full_search_fraction = 1``, with root noise."""
    opening_moves: int
    """``T_opening`` of Eq. 9."""
    temperature: float
    """``tau`` of Eq. 9."""
    parallel_games: int
    """Games in flight at once."""
    fast_search: PUCTConfig | None = None
    """The fast searches of playout cap randomization (no noise); needed when
    ``full_search_fraction < 1``."""
    full_search_fraction: float = 1.0
    """``p``: the probability that a move is a full, recorded search (module doc)."""
    play_selected: bool = False
    """Play the root plan's :attr:`~sparring.search.stats.RootStats.selected_move` on every
    ply (Gumbel AlphaZero) instead of Eq. 9 / the most visited move."""
    selected_plies: int | None = None
    """With :attr:`play_selected`: play the selected move only on plies below this, and
    afterwards :func:`improved_best_move` (``TrainConfig.gumbel_opening_only``); None: on
    every ply."""
    finish: bool = False
    """Self-play under the game's finishing rules (``TrainConfig.finish_games``;
    :func:`finishing_allowed`): the moves the rules rule out are neither played nor in the
    recorded targets."""
    value_oracle: ValueOracle | None = None
    """``TrainConfig.value_targets = "solver"``: the value of each recorded position for the
    player to move comes from this oracle of the moves that reach it, not from the game's
    result (None: the result, AlphaZero)."""

    def __post_init__(self) -> None:
        if not 0 < self.full_search_fraction <= 1:
            raise ConfigError(
                "self-play: full_search_fraction must be in (0, 1]", "full_search_fraction"
            )
        if self.full_search_fraction < 1 and self.fast_search is None:
            raise ConfigError(
                "self-play: full_search_fraction < 1 needs a fast search", "fast_simulations"
            )

    @classmethod
    def from_config(cls, config: TrainConfig) -> SelfPlaySettings:
        """The self-play settings of a training run (its ``search_variant`` and playout cap
        randomization included)."""
        plain = PUCTConfig(
            simulations=config.simulations,
            c_puct=config.c_puct,
            leaves_per_batch=config.leaves_per_batch,
        )
        noisy = replace(
            plain, dirichlet_alpha=config.dirichlet_alpha, noise_fraction=config.noise_fraction
        )
        fast_plain = replace(plain, simulations=max(config.fast_simulations, 1))
        if config.search_variant == "gumbel":
            from sparring.search.gumbel import GumbelRoot

            def gumbel(noise: bool) -> GumbelRoot:
                return GumbelRoot(
                    considered=config.gumbel_considered,
                    c_visit=config.gumbel_c_visit,
                    c_scale=config.gumbel_c_scale,
                    noise=noise,
                )

            search = replace(plain, root_plan=gumbel(True))
            fast = replace(fast_plain, root_plan=gumbel(False))
        elif config.search_variant == "forced":
            from sparring.search.forced import ForcedPlayouts

            search = replace(noisy, root_plan=ForcedPlayouts(k=config.forced_k, prune=True))
            fast = fast_plain
        else:
            search, fast = noisy, fast_plain
        pcr = config.full_search_fraction < 1
        return cls(
            search=search,
            opening_moves=config.opening_moves,
            temperature=config.temperature,
            parallel_games=config.parallel_games,
            fast_search=fast if pcr else None,
            full_search_fraction=config.full_search_fraction,
            play_selected=config.search_variant == "gumbel",
            selected_plies=config.opening_moves if config.gumbel_opening_only else None,
            finish=config.finish_games,
            value_oracle=SolverValues() if config.value_targets == "solver" else None,
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
    """Moves played in each game (its recorded samples are fewer with playout cap
    randomization)."""
    moves: int = 0
    """Moves played (searched) in all the games."""
    full_searches: int = 0
    """Moves searched with the full search: the recorded samples."""
    simulations: int = 0
    """Simulations of all the searches, full and fast."""


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


def improved_best_move(result: SearchResult) -> int:
    """Among the most visited moves, the one with the largest improved-policy weight (the
    first in move order on ties): the Gumbel root's choice without the Gumbel draw."""
    if result.improved_policy is None:
        raise RuntimeError("the self-play search gave no improved policy")
    most = result.visits == result.visits.max()
    weights = np.where(most, result.improved_policy, -1.0)
    return int(result.moves[int(np.argmax(weights))])


def choose_move(
    game: Game,
    state: State,
    result: SearchResult,
    settings: SelfPlaySettings,
    rng: np.random.Generator,
) -> int:
    """The move self-play plays after ``result``: the root plan's selected move with
    :attr:`~SelfPlaySettings.play_selected` (after :attr:`~SelfPlaySettings.selected_plies`
    plies, :func:`improved_best_move`), else Eq. 9 for the first ``T_opening`` plies and
    the most visited move afterwards."""
    if settings.play_selected:
        if result.selected_move is None:
            raise RuntimeError("the self-play search selected no move to play")
        if settings.selected_plies is not None and game.ply(state) >= settings.selected_plies:
            return improved_best_move(result)
        return int(result.selected_move)
    if game.ply(state) < settings.opening_moves:
        return opening_move(result, settings.temperature, rng)
    return best_move(result, rng)


def finishing_allowed(game: Game, state: State) -> npt.NDArray[np.bool_] | None:
    """The moves self-play may play at ``state`` under the game's finishing rules
    (:meth:`~sparring.games.base.Game.move_filter`; None where the game gives none): only the
    pass when the rules say to pass now (Go: the opponent has just passed and the player is
    ahead by the area count); else the legal moves the rules do not advise against (Go: not
    filling one's own single-point eye) other than the pass, and the pass only when none is
    left.  There is no voluntary pass: a game ends when a player passes to win or when both
    have nothing else to play, so its result is the count of a settled board, not a player
    giving up early (which a young network's self-play otherwise learns: the side its value
    head thinks is losing passes, the other passes to win, and the pass takes over the policy
    targets)."""
    rule = game.move_filter(state)
    if rule is None:
        return None
    allowed = np.zeros(game.num_actions, dtype=np.bool_)
    if not rule.pass_now:
        allowed[:] = game.legal_mask(state) & ~rule.avoid
        allowed[rule.pass_move] = False
    if not allowed.any():
        allowed[rule.pass_move] = True
    return allowed


def finishing_target(
    pi: npt.NDArray[np.float32], allowed: npt.NDArray[np.bool_], move: int
) -> npt.NDArray[np.float32]:
    """The recorded target ``pi`` restricted to the ``allowed`` moves and renormalised; the
    one-hot of the ``move`` played when the search gave the allowed moves no weight."""
    kept = np.where(allowed, pi, 0.0).astype(np.float32)
    total = float(kept.sum())
    if total <= 0.0:
        kept[:] = 0.0
        kept[move] = 1.0
        return kept
    out: npt.NDArray[np.float32] = kept / np.float32(total)
    return out


def finishing_move(
    result: SearchResult, allowed: npt.NDArray[np.bool_], move: int, rng: np.random.Generator
) -> int:
    """``move`` if ``allowed``, else the most visited allowed move of the search (ties at
    random; the root's children cover every legal move)."""
    if allowed[move]:
        return move
    return most_visited_allowed(result.moves, result.visits, allowed[result.moves], rng)


def _search_groups(
    game: Game,
    states: list[State],
    evaluator: Evaluator,
    settings: SelfPlaySettings,
    rng: np.random.Generator,
) -> tuple[list[SearchResult], npt.NDArray[np.bool_]]:
    """Search every state of one lock-step step: which are full searches (drawn first, one
    number per game, only when ``p < 1``), then the full group's search, then the fast
    group's.  Returns the results in the order of ``states`` and the full-search mask."""
    p = settings.full_search_fraction
    if p >= 1:
        everything = np.ones(len(states), dtype=np.bool_)
        return search_batch(game, states, evaluator, settings.search, rng), everything
    full = rng.random(len(states)) < p
    results: list[SearchResult | None] = [None] * len(states)
    for mask, config in ((full, settings.search), (~full, settings.fast_search)):
        index = np.flatnonzero(mask)
        if index.size == 0:
            continue
        group = search_batch(game, [states[i] for i in index], evaluator, config, rng)
        for i, result in zip(index, group, strict=True):
            results[i] = result
    return [r for r in results if r is not None], full


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
    moves = full_searches = simulations = 0
    started = 0
    live: list[tuple[State, list[Sample], list[int]]] = []  # state, samples, moves played
    while started < games or live:
        while started < games and len(live) < settings.parallel_games:
            live.append((game.initial_state(), [], []))
            started += 1
        searches, full = _search_groups(game, [s for s, _, _ in live], evaluator, settings, rng)
        still: list[tuple[State, list[Sample], list[int]]] = []
        for (state, history, played), result, recorded in zip(live, searches, full, strict=True):
            move = choose_move(game, state, result, settings, rng)
            allowed = finishing_allowed(game, state) if settings.finish else None
            if allowed is not None:
                move = finishing_move(result, allowed, move, rng)
            if recorded:
                pi = result.training_policy(game.num_actions)
                if allowed is not None:
                    pi = finishing_target(pi, allowed, move)
                history.append((game.encode(state), pi, result.to_move, len(played)))
                full_searches += 1
            simulations += result.simulations
            played.append(int(move))
            moves += 1
            child, outcome = advance(game, state, move)  # the session's step (no check)
            if outcome is Outcome.ONGOING:
                still.append((child, history, played))
                continue
            oracle = settings.value_oracle
            for p, pi, mover, ply in history:
                planes.append(p)
                pis.append(pi)
                if oracle is None:
                    zs.append(2.0 * outcome.score_for(mover) - 1.0)
                else:
                    zs.append(oracle(played[:ply]))
            results.append(outcome)
            lengths.append(len(played))
        live = still
    plane_shape = (game.num_planes, *game.board_shape)
    return SelfPlayBatch(
        np.stack(planes) if planes else np.zeros((0, *plane_shape), dtype=np.float32),
        np.stack(pis) if pis else np.zeros((0, game.num_actions), dtype=np.float32),
        np.asarray(zs, dtype=np.float32),
        games,
        results,
        lengths,
        moves,
        full_searches,
        simulations,
    )


CALIBRATION_POSITIONS = 512
"""Positions the int8 evaluator (``backend = "onnx-int8"``) is calibrated on."""


def random_positions(game: Game, count: int, seed: int = 0) -> npt.NDArray[np.float32]:
    """The encoded planes of the first ``count`` positions of uniformly random games from
    the start (generator ``seed``): the calibration set of an int8 network, the same for
    every iteration and every worker."""
    rng = np.random.default_rng(seed)
    planes: list[npt.NDArray[np.float32]] = []
    while len(planes) < count:
        state = game.initial_state()
        while len(planes) < count:
            planes.append(np.asarray(game.encode(state), dtype=np.float32))
            moves = game.legal_moves(state)
            state = game.play(state, int(moves[int(rng.integers(len(moves)))]))
            if game.status(state) is not Outcome.ONGOING:
                break
    return np.stack(planes)


def selfplay_evaluator(
    game: Game, model: PolicyValueNet, backend: str, threads: int, device: str
) -> Evaluator:
    """The evaluator self-play (and the trainer's evaluation) uses for ``model``: the
    config's ``backend`` on ``device``; ``onnx-int8`` is calibrated on
    :func:`random_positions` (:data:`CALIBRATION_POSITIONS`)."""
    from sparring.nn.evaluators import make_evaluator

    calibration = (
        random_positions(game, CALIBRATION_POSITIONS)
        if backend == "onnx-int8" and device == "cpu"
        else None
    )
    return make_evaluator(
        model, backend=backend, threads=threads, device=device, calibration=calibration
    )


def augment(
    game: Game,
    planes: npt.NDArray[np.float32],
    pi: npt.NDArray[np.float32],
    z: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Every sample with all its symmetric images (2 for Connect4, 8 for Othello)."""
    if len(z) == 0:
        return planes, pi, z
    out_planes, out_pi, out_z = [], [], []
    for p, q, v in zip(planes, pi, z, strict=True):
        for image_planes, image_pi in game.symmetries(p, q):
            out_planes.append(image_planes)
            out_pi.append(image_pi)
            out_z.append(v)
    return np.stack(out_planes), np.stack(out_pi), np.asarray(out_z, dtype=np.float32)
