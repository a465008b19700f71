"""A review by rank: the moves of a game where a player a few ranks stronger would most likely
have played differently.

A play network (``go-play``, ``chess-play``: the rank is one of its inputs,
:mod:`sparring.nn.playnet`) gives, for every position before one of the player's moves,
the probability of each legal move for a player of any of its ranks.  For each of the player's
moves ``a`` the review compares the player's own rank ``r`` with the rank ``k`` steps stronger:

    gap(a) = log p_r(a) - log p_(r+k)(a)

A large gap is a move that is typical of rank ``r`` and untypical of the stronger rank: the
stronger players' network disliked it most, relative to the player's own.  The moves with the
largest gaps are marked (only moves with a positive gap: a move the stronger rank likes at least
as much is not one it would play differently), with the stronger rank's preferred move (its most
probable legal move) beside each.  Both probabilities are over the legal moves only.

The search's value of the two moves is not computed (it would cost a search per marked move).
On request (``values=True``) the play network's value head at the stronger rank judges the
position after the move played and after the preferred one, from the mover's side (-1 .. 1);
it is a weak judge (the model card, ``models/estimators/README.md``, measures both heads: Go's
correlates 0.37 with the result, chess's predicts worse than a constant), so the service does
not show it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from sparring.errors import BadValueError, SparringError
from sparring.estimation.data import record_game, record_players
from sparring.estimation.upload import Record, source_of
from sparring.games.base import Game, State
from sparring.games.chess import Chess
from sparring.nn.estimators import load_estimator, resolve_estimator
from sparring.nn.onnx_runtime import OnnxStrengthNet
from sparring.nn.strength_eval import strength_network

if TYPE_CHECKING:  # PyTorch's module, imported when a .pt network is given
    from sparring.nn.strength_net import StrengthNet

FloatArray = npt.NDArray[np.float64]
PolicyFn = Callable[[npt.NDArray[np.float32], int], npt.NDArray[np.floating[Any]]]
"""``policy(planes [n, C, H, W], rank index) -> logits [n, actions]`` (0 = the strongest rank;
any shift per row: they are normalised over the legal moves)."""
ValueFn = Callable[[npt.NDArray[np.float32], int], npt.NDArray[np.floating[Any]]]
"""``value(planes [n, C, H, W], rank index) -> [n]`` from the side to move's view."""

PLAY_NETWORK = {"go": "go-play", "chess": "chess-play"}
"""The shipped play network each game's review uses by default."""
VALUE_NOTE = (
    "values: the play network's value head at the stronger rank after each move, from the "
    "mover's side (-1 lost .. 1 won), a weak judge (see the model card); no search"
)
NO_VALUE_NOTE = "values: omitted (neither the search's nor the network's value of the moves)"


@dataclass(frozen=True)
class ReviewedMove:
    """One of the player's moves, as the two ranks see it."""

    ply: int
    """Index of the move in the game (0-based; both players' moves counted)."""
    number: int
    """The move's number as players count it (Go: every move; chess: a move of each side)."""
    move: int
    text: str
    p_own: float
    """Probability of the move at the player's own rank (over the legal moves)."""
    p_stronger: float
    """Its probability at the stronger rank."""
    gap: float
    """``log p_own - log p_stronger``."""
    preferred: int
    """The stronger rank's most probable legal move."""
    preferred_text: str
    p_preferred: float
    """Its probability at the stronger rank."""
    value_played: float | None = None
    value_preferred: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "number": self.number,
            "move": self.move,
            "text": self.text,
            "p_own": self.p_own,
            "p_stronger": self.p_stronger,
            "gap": self.gap,
            "preferred": self.preferred,
            "preferred_text": self.preferred_text,
            "p_preferred": self.p_preferred,
            "value_played": self.value_played,
            "value_preferred": self.value_preferred,
        }


@dataclass
class Review:
    """The marked moves of one player in one game."""

    game: str
    source: str
    player: str
    side: int
    own_rank: str
    stronger_rank: str
    network: str
    moves: int
    """The player's moves compared."""
    marked: list[ReviewedMove]
    """The moves of largest gap, largest first."""
    notes: list[str] = field(default_factory=list)
    values: bool = False
    """Whether :attr:`ReviewedMove.value_played` / ``value_preferred`` were computed."""

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "source": self.source,
            "player": self.player,
            "side": self.side,
            "own_rank": self.own_rank,
            "stronger_rank": self.stronger_rank,
            "network": self.network,
            "moves": self.moves,
            "marked": [m.to_json() for m in self.marked],
            "notes": list(self.notes),
            "values": VALUE_NOTE if self.values else NO_VALUE_NOTE,
        }

    def describe(self) -> str:
        """Lines for people: a header and one line per marked move."""
        lines = [
            f"{self.player} ({self.source}): {self.moves} moves compared at {self.own_rank} "
            f"and {self.stronger_rank} ({self.network})",
            *self.notes,
        ]
        for m in self.marked:
            black = self.game == "chess" and self.side == 1  # chess: "21... Nf6"
            line = (
                f"move {m.number}{'...' if black else ''} {m.text}: p {m.p_own:.1%} at "
                f"{self.own_rank}, "
                f"{m.p_stronger:.1%} at {self.stronger_rank} (gap {m.gap:.2f}); "
                f"{self.stronger_rank} prefers {m.preferred_text} ({m.p_preferred:.1%})"
            )
            if m.value_played is not None and m.value_preferred is not None:
                line += f"; value {m.value_played:+.2f} played, {m.value_preferred:+.2f} preferred"
            lines.append(line)
        lines.append(VALUE_NOTE if self.values else NO_VALUE_NOTE)
        return "\n".join(lines)


