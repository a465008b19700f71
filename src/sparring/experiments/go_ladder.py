"""A handicap ladder of Go (19x19) ranks played by a batched runner (docs/strength/go-ladder.md).

A *rung* is the rank-conditioned play network (``go-play``) drawing its moves from its policy
for one rank input at one temperature: the player
``human-mcts:model=go-play,rank=R,sims=1,temp=T``
(:class:`~sparring.players.sampling.PolicySamplingPlayer`).  Adjacent rungs are one
handicap step apart: the weaker rung, playing Black with komi 0.5 and no handicap stones,
scores about 50% against the rung above it (the rule of KataGo's Human-SL rank ladder,
lightvector/KataGo pull request 1209).

Playing such games one at a time costs a network call per move on a CPU core (about 25 ms
on 19x19), hours for a ladder.  :class:`BatchedGames` plays many games in one process: every
ply, the positions of all live games are encoded by compiled kernels over the games' flat
position arrays (:mod:`sparring.games.go`), evaluated in **one** network batch (each row with
its own rank input; torch, on CUDA when asked), turned into priors by the search's own
:func:`~sparring.search.evaluator.masked_softmax` and sampled by the player's own
:func:`~sparring.players.sampling.sample_policy_moves` with the same finishing rules and the
same uniforms: game ``g``'s Black draws its ``k``-th move with the ``k``-th number of
``numpy.random.default_rng(black_seed).random(...)``, as the player seeded ``black_seed``
does.  So the runner plays the games of the per-game players (up to the float rounding of
batched against single network calls), and a finished game's slot takes the next game at
once (continuous batching).

Results are JSON lines (:func:`append_records`, :func:`read_records`): one ``game`` record a
game (phase, pair, seeds, Black's score, area margin, plies, whether the ply cap ended it, a
hash of the moves and the moves), plus ``timing``, ``tune``, ``rung`` and ``anchor`` records;
a run that is stopped and started again skips the games already written, and files of
several runs merge (:func:`pair_summaries`: per pair the wins, losses and draws of Black,
the score, its Wilson 95% interval and the number of duplicate games).

Tuning (:func:`tune_rung`): the candidates for the rung below ``upper`` are a grid of
temperatures at the next rank input; every candidate plays ``G`` games as Black against
``upper``, all in one batch, and a logistic fit of the score on ``log T`` gives the
temperature of a 50% score.  :func:`confirmation_games` are every adjacent pair again with
fresh seeds.  GNU Go anchor games (:class:`AnchorGame`, played by ``research/go_ladder.py``)
go through the per-game player and the GNU Go player (:mod:`sparring.players.external`) in a
:class:`~sparring.session.GameSession`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt
import torch

from sparring.games.base import DRAW, FIRST_WINS, ONGOING, SECOND_WINS
from sparring.games.go import (
    KOMI2,
    MAX_PLY,
    PASSES,
    PLY,
    STATUS,
    TO_MOVE,
    Go,
    area_kernel,
    encode_kernel,
    legal_moves,
    move_to_sgf,
    own_eyes_kernel,
    play,
)
from sparring.players.sampling import sample_policy_moves
from sparring.search.evaluator import masked_softmax

LADDER_KOMI = 0.5
"""Komi of the ladder's games: the weaker rung has Black and no compensation to pay."""
DEFAULT_MODEL = "go-play"
"""The rank-conditioned play network of the rungs."""
LOW, HIGH = 0.40, 0.60
"""A pair is level when the Wilson 95% interval of Black's score lies inside [LOW, HIGH]."""


# ---- rungs --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rung:
    """A rung: the play network at rank input ``rank`` drawing at ``temperature``."""

    rank: str
    temperature: float

    def label(self) -> str:
        """``9d@0.5``."""
        return f"{self.rank}@{self.temperature:.4g}"

    def spec(self, model: str = DEFAULT_MODEL) -> str:
        """The per-game player of this rung (``human-mcts:model=go-play,rank=9d,sims=1,
        temp=0.5``)."""
        temp = f"{self.temperature:.4g}"
        return f"human-mcts:model={model},rank={self.rank},sims=1,temp={temp}"

    def to_json(self) -> dict[str, Any]:
        """``{"rank": ..., "temp": ...}``."""
        return {"rank": self.rank, "temp": float(f"{self.temperature:.4g}")}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rung:
        """The rung of :meth:`to_json`'s object."""
        return cls(str(data["rank"]), float(data["temp"]))

    @classmethod
    def parse(cls, text: str) -> Rung:
        """``9d@0.5`` (also ``9d:0.5``)."""
        rank, _, temp = text.replace(":", "@").partition("@")
        if not temp:
            raise ValueError(f"a rung is RANK@TEMPERATURE (9d@0.5), not {text!r}")
        return cls(rank.strip(), float(temp))

    def __post_init__(self) -> None:
        # Rungs are compared and keyed by their label: keep 4 significant digits only.
        object.__setattr__(self, "temperature", float(f"{float(self.temperature):.4g}"))


