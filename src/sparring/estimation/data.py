"""State-action pairs with rank labels for the strength estimator (Chen, Shih & Wu, ICLR 2025).

The data sets (``shared/data/strength``, read in place, never copied):

* **Go** (Fox server, 11 rank groups, strongest first as in the paper's section 4.1:
  ``9d, 8d, ..., 1d, 1-2k, 3-5k`` are ``r_1 .. r_11``): ``testing_by_player/`` (about 1,950
  games per group, about 100 players with 10 or more games each) is split **by player** into
  training and validation; ``candidating/`` (100 games per group) is the reference set whose
  per-rank mean strength score predicts ranks (section 4.2) and is never trained on.
* **Chess** (Lichess blitz, 8 Elo bands, ``2400-2600`` ... ``1000-1200`` as ``r_1 .. r_8``):
  ``training/`` (800 games per band) is split into training and held-out validation games
  the same way; ``candidating/`` (120 per band) is the reference set.

The split (:func:`split_by_player`)
-----------------------------------
Each game has a *focus player*: of its two players, the one with more games in that rank's
file (the folder is built around about 100 such players per rank).  A seeded
``val_fraction`` of each rank's focus players is held out; their games are the validation
games, every player of a validation game is a *validation player*, and a training game is one
whose moves are trained on only for its players who are not validation players (a game
against a validation player keeps only the other side's moves; games of two validation
players that are not validation games are dropped and counted).  So no player name has
pairs in both the training and the validation set, in any rank file.  In chess almost every
player has one game, so this is a split by game.

Pairs (section 3.1)
-------------------
A *state-action pair* is the position before a move (the game's input planes,
:meth:`~sparring.games.base.Game.replay_planes`), the move played, the game result from the
mover's view (+1 win, -1 loss, 0 draw or no result: the value target) and the rank label.
``train_positions_per_side`` / ``eval_positions_per_side`` positions are drawn per player and
game (0 = every move).  For each pair ``random_actions`` uniformly random **legal** moves of
the same position are drawn too: they are the pairs of SE-inf's extra rank ``r_inf``
(section 3.2), which are made on the fly from them.

Storage
-------
Input planes are binary except a few that are constant over the board (side to move, the
ones plane, chess castling rights, clock and repetition planes), so a :class:`PlaneCodec`
stores the binary planes bit-packed and the constant ones as one number each: 587 bytes per
Go pair instead of 21,660.  Each (split, rank) is one compressed ``.npz`` shard under
``cache_dir/GAME-KEY/`` (KEY hashes every setting that changes the data and the source
files' sizes), written atomically: an interrupted build resumes with the missing shards.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from sparring.errors import ConfigError, IncompatibleError, MissingResourceError, SparringError
from sparring.games.base import Game
from sparring.games.chess import Chess, action_to_move, board_of, move_to_action
from sparring.games.go import Go
from sparring.nn.estimators import CHESS_RANKS, GO_RANKS
from sparring.records import ChessRecord, GoRecord, RecordError, read_pgn_games, read_sgf_games

CACHE_VERSION = 2
"""Bumped whenever the shard layout or the extraction changes."""

EXTRA_SOURCES: tuple[str, ...] = ("lichess2017",)
"""Names :attr:`DataConfig.extra_games` accepts (empty: none; see
:mod:`sparring.estimation.extra`)."""


def check_extra_source(name: str) -> str:
    """``name`` if it is in :data:`EXTRA_SOURCES`, else ConfigError (key ``extra_games``)."""
    if name not in EXTRA_SOURCES:
        raise ConfigError(
            f"unknown extra_games {name!r}; known: {', '.join(EXTRA_SOURCES)}", "extra_games"
        )
    return name


INF_RANK = "r_inf"
"""The name of SE-inf's extra, weakest rank of uniformly random legal moves (section 3.2)."""

SPLITS = ("train", "val", "cand")
"""``train`` and ``val``: the player-disjoint split of the training folder; ``cand``: the
candidate (reference) set."""

Record = GoRecord | ChessRecord


# ---- where the data is -----------------------------------------------------------------------
def default_data_root() -> Path | None:
    """``$SPARRING_DATA``, else ``shared/data`` beside the repository or the working folder."""
    env = os.environ.get("SPARRING_DATA")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[3]
    for candidate in (repo / ".." / "shared" / "data", Path.cwd() / ".." / "shared" / "data"):
        if (candidate / "strength").is_dir():
            return candidate.resolve()
    return None


@dataclass(frozen=True)
class DataSpec:
    """Where one game's strength data lives and how its ranks are named."""

    game: str
    """``go`` or ``chess``."""
    ranks: tuple[str, ...]
    """Rank names, strongest first; the file stem of each rank in both folders."""
    train_dir: Path
    """Folder split into training and validation games."""
    cand_dir: Path
    """The candidate (reference) folder."""
    suffix: str
    """``.sgf`` or ``.pgn``."""

    def file(self, split: str, rank: int) -> Path:
        """The record file of ``rank`` for a split (``train``/``val`` share one file)."""
        folder = self.cand_dir if split == "cand" else self.train_dir
        return folder / f"{self.ranks[rank]}{self.suffix}"