def legal_log_policy(
    logits: npt.NDArray[np.floating[Any]], legal: npt.NDArray[np.bool_]
) -> FloatArray:
    """Log-probabilities over the legal moves of each row (``-inf`` on the others)."""
    x = np.where(legal, np.asarray(logits, dtype=np.float64), -np.inf)
    top = x.max(axis=1, keepdims=True)
    result: FloatArray = x - top - np.log(np.exp(x - top).sum(axis=1, keepdims=True))
    return result


def largest_gaps(log_own: FloatArray, log_stronger: FloatArray, top: int) -> list[int]:
    """Indices of the ``top`` largest positive ``log_own - log_stronger`` (largest first; a
    tie goes to the earlier move)."""
    gaps = np.asarray(log_own, dtype=np.float64) - np.asarray(log_stronger, dtype=np.float64)
    order = np.argsort(-gaps, kind="stable")
    return [int(i) for i in order[: max(0, top)] if gaps[i] > 0]


def stronger_rank(ranks: Sequence[str], own: str, steps: int) -> tuple[int, int, str | None]:
    """Rank indices (0 = the strongest) of ``own`` and of the rank ``steps`` stronger, and a
    note when fewer steps exist.  :class:`~sparring.errors.BadValueError` for a rank the
    network lacks or one with no stronger rank."""
    wanted = own.strip().casefold()
    names = [r.casefold() for r in ranks]
    if wanted not in names:
        raise BadValueError(f"rank {own!r} is not one of {', '.join(ranks)}", key="rank")
    if steps < 1:
        raise BadValueError("compare with a rank at least one step stronger", key="stronger")
    i = names.index(wanted)
    if i == 0:
        raise BadValueError(
            f"{ranks[0]} is the strongest rank of the network: there is no stronger one",
            key="rank",
        )
    j = max(0, i - steps)
    note = None
    if i - steps < 0:
        note = (
            f"{ranks[i]} is {i} step(s) below the strongest rank: compared with {ranks[0]}, "
            f"not {steps} steps up"
        )
    return i, j, note


@cache
def _network(name_or_path: str) -> StrengthNet | OnnxStrengthNet:
    return load_estimator(resolve_estimator(name_or_path))[0]


def play_network(
    game: str, name_or_path: str | Path | None = None
) -> tuple[StrengthNet | OnnxStrengthNet, str]:
    """The play network of a review (default :data:`PLAY_NETWORK`: its ONNX file, run
    without PyTorch) and its name; loaded once per process.
    :class:`~sparring.errors.SparringError` when it is not a play network of ``game``."""
    name = str(name_or_path or PLAY_NETWORK[game])
    model = _network(name)
    if model.config.kind != "play" or model.config.game != game:
        raise SparringError(f"{name}: not a {game} play network (the rank as an input)")
    return model, name


def network_functions(model: StrengthNet | OnnxStrengthNet) -> tuple[PolicyFn, ValueFn]:
    """The policy and value functions of a loaded play network (its ONNX file, or a PyTorch
    network)."""
    network = strength_network(model, threads=None)

    def run(planes: npt.NDArray[np.float32], rank: int) -> tuple[FloatArray, FloatArray]:
        x = np.ascontiguousarray(planes, dtype=np.float32)
        logits, values = network.play(x, np.full(x.shape[0], rank, dtype=np.int64))
        return logits.astype(np.float64), values.reshape(-1).astype(np.float64)

    def policy(planes: npt.NDArray[np.float32], rank: int) -> FloatArray:
        parts = [run(planes[i : i + 256], rank)[0] for i in range(0, len(planes), 256)]
        return np.concatenate(parts)

    def value(planes: npt.NDArray[np.float32], rank: int) -> FloatArray:
        return run(planes, rank)[1]

    return policy, value


def _move_text(game: Game, state: State, move: int) -> str:
    if isinstance(game, Chess):
        return game.san(state, move)
    return game.move_to_text(move)