def pair_key(black: Rung, white: Rung) -> str:
    """``8d@0.7 vs 9d@0.5`` (Black first)."""
    return f"{black.label()} vs {white.label()}"


def game_seeds(base: int, *keys: int) -> tuple[int, int]:
    """The seeds of Black's and White's players in the game named by ``keys`` under the
    run's ``base`` seed (two SeedSequence words, < 2**63)."""
    words = np.random.SeedSequence(base, spawn_key=tuple(keys)).generate_state(2, np.uint64)
    return int(words[0] >> np.uint64(1)), int(words[1] >> np.uint64(1))


@dataclass(frozen=True)
class LadderGame:
    """One game to play: ``black`` (Black, komi :data:`LADDER_KOMI`) against ``white``."""

    phase: str
    black: Rung
    white: Rung
    black_seed: int
    white_seed: int
    index: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Copied into the game's record (e.g. the tuning round)."""

    @property
    def key(self) -> tuple[str, str, int, int]:
        """What identifies the game among the records: phase, pair and seeds."""
        return (self.phase, pair_key(self.black, self.white), self.black_seed, self.white_seed)


def moves_hash(moves: npt.NDArray[np.integer]) -> str:
    """A hash of a move sequence (16 hex digits): equal games, equal hashes."""
    return hashlib.sha1(np.asarray(moves, dtype=np.int16).tobytes()).hexdigest()[:16]


def sgf_moves(moves: npt.NDArray[np.integer], size: int = 19) -> str:
    """The moves as SGF points, two letters each (``tt`` a pass)."""
    return "".join(move_to_sgf(int(m), size) or "tt" for m in moves)


# ---- the network --------------------------------------------------------------------------
@dataclass(frozen=True)
class Pending:
    """A network call of :meth:`LadderNetwork.launch`: its logits (a CPU call), or the
    page-locked tensor they are being copied into and the CUDA event that marks the copy's
    end."""

    logits: npt.NDArray[np.float32] | None = None
    host: torch.Tensor | None = None
    event: Any = None