def ranks_for(game: str) -> tuple[str, ...]:
    """The rank names of ``game`` (``go`` or ``chess``), strongest first."""
    if game == "go":
        return GO_RANKS
    if game == "chess":
        return CHESS_RANKS
    raise ConfigError(f"strength estimation supports go and chess, not {game!r}")


def dataset_spec(game: str, data_root: Path | None = None) -> DataSpec:
    """The :class:`DataSpec` of ``game`` under ``data_root`` (default: :func:`default_data_root`).

    Raises :class:`~sparring.errors.MissingResourceError` when the folders are missing.
    """
    ranks = ranks_for(game)
    root = data_root if data_root is not None else default_data_root()
    if root is None:
        raise MissingResourceError(
            "strength data not found: set SPARRING_DATA or put it at ../shared/data"
        )
    base = Path(root) / "strength" / game
    train = base / ("testing_by_player" if game == "go" else "training")
    spec = DataSpec(game, ranks, train, base / "candidating", ".sgf" if game == "go" else ".pgn")
    for split in ("train", "cand"):
        for r in range(len(ranks)):
            if not spec.file(split, r).is_file():
                raise MissingResourceError(
                    f"strength data file {str(spec.file(split, r))!r} is missing"
                )
    return spec


# ---- records ---------------------------------------------------------------------------------
def read_records(
    path: Path, game: str, limit: int = 0, errors: list[RecordError] | None = None
) -> list[Record]:
    """The records of one SGF/PGN file (the first ``limit`` when > 0); broken ones are
    reported into ``errors`` and skipped."""
    errs: list[RecordError] = [] if errors is None else errors
    it: Iterator[Record] = (
        read_sgf_games(path, errors=errs) if game == "go" else read_pgn_games(path, errors=errs)
    )
    if limit > 0:
        it = itertools.islice(it, limit)
    return list(it)


def record_players(record: Record) -> tuple[str, str]:
    """The names of player 0 and player 1 (Go: Black, White; chess: White, Black)."""
    if isinstance(record, GoRecord):
        return record.black_name, record.white_name
    return record.white_name, record.black_name


def record_game(record: Record) -> Go | Chess:
    """The game a record is played in (19x19 Go or chess)."""
    if isinstance(record, GoRecord):
        if record.size != 19:
            raise IncompatibleError(
                f"{record.path}:{record.line}: board size {record.size}; only 19x19 is supported"
            )
        return Go(19)
    return Chess()