def _values_after(
    rules: Game, pairs: Sequence[tuple[State, int]], mover: int, value: ValueFn, rank: int
) -> list[float]:
    """The value of each (position, move) for ``mover`` (-1 .. 1): the result where the move
    ends the game, else the value head at ``rank`` of the position after it (from the side
    then to move, the opponent: negated)."""
    after = [rules.play(state, move) for state, move in pairs]
    live = [k for k, s in enumerate(after) if not rules.is_terminal(s)]
    out = [2.0 * rules.status(s).score_for(mover) - 1.0 if rules.is_terminal(s) else 0.0
           for s in after]  # fmt: skip
    if live:
        planes = np.stack([rules.encode(after[k]) for k in live]).astype(np.float32)
        v = np.asarray(value(planes, rank), dtype=np.float64).reshape(-1)
        for k, x in zip(live, v.tolist(), strict=True):
            out[k] = -float(x)
    return out


def review_game(
    record: Record,
    side: int,
    ranks: Sequence[str],
    own: str,
    steps: int = 3,
    top: int = 5,
    policy: PolicyFn | None = None,
    value: ValueFn | None = None,
    network: str = "",
) -> Review:
    """The review of player ``side``'s moves in ``record`` (see the module docstring): ``own``
    and the rank ``steps`` stronger among ``ranks`` (the network's, strongest first), the
    ``top`` moves of largest gap marked.  ``policy`` / ``value`` are the network's functions
    (:func:`network_functions`; ``value`` None: no values)."""
    if policy is None:
        raise ValueError("review_game needs the policy function of a play network")
    i, j, note = stronger_rank(ranks, own, steps)
    rules = record_game(record)
    initial = record.initial_state(rules)  # type: ignore[arg-type]
    moves = np.asarray(record.moves, dtype=np.int64)
    first = rules.to_move(initial)
    at = np.flatnonzero((first + np.arange(moves.size)) % 2 == side)
    player = record_players(record)[side]
    if at.size == 0:
        raise BadValueError(f"{source_of(record)}: {player or 'the player'} made no move")
    last = int(at[-1]) + 1
    planes = rules.replay_planes(moves[:last], initial)[at]
    states = rules.replay_states(moves[:last], initial)
    legal = np.stack([rules.legal_mask(states[k]) for k in at.tolist()])
    log_own = legal_log_policy(policy(planes, i), legal)
    log_strong = legal_log_policy(policy(planes, j), legal)
    played = moves[at]
    rows = np.arange(at.size)
    own_p = log_own[rows, played]
    strong_p = log_strong[rows, played]
    chosen = largest_gaps(own_p, strong_p, top)
    preferred = log_strong.argmax(axis=1)
    values: dict[int, tuple[float, float]] = {}
    if value is not None and chosen:
        pairs = [(states[int(at[c])], int(m)) for c in chosen for m in (played[c], preferred[c])]
        v = _values_after(rules, pairs, side, value, j)
        for n, c in enumerate(chosen):
            values[c] = (v[2 * n], v[2 * n + 1])
    marked = []
    for c in chosen:
        ply = int(at[c])
        state = states[ply]
        marked.append(
            ReviewedMove(
                ply=ply,
                number=ply // 2 + 1 if isinstance(rules, Chess) else ply + 1,
                move=int(played[c]),
                text=_move_text(rules, state, int(played[c])),
                p_own=float(np.exp(own_p[c])),
                p_stronger=float(np.exp(strong_p[c])),
                gap=float(own_p[c] - strong_p[c]),
                preferred=int(preferred[c]),
                preferred_text=_move_text(rules, state, int(preferred[c])),
                p_preferred=float(np.exp(log_strong[c, preferred[c]])),
                value_played=values[c][0] if c in values else None,
                value_preferred=values[c][1] if c in values else None,
            )
        )
    return Review(
        game="go" if rules.name == "go" else "chess",
        source=source_of(record),
        player=player,
        side=side,
        own_rank=ranks[i],
        stronger_rank=ranks[j],
        network=network,
        moves=int(at.size),
        marked=marked,
        notes=[note] if note else [],
        values=bool(values),
    )


def review_with_network(
    record: Record,
    side: int,
    own: str,
    steps: int = 3,
    top: int = 5,
    network: str | Path | None = None,
    values: bool = False,
) -> Review:
    """:func:`review_game` with a shipped play network (default :data:`PLAY_NETWORK`)."""
    game = "go" if record_game(record).name == "go" else "chess"
    model, name = play_network(game, network)
    policy, value = network_functions(model)
    return review_game(
        record,
        side,
        model.config.ranks,
        own,
        steps,
        top,
        policy,
        value if values else None,
        network=name,
    )


__all__ = [
    "NO_VALUE_NOTE",
    "PLAY_NETWORK",
    "VALUE_NOTE",
    "PolicyFn",
    "Review",
    "ReviewedMove",
    "ValueFn",
    "largest_gaps",
    "legal_log_policy",
    "network_functions",
    "play_network",
    "review_game",
    "review_with_network",
    "stronger_rank",
]