def padded_batch(n: int) -> int:
    """The batch a CUDA call of ``n`` positions is padded to: the next power of two up to
    128, then the next multiple of 128, so that the live games' shrinking count meets a few
    shapes only (cuDNN tunes its kernels once per shape)."""
    if n <= 128:
        return 1 << max(n - 1, 0).bit_length()
    return -(-n // 128) * 128


class LadderNetwork:
    """The play network on ``device`` for batches of positions with a rank input per row.

    ``precision``: ``fp32`` (float32; on CUDA without TF32), ``tf32`` (CUDA's TF32
    convolutions and matrix products: PyTorch's default for convolutions) or ``bf16``
    (autocast to bfloat16).  On CUDA a batch is padded with empty rows to
    :func:`padded_batch` positions.  Anything but ``fp32`` moves the priors a little from the
    per-game player's (float32 on a CPU); :meth:`max_prior_gap` measures by how much."""

    def __init__(
        self, model: Any, device: str = "cpu", precision: str = "fp32", threads: int | None = None
    ) -> None:
        if precision not in ("fp32", "tf32", "bf16"):
            raise ValueError(f"precision must be fp32, tf32 or bf16, not {precision!r}")
        if model.config.kind != "play":
            raise ValueError(f"a {model.config.kind} network has no rank input")
        if threads is not None:
            torch.set_num_threads(int(threads))
        self.device = torch.device(device)
        self.precision = precision
        self.ranks: tuple[str, ...] = tuple(model.config.ranks)
        self.cpu_model = model.eval()
        if self.device.type == "cuda":
            torch.backends.cudnn.benchmark = True
            tf32 = precision != "fp32"
            torch.backends.cudnn.allow_tf32 = tf32
            torch.backends.cuda.matmul.allow_tf32 = tf32
            import copy

            self.model = copy.deepcopy(model).to(self.device).eval()
            self.model = self.model.to(memory_format=torch.channels_last)
        else:
            self.model = self.cpu_model

    def rank_index(self, rank: str) -> int:
        """The network's index of ``rank`` (ValueError for a rank it lacks)."""
        if rank not in self.ranks:
            raise ValueError(f"the play network has no rank {rank!r} ({', '.join(self.ranks)})")
        return self.ranks.index(rank)

    def input_buffer(self, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
        """A float32 array for the input planes (in page-locked memory for a CUDA device, so
        that it is copied to the device at full speed)."""
        if self.device.type == "cuda":
            return torch.empty(shape, dtype=torch.float32, pin_memory=True).numpy()
        return np.zeros(shape, dtype=np.float32)

    def logits(
        self, planes: npt.NDArray[np.float32], ranks: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        """Policy logits ``[B, A]`` (float32, on the CPU) of ``planes [B, P, n, n]`` for the
        rank indices ``ranks [B]``."""
        return self.fetch(self.launch(planes, ranks))

    @torch.inference_mode()
    def launch(self, planes: npt.NDArray[np.float32], ranks: npt.NDArray[np.int64]) -> Pending:
        """Start the call of :meth:`logits` (on CUDA it runs on while the caller works; on
        a CPU it is done on return); :meth:`fetch` gives its logits.  ``planes`` must not
        change until then."""
        x = torch.from_numpy(planes)
        r = torch.from_numpy(ranks)
        if self.device.type == "cuda":
            n = x.shape[0]
            x = x.to(self.device, non_blocking=True)
            r = r.to(self.device, non_blocking=True)
            pad = padded_batch(n) - n
            if pad:
                x = torch.cat([x, x.new_zeros((pad, *x.shape[1:]))])
                r = torch.cat([r, r.new_zeros(pad)])
            x = x.contiguous(memory_format=torch.channels_last)
            if self.precision == "bf16":
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    logits, _ = self.model.play(x, r)
            else:
                logits, _ = self.model.play(x, r)
            out = logits[:n].float()
            host = torch.empty(out.shape, dtype=torch.float32, pin_memory=True)
            host.copy_(out, non_blocking=True)
            event = torch.cuda.Event()
            event.record()
            return Pending(host=host, event=event)
        logits, _ = self.model.play(x, r)
        return Pending(logits=logits.numpy().astype(np.float32, copy=False))

    def fetch(self, pending: Pending) -> npt.NDArray[np.float32]:
        """The logits of a :meth:`launch` (waiting for them on CUDA)."""
        if pending.logits is not None:
            return pending.logits
        assert pending.host is not None and pending.event is not None
        pending.event.synchronize()
        result: npt.NDArray[np.float32] = pending.host.numpy()
        return result

    @torch.inference_mode()
    def max_prior_gap(
        self, planes: npt.NDArray[np.float32], ranks: npt.NDArray[np.int64], legal: np.ndarray
    ) -> float:
        """The largest difference of a prior between this network's batch and the float32
        CPU network called one position at a time (as the per-game player calls it)."""
        batched = masked_softmax(self.logits(planes, ranks), legal)
        gap = 0.0
        for i in range(planes.shape[0]):
            one, _ = self.cpu_model.play(
                torch.from_numpy(planes[i : i + 1]), torch.from_numpy(ranks[i : i + 1])
            )
            single = masked_softmax(one.numpy().astype(np.float32), legal[i : i + 1])
            gap = max(gap, float(np.abs(single - batched[i : i + 1]).max()))
        return gap


def load_network(
    model: str = DEFAULT_MODEL, device: str = "cpu", precision: str = "fp32",
    threads: int | None = None,
) -> LadderNetwork:  # fmt: skip
    """:class:`LadderNetwork` of a shipped play network name or file."""
    from sparring.nn.estimators import resolve_estimator
    from sparring.nn.strength_net import load_strength_model

    network, _ = load_strength_model(resolve_estimator(model))
    return LadderNetwork(network, device, precision, threads)


# ---- compiled steps over the games' position arrays ---------------------------------------
@nb.njit(cache=True, parallel=True)
def _prepare(
    states: np.ndarray,
    rows: np.ndarray,
    planes: np.ndarray,
    legal: np.ndarray,
    avoid: np.ndarray,
    pass_now: np.ndarray,
) -> None:
    """For the games ``rows`` (row ``i`` of the outputs is game ``rows[i]``): the input
    planes, the legal moves, the own-eye points and the pass-to-win flag (the opponent has
    just passed and the player to move is ahead by the area count, komi included), as
    :meth:`Go.encode <sparring.games.go.Go.encode>`, :meth:`Go.legal_mask
    <sparring.games.base.Game.legal_mask>` and :meth:`Go.move_filter
    <sparring.games.go.Go.move_filter>` give them."""
    actions = legal.shape[1]
    for i in nb.prange(rows.shape[0]):
        state = states[rows[i]]
        encode_kernel(state, planes[i])
        buffer = np.empty(actions, dtype=np.int64)
        count = legal_moves(state, buffer)
        for a in range(actions):
            legal[i, a] = False
        for j in range(count):
            legal[i, buffer[j]] = True
        own_eyes_kernel(state, avoid[i])
        header = state.view(np.int64)
        flag = False
        if header[PASSES] == 1:
            black, white = area_kernel(state)
            margin2 = 2 * (black - white) - header[KOMI2]
            flag = margin2 > 0 if header[TO_MOVE] == 0 else margin2 < 0
        pass_now[i] = flag


@nb.njit(cache=True, parallel=True)
def _apply(
    states: np.ndarray, rows: np.ndarray, moves: np.ndarray, log: np.ndarray, done: np.ndarray
) -> None:
    """Play ``moves[i]`` in game ``rows[i]``, log it at the game's ply, and mark ``done``
    the games that ended."""
    for i in nb.prange(rows.shape[0]):
        g = rows[i]
        state = states[g]
        header = state.view(np.int64)
        log[g, header[PLY]] = moves[i]
        play(state, moves[i])
        done[g] = header[STATUS] != ONGOING


@nb.njit(cache=True, parallel=True)
def _priors(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """:func:`~sparring.search.evaluator.masked_softmax` of each row, the rows in parallel
    threads (each row by the search's own function, so the priors are the player's)."""
    out = np.empty(logits.shape, dtype=np.float32)
    for i in nb.prange(logits.shape[0]):
        out[i] = masked_softmax(logits[i : i + 1], legal[i : i + 1])[0]
    return out


@nb.njit(cache=True, parallel=True)
def _draws(
    priors: np.ndarray,
    allowed: np.ndarray,
    pass_now: np.ndarray,
    temperatures: np.ndarray,
    uniforms: np.ndarray,
    pass_move: int,
) -> np.ndarray:
    """:func:`~sparring.players.sampling.sample_policy_moves` of each row, the rows in
    parallel threads (each row by the player's own function)."""
    moves = np.empty(priors.shape[0], dtype=np.int64)
    for i in nb.prange(priors.shape[0]):
        j = slice(i, i + 1)
        moves[i] = sample_policy_moves(
            priors[j], allowed[j], pass_now[j], temperatures[j], uniforms[j], pass_move
        )[0]
    return moves


# ---- the batched runner -------------------------------------------------------------------
@dataclass(frozen=True)
class GameOutcome:
    """A finished game of the runner."""

    game: LadderGame
    moves: npt.NDArray[np.int16]
    black_score: float
    """1 Black won, 0 White won, 0.5 a draw (none at komi 0.5)."""
    margin: float
    """Black's area minus White's minus komi (Tromp-Taylor, no dead stones removed)."""
    capped: bool
    """The ply cap ended the game (not two passes)."""

    def record(self) -> dict[str, Any]:
        """The game's JSON record."""
        g = self.game
        return {
            "type": "game", "phase": g.phase, "pair": pair_key(g.black, g.white),
            "black": g.black.to_json(), "white": g.white.to_json(), "komi": LADDER_KOMI,
            "black_seed": g.black_seed, "white_seed": g.white_seed, "index": g.index,
            **dict(g.extra), "result": self.black_score, "margin": self.margin,
            "plies": len(self.moves), "capped": self.capped,
            "hash": moves_hash(self.moves), "moves": sgf_moves(self.moves),
        }  # fmt: skip


class BatchedGames:
    """Plays :class:`LadderGame` s, up to ``batch`` at a time, one network call a ply and lane
    (see the module doc and :meth:`play`).  ``max_ply``: the Go game's ply cap (default 722 on
    19x19)."""

    def __init__(
        self,
        network: LadderNetwork,
        batch: int = 256,
        max_ply: int | None = None,
        lanes: int | None = None,
    ) -> None:
        self.network = network
        self.batch = int(batch)
        self.go = Go(19, LADDER_KOMI, max_ply)
        self.lanes = (
            int(lanes) if lanes is not None else (2 if network.device.type == "cuda" else 1)
        )
        """Groups of games whose network calls alternate (default: 2 on CUDA, 1 on a CPU,
        where nothing runs beside the call)."""
        self.plies = 0
        """Plies played so far (each live game moved once a ply; one network call a lane)."""
        self.positions = 0
        """Positions evaluated so far."""
        self.network_seconds = 0.0
        """Seconds spent in the network calls."""

    def play(
        self,
        games: Sequence[LadderGame],
        on_outcome: Callable[[GameOutcome], None] | None = None,
        deadline: float | None = None,
    ) -> list[GameOutcome]:
        """Play ``games`` and return their outcomes in the order they finished (calling
        ``on_outcome`` with each); with ``deadline`` (a :func:`time.monotonic` time), no game
        starts after it (the games under way are played out).

        The slots are split into :attr:`lanes` that take turns: while the network evaluates
        one lane's positions (on CUDA), the CPU draws the other lane's moves and prepares its
        next positions.  A game's moves do not depend on the lanes or the batch."""
        go = self.go
        slots = min(self.batch, len(games))
        if slots == 0:
            return []
        lanes = self.lanes if slots >= 2 * self.lanes else 1
        draws = go.max_ply // 2 + 2
        initial = go.initial_state()
        states = np.zeros((slots, go.state_length), dtype=np.uint64)
        log = np.zeros((slots, go.max_ply), dtype=np.int16)
        done = np.zeros(slots, dtype=np.bool_)
        live = np.zeros(slots, dtype=np.bool_)
        task: list[LadderGame | None] = [None] * slots
        uniforms = np.zeros((slots, 2, draws))
        drawn = np.zeros((slots, 2), dtype=np.int64)
        ranks = np.zeros((slots, 2), dtype=np.int64)
        temps = np.zeros((slots, 2))
        lane_slots = [np.arange(lane, slots, lanes) for lane in range(lanes)]
        buffers = [self._buffers(len(members)) for members in lane_slots]
        queue = iter(games)
        outcomes: list[GameOutcome] = []

        def start(slot: int) -> None:
            if deadline is not None and time.monotonic() > deadline:
                return
            game = next(queue, None)
            if game is None:
                return
            task[slot] = game
            states[slot] = initial
            live[slot], done[slot] = True, False
            drawn[slot] = 0
            for colour, (rung, seed) in enumerate(
                ((game.black, game.black_seed), (game.white, game.white_seed))
            ):
                uniforms[slot, colour] = np.random.default_rng(seed).random(draws)
                ranks[slot, colour] = self.network.rank_index(rung.rank)
                temps[slot, colour] = rung.temperature

        def begin(lane: int) -> tuple[np.ndarray, np.ndarray, Pending] | None:
            members = lane_slots[lane]
            rows = members[live[members]]
            if len(rows) == 0:
                return None
            planes, legal, avoid, pass_now = buffers[lane]
            _prepare(states, rows, planes, legal, avoid, pass_now)
            colour = states[rows, TO_MOVE].astype(np.int64)
            began = time.perf_counter()
            pending = self.network.launch(planes[: len(rows)], ranks[rows, colour])
            self.network_seconds += time.perf_counter() - began
            return rows, colour, pending

        def finish(lane: int, rows: np.ndarray, colour: np.ndarray, pending: Pending) -> None:
            n = len(rows)
            _, legal, avoid, pass_now = buffers[lane]
            began = time.perf_counter()
            logits = self.network.fetch(pending)
            self.network_seconds += time.perf_counter() - began
            priors = _priors(logits, legal[:n])
            allowed = legal[:n] & ~avoid[:n]
            u = uniforms[rows, colour, drawn[rows, colour]]
            drawn[rows, colour] += 1
            moves = _draws(priors, allowed, pass_now[:n], temps[rows, colour], u, go.pass_move)
            _apply(states, rows, moves, log, done)
            self.positions += n
            for slot in rows[done[rows]]:
                outcome = self._outcome(task[slot], states[slot], log[slot])
                outcomes.append(outcome)
                if on_outcome is not None:
                    on_outcome(outcome)
                live[slot] = False
                task[slot] = None
                start(int(slot))

        for slot in range(slots):
            start(slot)
        under_way = [begin(lane) for lane in range(lanes)]
        while any(step is not None for step in under_way):
            for lane in range(lanes):
                step = under_way[lane]
                if step is not None:
                    finish(lane, *step)
                    under_way[lane] = begin(lane)
            self.plies += 1
        return outcomes

    def _buffers(
        self, rows: int
    ) -> tuple[npt.NDArray[np.float32], np.ndarray, np.ndarray, np.ndarray]:
        """The planes, legal, own-eye and pass-to-win arrays of a lane of ``rows`` games."""
        go = self.go
        return (
            self.network.input_buffer((rows, go.num_planes, go.size, go.size)),
            np.zeros((rows, go.num_actions), dtype=np.bool_),
            np.zeros((rows, go.num_actions), dtype=np.bool_),
            np.zeros(rows, dtype=np.bool_),
        )

    def _outcome(
        self, game: LadderGame | None, state: npt.NDArray[np.uint64], log: np.ndarray
    ) -> GameOutcome:
        assert game is not None
        header = state.view(np.int64)
        plies = int(header[PLY])
        status = int(header[STATUS])
        score = {FIRST_WINS: 1.0, SECOND_WINS: 0.0, DRAW: 0.5}[status]
        capped = plies >= int(header[MAX_PLY]) and int(header[PASSES]) < 2
        return GameOutcome(game, log[:plies].copy(), score, self.go.score_margin(state), capped)


# ---- records ------------------------------------------------------------------------------
def append_records(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    """Append ``records`` to the JSON-lines file ``path`` (one compact object a line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as out:
        for record in records:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")


def read_records(paths: Iterable[Path]) -> Iterator[dict[str, Any]]:
    """The records of the JSON-lines files ``paths`` that exist (``.gz``: gzipped; a last
    line cut short by a stopped run is skipped)."""
    for path in paths:
        if not path.is_file():
            continue
        text = (
            gzip.decompress(path.read_bytes()).decode()
            if path.suffix == ".gz"
            else (path.read_text())
        )
        for line in text.splitlines():
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue


def game_records(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``game`` records, each game once (merged files may repeat a game: same phase,
    pair and seeds)."""
    seen: set[tuple[str, str, int, int]] = set()
    games = []
    for record in records:
        if record.get("type") != "game":
            continue
        key = (record["phase"], record["pair"], record["black_seed"], record["white_seed"])
        if key not in seen:
            seen.add(key)
            games.append(dict(record))
    return games


def wilson(score: float, games: int) -> tuple[float, float]:
    """The Wilson 95% interval of a score of ``score`` points in ``games`` games."""
    from sparring.estimation.heldout import wilson_interval

    return wilson_interval(score, games)


@dataclass(frozen=True)
class PairSummary:
    """Black's results in the games of one pair (one phase or several)."""

    pair: str
    games: int
    wins: int
    losses: int
    draws: int
    duplicates: int
    """Games whose move sequence an earlier game of the pair already had."""
    capped: int
    """Games the ply cap ended."""
    mean_plies: float

    @property
    def score(self) -> float:
        """Black's score share (a draw is half a win)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95% interval of :attr:`score`."""
        return wilson(self.wins + 0.5 * self.draws, self.games)

    @property
    def level(self) -> bool:
        """The interval lies inside [:data:`LOW`, :data:`HIGH`]."""
        low, high = self.interval
        return self.games > 0 and low >= LOW and high <= HIGH

    def to_json(self) -> dict[str, Any]:
        """The ``pair`` record of the summary."""
        low, high = self.interval
        return {
            "type": "pair", "pair": self.pair, "games": self.games, "wins": self.wins,
            "losses": self.losses, "draws": self.draws, "score": round(self.score, 4),
            "wilson_low": round(low, 4), "wilson_high": round(high, 4), "level": self.level,
            "duplicates": self.duplicates, "capped": self.capped,
            "mean_plies": round(self.mean_plies, 1),
        }  # fmt: skip


def pair_summaries(
    records: Iterable[Mapping[str, Any]], phase: str | None = None
) -> list[PairSummary]:
    """Per pair (in order of first appearance), the summary of its ``game`` records (of
    ``phase`` only, when given)."""
    by_pair: dict[str, list[dict[str, Any]]] = {}
    for record in game_records(records):
        if phase is None or record["phase"] == phase:
            by_pair.setdefault(record["pair"], []).append(record)
    out = []
    for pair, games in by_pair.items():
        results = [float(g["result"]) for g in games]
        out.append(
            PairSummary(
                pair=pair,
                games=len(games),
                wins=sum(r == 1.0 for r in results),
                losses=sum(r == 0.0 for r in results),
                draws=sum(r == 0.5 for r in results),
                duplicates=len(games) - len({g["hash"] for g in games}),
                capped=sum(bool(g["capped"]) for g in games),
                mean_plies=float(np.mean([g["plies"] for g in games])),
            )
        )
    return out


# ---- tuning -------------------------------------------------------------------------------
def fit_logistic(
    x: npt.ArrayLike, y: npt.ArrayLike, ridge: float = 1e-3, iterations: int = 50
) -> tuple[float, float]:
    """``(a, b)`` of the maximum-likelihood fit ``P(score) = 1 / (1 + exp(-(a + b x)))`` of
    scores ``y`` in [0, 1] (a draw 0.5) at ``x`` (Newton's method, a small ridge on both)."""
    a, b = fit_logistic_polynomial(x, y, 1, ridge, iterations)
    return a, b


def fit_logistic_polynomial(
    x: npt.ArrayLike, y: npt.ArrayLike, degree: int, ridge: float = 1e-3, iterations: int = 50
) -> tuple[float, ...]:
    """The coefficients ``(c0, c1, ..., c_degree)`` of the maximum-likelihood fit ``P(score)
    = 1 / (1 + exp(-(c0 + c1 x + ... + c_degree x^degree)))`` of scores ``y`` in [0, 1] at
    ``x`` (Newton's method, a small ridge on every coefficient)."""
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    design = np.stack([xs**d for d in range(degree + 1)], axis=1)
    beta = np.zeros(degree + 1)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        gradient = design.T @ (ys - p) - ridge * beta
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + ridge * np.eye(degree + 1)
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.abs(step).max() < 1e-10:
            break
    return tuple(float(c) for c in beta)


@dataclass(frozen=True)
class TuneResult:
    """The tuning of one rung below ``upper``."""

    upper: Rung
    chosen: Rung
    temperatures: tuple[float, ...]
    games: tuple[int, ...]
    scores: tuple[float, ...]
    """Black's score share at each candidate temperature."""
    a: float
    b: float
    """The logistic fit ``score = 1 / (1 + exp(-(a + b log T)))``."""
    bracketed: bool
    """The 50% point lies inside the candidates' range (else the nearest end is chosen)."""
    samples: tuple[tuple[float, float], ...] = ()
    """Every game behind the fit: (Black's temperature, Black's score)."""

    def record(self) -> dict[str, Any]:
        """The ``tune`` record of the tuning."""
        return {
            "type": "tune", "upper": self.upper.to_json(), "chosen": self.chosen.to_json(),
            "temperatures": list(self.temperatures), "games": list(self.games),
            "scores": [round(s, 4) for s in self.scores], "a": self.a, "b": self.b,
            "bracketed": self.bracketed,
        }  # fmt: skip


def temperature_grid(centre: float, low: float, high: float, points: int) -> list[float]:
    """``points`` temperatures spaced evenly in ``log T`` from ``centre * low`` to ``centre
    * high`` (4 significant digits, clipped to [0.05, 100])."""
    grid = np.exp(np.linspace(math.log(centre * low), math.log(centre * high), points))
    return sorted({float(f"{min(max(t, 0.05), 100.0):.4g}") for t in grid})


def choose_temperature(
    temperatures: Sequence[float], results: Sequence[float], degree: int = 1
) -> tuple[float, float, float, bool]:
    """The temperature where the logistic fit of the ``results`` (Black's score in each game)
    on ``log`` of the games' ``temperatures`` crosses 50%: ``(T, a, b, bracketed)`` with the
    line's ``a + b log T``.  ``degree=2`` fits ``a + b x + c x^2`` (``x`` the centred ``log
    T``) instead and takes its falling crossing inside the range nearest to the line's: the
    score against ``log T`` is flat at low temperatures and falls steeply above, a bend that
    pulls the line's crossing low.  Without a crossing inside the range (or with a fit that
    does not fall with ``T``), the end of the range nearer to 50% is chosen."""
    x = np.log(np.asarray(temperatures, dtype=np.float64))
    a, b = fit_logistic(x, results)
    lo, hi = float(x.min()), float(x.max())
    if b < 0:
        crossing = -a / b
        if degree == 2:
            crossing = _quadratic_crossing(x, results, lo, hi, crossing)
        if lo <= crossing <= hi:
            return float(math.exp(crossing)), a, b, True
    at_lo = 1.0 / (1.0 + math.exp(-(a + b * lo)))
    at_hi = 1.0 / (1.0 + math.exp(-(a + b * hi)))
    end = lo if abs(at_lo - 0.5) < abs(at_hi - 0.5) else hi
    return float(math.exp(end)), a, b, False


def _quadratic_crossing(
    x: npt.NDArray[np.float64], results: Sequence[float], lo: float, hi: float, line: float
) -> float:
    """The falling crossing of 50% of the quadratic logistic fit on ``x`` inside [lo, hi]
    nearest to ``line`` (the linear fit's crossing, returned when there is none)."""
    centre = float(x.mean())
    c0, c1, c2 = fit_logistic_polynomial(x - centre, results, 2)
    roots = np.roots([c2, c1, c0]) if abs(c2) > 1e-12 else np.array([-c0 / c1])
    falling = [
        float(r.real) + centre
        for r in np.atleast_1d(roots)
        if abs(r.imag) < 1e-12 and c1 + 2 * c2 * r.real < 0 and lo <= r.real + centre <= hi
    ]
    return min(falling, key=lambda r: abs(r - line)) if falling else line


def tune_rung(
    runner: BatchedGames,
    upper: Rung,
    rank: str,
    temperatures: Sequence[float],
    games_per_temperature: int,
    seed: int,
    rung_index: int,
    on_outcome: Callable[[GameOutcome], None] | None = None,
    done: Sequence[Mapping[str, Any]] = (),
    degree: int = 1,
    stage: int = 0,
    earlier: Sequence[tuple[float, float]] = (),
) -> TuneResult:
    """The rung at rank input ``rank`` below ``upper``: each temperature of ``temperatures``
    plays ``games_per_temperature`` games as Black (komi 0.5) against ``upper`` (phase
    ``tune``, seeds from ``seed``, ``rung_index`` and the tuning ``stage``); the temperature
    where the logistic fit (of ``degree`` 1 or 2) of Black's score on ``log T`` crosses 50%
    (:func:`choose_temperature`), over these games and the ``earlier`` (temperature, score)
    pairs of the same rung.  ``done``: game records already played (a resumed run), not
    played again."""
    games = []
    for j, temp in enumerate(temperatures):
        black = Rung(rank, temp)
        for i in range(games_per_temperature):
            keys = (1, rung_index, j, i) if stage == 0 else (1, rung_index, j, i, stage)
            b_seed, w_seed = game_seeds(seed, *keys)
            games.append(LadderGame("tune", black, upper, b_seed, w_seed, i, {"rung": rung_index}))
    known = {
        (r["phase"], r["pair"], r["black_seed"], r["white_seed"]): r for r in game_records(done)
    }
    todo = [g for g in games if g.key not in known]
    played = {o.game.key: o.black_score for o in runner.play(todo, on_outcome)}
    temps_of_games = [t for t, _ in earlier]
    results = [r for _, r in earlier]
    for g in games:
        result = played.get(g.key)
        if result is None:
            result = float(known[g.key]["result"])
        temps_of_games.append(g.black.temperature)
        results.append(result)
    chosen, a, b, bracketed = choose_temperature(temps_of_games, results, degree)
    by_temp: dict[float, list[float]] = {}
    for t, r in zip(temps_of_games, results, strict=True):
        by_temp.setdefault(t, []).append(r)
    ordered = sorted(by_temp)
    return TuneResult(
        upper=upper,
        chosen=Rung(rank, chosen),
        temperatures=tuple(ordered),
        games=tuple(len(by_temp[t]) for t in ordered),
        scores=tuple(float(np.mean(by_temp[t])) for t in ordered),
        a=a,
        b=b,
        bracketed=bracketed,
        samples=tuple(zip(temps_of_games, results, strict=True)),
    )


def confirmation_games(
    rungs: Sequence[Rung], games_per_pair: int, seed: int, start: int = 0
) -> list[LadderGame]:
    """Fresh games (phase ``confirm``) of every adjacent pair: rung ``k+1`` Black against
    rung ``k``; game indexes ``start .. start + games_per_pair - 1`` (the pairs
    interleaved, so that a run stopped early has played every pair alike)."""
    games = []
    for i in range(start, start + games_per_pair):
        for k in range(len(rungs) - 1):
            b_seed, w_seed = game_seeds(seed, 2, k, i)
            games.append(
                LadderGame("confirm", rungs[k + 1], rungs[k], b_seed, w_seed, i, {"rung": k + 1})
            )
    return games


# ---- GNU Go anchors -----------------------------------------------------------------------
@dataclass(frozen=True)
class AnchorGame:
    """A game between a rung and GNU Go 3.8 (``gnugo --mode gtp --level L``) through the
    per-game players: ``handicap`` stones for Black (0: none) and ``komi``; the rung plays
    Black when ``rung_black``."""

    rung: Rung
    level: int
    rung_black: bool
    handicap: int = 0
    komi: float = 7.5
    seed: int = 0
    model: str = DEFAULT_MODEL
    max_ply: int | None = None
    """The game's ply cap (None: Go's 722)."""


__all__ = [
    "DEFAULT_MODEL",
    "LADDER_KOMI",
    "AnchorGame",
    "BatchedGames",
    "GameOutcome",
    "LadderGame",
    "LadderNetwork",
    "PairSummary",
    "Pending",
    "Rung",
    "TuneResult",
    "append_records",
    "choose_temperature",
    "confirmation_games",
    "fit_logistic",
    "fit_logistic_polynomial",
    "game_records",
    "game_seeds",
    "load_network",
    "moves_hash",
    "padded_batch",
    "pair_key",
    "pair_summaries",
    "read_records",
    "sgf_moves",
    "temperature_grid",
    "tune_rung",
    "wilson",
]