# ---- plane codec -----------------------------------------------------------------------------
@dataclass(frozen=True)
class PlaneCodec:
    """Stores input planes as packed bits (binary planes) plus one number per constant plane."""

    num_planes: int
    board_shape: tuple[int, int]
    const_planes: tuple[int, ...]
    """Planes that hold one value over the whole board (stored as a number)."""

    @property
    def binary_planes(self) -> tuple[int, ...]:
        """The planes holding only 0 and 1 (stored bit-packed)."""
        return tuple(p for p in range(self.num_planes) if p not in self.const_planes)

    @property
    def packed_bytes(self) -> int:
        """Bytes per position of the packed binary planes."""
        rows, cols = self.board_shape
        return (len(self.binary_planes) * rows * cols + 7) // 8

    def encode(
        self, planes: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
        """``planes [n, P, H, W]`` -> (bits ``uint8 [n, packed_bytes]``, consts ``[n, C]``).

        Raises ValueError if a binary plane holds other values or a constant plane varies.
        """
        n = planes.shape[0]
        binary = planes[:, list(self.binary_planes)]
        if not np.all((binary == 0) | (binary == 1)):
            raise ValueError("plane codec: a binary plane holds values other than 0 and 1")
        const = planes[:, list(self.const_planes)].reshape(n, len(self.const_planes), -1)
        if const.size and not np.all(const == const[:, :, :1]):
            raise ValueError("plane codec: a constant plane varies over the board")
        bits = np.packbits(binary.reshape(n, -1).astype(np.uint8), axis=1)
        return bits, const[:, :, 0].astype(np.float32) if const.size else np.zeros(
            (n, 0), np.float32
        )

    def decode(
        self, bits: npt.NDArray[np.uint8], consts: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """The float32 planes ``[n, P, H, W]`` of :meth:`encode`'s output."""
        n = bits.shape[0]
        rows, cols = self.board_shape
        nb = len(self.binary_planes)
        flat = np.unpackbits(bits, axis=1, count=nb * rows * cols)
        out = np.empty((n, self.num_planes, rows, cols), dtype=np.float32)
        out[:, list(self.binary_planes)] = flat.reshape(n, nb, rows, cols)
        for k, p in enumerate(self.const_planes):
            out[:, p] = consts[:, k, None, None]
        return out


GO_CODEC = PlaneCodec(15, (19, 19), (2, 14))
"""Go planes (:mod:`sparring.games.go`): side to move and the ones plane are constant."""
CHESS_CODEC = PlaneCodec(23, (8, 8), (2, 15, 16, 17, 18, 20, 21, 22))
"""Chess planes (:mod:`sparring.games.chess`): side to move, castling rights, the halfmove
clock and the repetition planes are constant over the board."""


def codec_for(game: str) -> PlaneCodec:
    """The :class:`PlaneCodec` of ``go`` or ``chess``."""
    ranks_for(game)
    return GO_CODEC if game == "go" else CHESS_CODEC


# ---- the split -------------------------------------------------------------------------------
@dataclass
class Split:
    """Game indices per rank of the training and validation sets, and what was done."""

    train: list[npt.NDArray[np.int64]]
    train_sides: list[npt.NDArray[np.int8]]
    """Per training game, the sides trained on: bit 0 player 0, bit 1 player 1 (a training
    game against a validation player keeps only the other player's moves)."""
    val: list[npt.NDArray[np.int64]]
    rows: list[dict[str, Any]]
    """Per rank: games, focus players, held-out focus players, validation, training (and
    of those, one-sided) and dropped games."""
    train_players: set[str]
    val_players: set[str]

    def summary(self) -> dict[str, Any]:
        """A JSON-friendly report of the split."""
        return {
            "ranks": self.rows,
            "train_players": len(self.train_players),
            "val_players": len(self.val_players),
            "players_in_both": len(self.train_players & self.val_players),
        }


def _name(name: str, rank: int, game: int, side: int) -> str:
    """A player's identity: the name, or a unique placeholder for an empty name."""
    return name.strip() or f"?{rank}:{game}:{side}"


def split_by_player(
    players: Sequence[Sequence[tuple[str, str]]], val_fraction: float, seed: int
) -> Split:
    """Split each rank's games (given by their two player names) by player.

    See the module docstring: a seeded ``val_fraction`` of each rank's *focus players* is
    held out; validation games are theirs; the training pairs are the moves of the other
    players in the remaining games.
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ConfigError(f"val_fraction must be in [0, 1), got {val_fraction}")
    names = [
        [(_name(a, r, g, 0), _name(b, r, g, 1)) for g, (a, b) in enumerate(games)]
        for r, games in enumerate(players)
    ]
    val_games: list[npt.NDArray[np.int64]] = []
    focus_counts: list[tuple[int, int]] = []
    for r, games in enumerate(names):
        counts: dict[str, int] = {}
        for a, b in games:
            counts[a] = counts.get(a, 0) + 1
            counts[b] = counts.get(b, 0) + 1
        focus = [a if counts[a] >= counts[b] else b for a, b in games]
        unique = sorted(set(focus))
        rng = np.random.default_rng([seed, r, 7919])
        k = math.ceil(val_fraction * len(unique)) if val_fraction > 0 else 0
        held = {unique[i] for i in rng.permutation(len(unique))[:k]}
        val_games.append(np.array([g for g, f in enumerate(focus) if f in held], dtype=np.int64))
        focus_counts.append((len(unique), len(held)))
    val_players = {p for r, idx in enumerate(val_games) for g in idx for p in names[r][g]}
    train: list[npt.NDArray[np.int64]] = []
    train_sides: list[npt.NDArray[np.int8]] = []
    rows: list[dict[str, Any]] = []
    train_players: set[str] = set()
    for r, games in enumerate(names):
        in_val = set(val_games[r].tolist())
        keep: list[int] = []
        sides: list[int] = []
        for g, pair in enumerate(games):
            if g in in_val:
                continue
            mask = sum(1 << k for k in (0, 1) if pair[k] not in val_players)
            if mask:
                keep.append(g)
                sides.append(mask)
                train_players.update(pair[k] for k in (0, 1) if mask >> k & 1)
        train.append(np.array(keep, dtype=np.int64))
        train_sides.append(np.array(sides, dtype=np.int8))
        one_side = sum(1 for m in sides if m != 3)
        rows.append(
            {
                "rank": r,
                "games": len(games),
                "focus_players": focus_counts[r][0],
                "val_focus_players": focus_counts[r][1],
                "val_games": len(in_val),
                "train_games": len(keep),
                "train_games_one_side": one_side,
                "dropped_games": len(games) - len(keep) - len(in_val),
            }
        )
    return Split(train, train_sides, val_games, rows, train_players, val_players)


# ---- extraction ------------------------------------------------------------------------------
@dataclass(frozen=True)
class DataConfig:
    """Every setting that changes the extracted pairs (hashed into the cache key)."""

    game: str
    data_root: str = ""
    """Folder holding ``strength/``; empty: :func:`default_data_root`."""
    cache_dir: str = "runs/se-cache"
    """Where shards are written (outside the repository's tracked files)."""
    val_fraction: float = 0.15
    """Share of each rank's focus players held out for validation."""
    max_records_per_rank: int = 0
    """Read only the first this many records of each rank file (0: all; for tests)."""
    max_train_games_per_rank: int = 0
    """Training games drawn per rank (0: all)."""
    max_val_games_per_rank: int = 0
    """Validation games drawn per rank (0: all)."""
    max_cand_games_per_rank: int = 0
    """Candidate games used per rank (0: all)."""
    train_positions_per_side: int = 0
    """Positions drawn per player and training game (0: every move)."""
    eval_positions_per_side: int = 0
    """Positions drawn per player and validation/candidate game (0: every move)."""
    random_actions: int = 4
    """Uniformly random legal moves stored per pair (the ``r_inf`` pairs of SE-inf)."""
    seed: int = 0
    extra_games: str = ""
    """Chess only: more training games from another source (``lichess2017``; built by
    :func:`sparring.estimation.extra.build_with_extra`), stored beside the main shards with
    their own manifest (so not part of the key); empty: none."""

    def __post_init__(self) -> None:
        if self.extra_games:
            check_extra_source(self.extra_games)
        if self.extra_games and self.game != "chess":
            raise ConfigError("extra_games is for chess only", "extra_games")

    def key(self, spec: DataSpec) -> str:
        """A short hash of these settings (but ``extra_games``) and of the source files'
        sizes."""
        fields = dataclasses.asdict(self)
        fields.pop("cache_dir")
        fields.pop("extra_games")
        fields["data_root"] = str(spec.train_dir.parent.resolve())
        sizes = [
            spec.file(s, r).stat().st_size
            for s in ("train", "cand")
            for r in range(len(spec.ranks))
        ]
        blob = json.dumps({"v": CACHE_VERSION, "cfg": fields, "sizes": sizes}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


def _legal_go(game: Game, states: npt.NDArray[np.uint64]) -> list[npt.NDArray[np.int64]]:
    out = np.empty(game.num_actions, dtype=np.int64)
    legal = []
    for s in states:
        n = game.kernels.legal_moves(s, out)
        legal.append(out[:n].copy())
    return legal


def _legal_chess(
    record: ChessRecord, game: Game, at: npt.NDArray[np.int64]
) -> list[npt.NDArray[np.int64]]:
    board = board_of(record.initial_state(game))  # type: ignore[arg-type]
    wanted = set(at.tolist())
    found: dict[int, npt.NDArray[np.int64]] = {}
    for i, a in enumerate(record.moves):
        if i in wanted:
            found[i] = np.array([move_to_action(m) for m in board.legal_moves], dtype=np.int64)
        if i >= at[-1]:
            break
        board.push(action_to_move(int(a)))
    return [found[int(i)] for i in at]


def extract_game(
    record: Record,
    game: Go | Chess,
    codec: PlaneCodec,
    positions_per_side: int,
    random_actions: int,
    rng: np.random.Generator,
    sides: Sequence[int] = (0, 1),
) -> dict[str, npt.NDArray[Any]]:
    """The pairs of one game's chosen sides (players 0/1): packed planes, moves, value
    targets, move numbers, the mover, and ``random_actions`` random legal moves each."""
    initial = record.initial_state(game)  # type: ignore[arg-type]
    moves = np.asarray(record.moves, dtype=np.int64)
    first = game.to_move(initial)
    movers = (first + np.arange(moves.size)) % 2
    chosen: list[npt.NDArray[np.int64]] = []
    for side in sides:
        idx = np.flatnonzero(movers == side)
        if 0 < positions_per_side < idx.size:
            idx = np.sort(rng.choice(idx, positions_per_side, replace=False))
        chosen.append(idx)
    at = np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, np.int64)
    if at.size == 0:
        return {}
    last = int(at[-1]) + 1
    planes = game.replay_planes(moves[:last], initial)[at]
    bits, consts = codec.encode(planes)
    if isinstance(record, GoRecord):
        states = game.replay_states(moves[:last], initial)
        legal = _legal_go(game, states[at])
    else:
        legal = _legal_chess(record, game, at)
    rand = np.stack([leg[rng.integers(0, leg.size, random_actions)] for leg in legal])
    winner = record.winner
    mover = movers[at]
    value = np.zeros(at.size, dtype=np.int8)
    if winner is not None:
        value = np.where(mover == winner, 1, -1).astype(np.int8)
    return {
        "bits": bits,
        "consts": consts,
        "action": moves[at].astype(np.int32),
        "value": value,
        "move_number": at.astype(np.int16),
        "side": mover.astype(np.int8),
        "random_actions": rand.astype(np.int32),
    }


def atomic_savez(path: Path, arrays: dict[str, npt.NDArray[Any]]) -> None:
    """Write ``arrays`` as a compressed ``.npz`` at ``path`` atomically (a temporary file
    in the same folder, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp.npz")
    os.close(fd)
    try:
        np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def build_shard(
    records: Sequence[Record],
    game_indices: npt.NDArray[np.int64],
    rank: int,
    game: Go | Chess,
    codec: PlaneCodec,
    positions_per_side: int,
    random_actions: int,
    seed: int,
    split: str,
    advance: Callable[[int], None] | None = None,
    side_masks: npt.NDArray[np.int8] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """The arrays of one (split, rank) shard from the records at ``game_indices``.

    A *unit* is one player's moves in one game (the pairs of a side); ``unit`` maps each pair
    to its unit, and ``unit_game``, ``unit_side``, ``unit_player`` and ``unit_moves`` (moves
    that player made in the game) describe the units.
    """
    parts: list[dict[str, npt.NDArray[Any]]] = []
    unit_game: list[int] = []
    unit_side: list[int] = []
    unit_player: list[str] = []
    unit_moves: list[int] = []
    sources: list[str] = []
    split_id = SPLITS.index(split)
    for k, g in enumerate(game_indices.tolist()):
        record = records[g]
        rng = np.random.default_rng([seed, split_id, rank, g])
        mask = 3 if side_masks is None else int(side_masks[k])
        sides = [side for side in (0, 1) if mask >> side & 1]
        arrays = extract_game(record, game, codec, positions_per_side, random_actions, rng, sides)
        sources.append(f"{record.path}:{record.line}")
        if arrays:
            names = record_players(record)
            units = {}
            for side in (0, 1):
                if np.any(arrays["side"] == side):
                    units[side] = len(unit_game)
                    unit_game.append(k)
                    unit_side.append(side)
                    unit_player.append(_name(names[side], rank, g, side))
                    first = game.to_move(record.initial_state(game))
                    n_moves = record.moves.size
                    unit_moves.append((n_moves - ((side - first) % 2) + 1) // 2)
            arrays["unit"] = np.array([units[int(s)] for s in arrays["side"]], dtype=np.int32)
            parts.append(arrays)
        if advance is not None:
            advance(1)
    keys = ("bits", "consts", "action", "value", "move_number", "side", "random_actions", "unit")
    if parts:
        out = {key: np.concatenate([p[key] for p in parts]) for key in keys}
    else:
        out = {
            "bits": np.zeros((0, codec.packed_bytes), np.uint8),
            "consts": np.zeros((0, len(codec.const_planes)), np.float32),
            "action": np.zeros(0, np.int32),
            "value": np.zeros(0, np.int8),
            "move_number": np.zeros(0, np.int16),
            "side": np.zeros(0, np.int8),
            "random_actions": np.zeros((0, random_actions), np.int32),
            "unit": np.zeros(0, np.int32),
        }
    out["unit_game"] = np.array(unit_game, dtype=np.int32)
    out["unit_side"] = np.array(unit_side, dtype=np.int8)
    out["unit_player"] = np.array(unit_player, dtype=str)
    out["unit_moves"] = np.array(unit_moves, dtype=np.int32)
    out["game_source"] = np.array(sources, dtype=str)
    return out


@dataclass(frozen=True)
class _ShardJob:
    """One shard for a worker process of :func:`build_dataset`: the records it takes (the
    indices chosen in the parent, where the split is made) and where it goes."""

    config: DataConfig
    split: str
    rank: int
    games: npt.NDArray[np.int64]
    side_masks: npt.NDArray[np.int8] | None
    path: Path

    def run(self) -> int:
        """Read the rank's file, extract the shard, write it; the number of games."""
        c = self.config
        spec = dataset_spec(c.game, Path(c.data_root) if c.data_root else None)
        records = read_records(
            spec.file("cand" if self.split == "cand" else "train", self.rank),
            c.game,
            c.max_records_per_rank,
        )
        arrays = build_shard(
            records,
            self.games,
            self.rank,
            record_game(records[0]),
            codec_for(c.game),
            c.eval_positions_per_side if self.split != "train" else c.train_positions_per_side,
            c.random_actions,
            c.seed,
            self.split,
            side_masks=self.side_masks,
        )
        atomic_savez(self.path, arrays)
        return int(self.games.size)


def _run_shard_job(job: _ShardJob) -> int:
    return job.run()


def _extract_in_workers(
    jobs: Sequence[_ShardJob], workers: int, advance: Callable[[int], None]
) -> None:
    """Run ``jobs`` in ``workers`` spawned processes, largest first; ``advance`` by each
    finished shard's games."""
    ordered = sorted(jobs, key=lambda j: -int(j.games.size))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for future in as_completed([pool.submit(_run_shard_job, job) for job in ordered]):
            advance(future.result())


def _subsample(
    idx: npt.NDArray[np.int64], limit: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    if 0 < limit < idx.size:
        return np.sort(rng.choice(idx, limit, replace=False))
    return idx


def cache_path(config: DataConfig, spec: DataSpec) -> Path:
    """The folder of this configuration's shards."""
    return Path(config.cache_dir) / f"{config.game}-{config.key(spec)}"


def build_dataset(config: DataConfig, show_progress: bool = True, workers: int = 1) -> Path:
    """Extract (or finish extracting) every shard of ``config``; return the cache folder.

    Shards already written are kept, so a killed build resumes where it stopped.  The
    folder's ``manifest.json`` holds the configuration, rank names, the split report and
    the records that were refused.  ``workers`` > 1 extracts that many shards at once in
    worker processes (each re-reads its rank's file); the shards are the same as with one.
    ``extra_games`` is not read here: :func:`sparring.estimation.extra.build_with_extra`
    builds this and the extra source's shards.
    """
    if workers < 1:
        raise ConfigError(f"workers must be >= 1, not {workers}", "workers")
    spec = dataset_spec(config.game, Path(config.data_root) if config.data_root else None)
    codec = codec_for(config.game)
    folder = cache_path(config, spec)
    manifest = folder / "manifest.json"
    n = len(spec.ranks)
    shards = {(s, r): folder / f"{s}-{r:02d}.npz" for s in SPLITS for r in range(n)}
    if manifest.exists() and all(p.exists() for p in shards.values()):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        disable=not show_progress,
    )
    errors: list[RecordError] = []
    with progress:
        read = progress.add_task(f"reading {config.game} records", total=2 * n)
        train_records: list[list[Record]] = []
        cand_records: list[list[Record]] = []
        for r in range(n):
            train_records.append(
                read_records(
                    spec.file("train", r), config.game, config.max_records_per_rank, errors
                )
            )
            progress.advance(read)
            cand_records.append(
                read_records(spec.file("cand", r), config.game, config.max_records_per_rank, errors)
            )
            progress.advance(read)
        split = split_by_player(
            [[record_players(rec) for rec in recs] for recs in train_records],
            config.val_fraction,
            config.seed,
        )
        chosen: dict[tuple[str, int], npt.NDArray[np.int64]] = {}
        for r in range(n):
            rng = np.random.default_rng([config.seed, r, 104729])
            chosen["train", r] = _subsample(split.train[r], config.max_train_games_per_rank, rng)
            chosen["val", r] = _subsample(split.val[r], config.max_val_games_per_rank, rng)
            chosen["cand", r] = _subsample(
                np.arange(len(cand_records[r]), dtype=np.int64), config.max_cand_games_per_rank, rng
            )
        todo = [key for key, path in shards.items() if not path.exists()]
        total = sum(chosen[key].size for key in todo)
        task = progress.add_task(f"extracting {config.game} pairs", total=total)
        game = record_game(train_records[0][0] if train_records[0] else cand_records[0][0])

        def sides(s: str, r: int) -> npt.NDArray[np.int8] | None:
            """Which sides of each chosen training game may be trained on (None: both)."""
            if s != "train":
                return None
            return split.train_sides[r][np.searchsorted(split.train[r], chosen[s, r])]

        if workers > 1 and len(todo) > 1:
            jobs = [
                _ShardJob(config, s, r, chosen[s, r], sides(s, r), shards[s, r]) for s, r in todo
            ]
            todo = []  # the workers write them
            _extract_in_workers(jobs, workers, lambda k: progress.advance(task, k))
        for s, r in todo:
            progress.update(task, description=f"extracting {s} {spec.ranks[r]}")
            arrays = build_shard(
                cand_records[r] if s == "cand" else train_records[r],
                chosen[s, r],
                r,
                game,
                codec,
                config.eval_positions_per_side if s != "train" else config.train_positions_per_side,
                config.random_actions,
                config.seed,
                s,
                advance=lambda k: progress.advance(task, k),
                side_masks=sides(s, r),
            )
            atomic_savez(shards[s, r], arrays)
    info = {
        "version": CACHE_VERSION,
        "config": dataclasses.asdict(config),
        "game": config.game,
        "ranks": list(spec.ranks),
        "split": split.summary(),
        "games": {f"{s}-{r:02d}": int(chosen[s, r].size) for s, r in shards},
        "refused_records": [str(e) for e in errors],
    }
    tmp = manifest.with_name("manifest.json.tmp")
    tmp.write_text(json.dumps(info, indent=2))
    os.replace(tmp, manifest)
    return folder


# ---- loading ---------------------------------------------------------------------------------
@dataclass
class PairSet:
    """The pairs of one split, all ranks concatenated (see :func:`build_shard` for units)."""

    game: str
    ranks: tuple[str, ...]
    bits: npt.NDArray[np.uint8]
    consts: npt.NDArray[np.float32]
    action: npt.NDArray[np.int32]
    value: npt.NDArray[np.int8]
    move_number: npt.NDArray[np.int16]
    random_actions: npt.NDArray[np.int32]
    rank: npt.NDArray[np.int8]
    """Rank index of each pair (0 = strongest)."""
    unit: npt.NDArray[np.int32]
    """Global unit index of each pair."""
    unit_rank: npt.NDArray[np.int8]
    unit_game: npt.NDArray[np.int32]
    """Global game index of each unit (both sides of a game share it)."""
    unit_side: npt.NDArray[np.int8]
    unit_player: npt.NDArray[np.str_]
    unit_moves: npt.NDArray[np.int32]
    game_source: npt.NDArray[np.str_]

    def __len__(self) -> int:
        return int(self.action.size)

    def by_rank(self) -> list[npt.NDArray[np.int64]]:
        """Pair indices of each rank."""
        return [np.flatnonzero(self.rank == r) for r in range(len(self.ranks))]

    def subset_per_unit(self, limit: int, seed: int = 0) -> PairSet:
        """At most ``limit`` pairs of every unit, drawn at random (all when ``limit`` is 0);
        units keep their numbering."""
        if limit <= 0:
            return self
        rng = np.random.default_rng([seed, 2718])
        order = rng.permutation(len(self))
        order = order[np.argsort(self.unit[order], kind="stable")]
        units = self.unit[order]
        first = np.searchsorted(units, units, side="left")
        return self.take(np.sort(order[np.arange(order.size) - first < limit]))

    def sample_per_rank(self, limit: int, seed: int = 0) -> PairSet:
        """At most ``limit`` pairs of every rank, drawn at random (all when ``limit`` is 0)."""
        if limit <= 0:
            return self
        rng = np.random.default_rng([seed, 1414])
        picks = [rng.permutation(idx)[:limit] for idx in self.by_rank()]
        return self.take(np.sort(np.concatenate(picks)))

    def take(self, keep: npt.NDArray[np.integer[Any]]) -> PairSet:
        """The pairs at ``keep`` (sorted indices); units keep their numbering."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name in ("bits", "consts", "action", "value", "move_number", "random_actions"):
            fields[name] = fields[name][keep]
        fields["rank"] = self.rank[keep]
        fields["unit"] = self.unit[keep]
        return PairSet(**fields)

    def planes(self, idx: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.float32]:
        """Decoded input planes of the pairs at ``idx``."""
        return codec_for(self.game).decode(self.bits[idx], self.consts[idx])


def load_split(folder: Path, split: str) -> PairSet:
    """Read every rank's shard of ``split`` from a cache folder written by
    :func:`build_dataset`."""
    info = json.loads((folder / "manifest.json").read_text())
    ranks = tuple(info["ranks"])
    parts: dict[str, list[npt.NDArray[Any]]] = {}
    unit_offset = 0
    game_offset = 0
    for r in range(len(ranks)):
        with np.load(folder / f"{split}-{r:02d}.npz") as z:
            a = {k: z[k] for k in z.files}
        n_pairs = a["action"].size
        a["rank"] = np.full(n_pairs, r, dtype=np.int8)
        a["unit"] = a["unit"] + unit_offset
        a["unit_rank"] = np.full(a["unit_game"].size, r, dtype=np.int8)
        a["unit_game"] = a["unit_game"] + game_offset
        unit_offset += a["unit_game"].size
        game_offset += a["game_source"].size
        for k, v in a.items():
            parts.setdefault(k, []).append(v)
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    cat.pop("side")
    return PairSet(game=info["game"], ranks=ranks, **cat)


def concat_pairs(first: PairSet, second: PairSet) -> PairSet:
    """The pairs of both sets (same game and ranks), ``second``'s units and games numbered
    after ``first``'s."""
    if first.game != second.game or first.ranks != second.ranks:
        raise IncompatibleError("concat_pairs: the two pair sets are of different games or ranks")
    fields: dict[str, Any] = {"game": first.game, "ranks": first.ranks}
    for f in dataclasses.fields(PairSet):
        if f.name in fields:
            continue
        b = getattr(second, f.name)
        if f.name == "unit":
            b = b + first.unit_game.size
        elif f.name == "unit_game":
            b = b + first.game_source.size
        fields[f.name] = np.concatenate([getattr(first, f.name), b])
    return PairSet(**fields)


@dataclass(frozen=True)
class FolderMakeup:
    """What one rank's games in one data folder are made of, from their headers: a check that
    the reference folder (``candidating``) and the training/held-out folder hold alike games."""

    rank: str
    folder: str
    """``candidating`` or the training folder's name."""
    games: int
    years: dict[str, int]
    """Games per year (Go ``DT``, chess ``UTCDate``/``Date``; ``?`` when absent)."""
    time_controls: dict[str, int]
    """Games per time control (Go ``TM`` main time in seconds, chess ``TimeControl``)."""
    handicap_games: int
    """Go games with ``HA`` >= 1 (chess: 0)."""
    median_moves: float
    mean_elo: float | None
    """Chess: the mean of both players' ratings; Go: None."""


def folder_makeup(
    game: str, data_root: Path | None = None, only: Sequence[str] = ()
) -> list[FolderMakeup]:
    """:class:`FolderMakeup` of every rank (strongest first; those named in ``only`` when
    given) in both folders of ``game``, candidate folder first; unreadable records are
    skipped as everywhere else."""
    spec = dataset_spec(game, data_root)
    unknown = set(only) - set(spec.ranks)
    if unknown:
        raise SparringError(f"unknown {game} rank(s) {sorted(unknown)}; ranks: {spec.ranks}")
    rows = []
    for r, rank in enumerate(spec.ranks):
        if only and rank not in only:
            continue
        for split in ("cand", "train"):
            path = spec.file(split, r)
            years: dict[str, int] = {}
            controls: dict[str, int] = {}
            handicap = 0
            moves: list[int] = []
            elos: list[int] = []
            for record in read_records(path, game):
                if isinstance(record, GoRecord):
                    date, control = record.properties.get("DT", ""), record.properties.get("TM")
                    handicap += record.handicap >= 1
                else:
                    h = record.headers
                    date, control = h.get("UTCDate") or h.get("Date", ""), h.get("TimeControl")
                    elos += [e for e in (record.white_elo, record.black_elo) if e is not None]
                year = date[:4] if date[:4].isdigit() else "?"
                years[year] = years.get(year, 0) + 1
                key = control or "?"
                controls[key] = controls.get(key, 0) + 1
                moves.append(int(record.moves.size))
            rows.append(
                FolderMakeup(
                    rank=rank,
                    folder=path.parent.name,
                    games=len(moves),
                    years=dict(sorted(years.items())),
                    time_controls=dict(sorted(controls.items(), key=lambda kv: -kv[1])),
                    handicap_games=handicap,
                    median_moves=float(np.median(moves)) if moves else float("nan"),
                    mean_elo=float(np.mean(elos)) if elos else None,
                )
            )
    return rows


def manifest(folder: Path) -> dict[str, Any]:
    """The ``manifest.json`` of a cache folder."""
    data: dict[str, Any] = json.loads((folder / "manifest.json").read_text())
    return data


FOLDER_FREE_FIELDS = ("data_root", "cache_dir", "extra_games")
""":class:`DataConfig` fields that a copied cache folder need not match: where the sources and
the cache lie, and the extra source (checked by its own shards)."""


def check_cache_folder(folder: Path, config: DataConfig, also: tuple[str, ...] = ()) -> Path:
    """``folder`` if it is a complete cache folder of ``config`` (copied, say, to a machine
    without the source games), else ConfigError naming what is missing or differs.

    Every setting that changes the pairs must equal the folder's manifest, but for
    :data:`FOLDER_FREE_FIELDS`, and every rank's shard of the three splits and of the shard
    prefixes in ``also`` (an extra source's, say) must be there.  Nothing is read from the
    source files, so the folder's key is not recomputed.
    """
    folder = Path(folder)
    if not (folder / "manifest.json").is_file():
        raise ConfigError(f"{folder}: not a strength-estimation cache folder (no manifest.json)")
    info = manifest(folder)
    wanted = {k: v for k, v in dataclasses.asdict(config).items() if k not in FOLDER_FREE_FIELDS}
    stored = {k: v for k, v in info.get("config", {}).items() if k not in FOLDER_FREE_FIELDS}
    differ = sorted(k for k in wanted.keys() | stored.keys() if wanted.get(k) != stored.get(k))
    if differ:
        said = ", ".join(f"{k}: config {wanted.get(k)!r}, folder {stored.get(k)!r}" for k in differ)
        raise ConfigError(f"{folder}: cache of other data settings ({said})")
    n = len(info["ranks"])
    missing = [
        f"{p}-{r:02d}.npz"
        for p in (*SPLITS, *also)
        for r in range(n)
        if not (folder / f"{p}-{r:02d}.npz").is_file()
    ]
    if missing:
        raise ConfigError(f"{folder}: incomplete cache folder, missing {', '.join(missing)}")
    return folder


__all__ = [
    "CHESS_CODEC",
    "CHESS_RANKS",
    "GO_CODEC",
    "GO_RANKS",
    "INF_RANK",
    "DataConfig",
    "DataSpec",
    "FolderMakeup",
    "PairSet",
    "PlaneCodec",
    "Split",
    "build_dataset",
    "build_shard",
    "cache_path",
    "check_cache_folder",
    "check_extra_source",
    "codec_for",
    "dataset_spec",
    "default_data_root",
    "extract_game",
    "folder_makeup",
    "load_split",
    "manifest",
    "ranks_for",
    "read_records",
    "record_game",
    "record_players",
    "split_by_player",
]
