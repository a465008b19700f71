"""Extra chess training games for the play network: the Lichess 2017 CSV.

The Lichess training folder (``strength/chess/training``, 800 games a band) gives the chess
play network about 392 k training pairs, and its held-out losses show it overfitting them
(docs/research/strength-estimation.md, "Play networks").
``strength/chess/lichess2017/games.csv`` holds
about 20,000 more Lichess games (CC0; ratings 784-2723, mixed time controls, moves as
space-separated SAN).  With ``extra_games = "lichess2017"`` (:class:`DataConfig`) their moves
are added to the **training** pairs only; the held-out (``val``) and reference (``cand``)
pairs, and so every reported accuracy, are those of the 2024 folders as before.

Which moves are used (:func:`read_lichess_csv`, :func:`side_bands`)
-------------------------------------------------------------------
* rated games only (``rated`` is ``TRUE`` or ``True``); a game id seen before is a duplicate
  and skipped (the file has 945 repeated ids);
* each side separately: its moves are labelled with the band of **its own** rating (the 2024
  games pair players of one band; here the two sides may differ), and are dropped when the
  rating is the provisional 1500, or outside the bands' 1000-2599;
* a side whose player name (Lichess names are case-insensitive) appears anywhere in the
  2024 folders (training, held-out or reference games) is dropped, so no held-out or
  reference player is trained on under an older game;
* a game whose move text does not replay (an illegal or unreadable SAN), or goes on after
  the rules have ended it (fivefold repetition, the 75-move rule, insufficient material:
  :mod:`sparring.games.chess` ends games there, Lichess did not always), is refused and
  reported, never raised.

The value target is the game's result from the mover's view (``winner`` is ``white``,
``black`` or ``draw``), as for the 2024 games.  The shards are ``extra-lichess2017-RR.npz``
in the main data folder (read with ``load_split(folder, "extra-lichess2017")``); the file's
size is in their manifest, and a changed file is extracted again.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np
import numpy.typing as npt
from rich.progress import Progress

from sparring.errors import MissingResourceError
from sparring.estimation.data import (
    CHESS_CODEC,
    DataConfig,
    atomic_savez,
    build_dataset,
    build_shard,
    check_extra_source,
    dataset_spec,
    read_records,
    record_players,
)
from sparring.games.chess import Chess, move_to_action
from sparring.records import ChessRecord, RecordError

BAND_LOW = 1000
BAND_WIDTH = 200
BANDS = 8
PROVISIONAL = 1500
"""Lichess's starting rating: a side rated exactly this is not labelled (README)."""


def extra_split(name: str) -> str:
    """The shard prefix of an extra source (``extra-lichess2017``); ConfigError for a name
    not in :data:`~sparring.estimation.data.EXTRA_SOURCES`."""
    return f"extra-{check_extra_source(name)}"


def source_path(name: str, data_root: Path) -> Path:
    """The file of an extra source under the data root; MissingResourceError when absent."""
    extra_split(name)
    path = data_root / "strength" / "chess" / "lichess2017" / "games.csv"
    if not path.is_file():
        raise MissingResourceError(f"extra games file {str(path)!r} is missing")
    return path


def band_of(rating: int) -> int | None:
    """The rank index (0 = 2400-2599 ... 7 = 1000-1199) of a rating, or None outside
    1000-2599 and for the provisional 1500.

    >>> band_of(1000), band_of(1199), band_of(2599), band_of(999), band_of(1500)
    (7, 7, 0, None, None)
    """
    if rating == PROVISIONAL:
        return None
    k = (rating - BAND_LOW) // BAND_WIDTH
    if not 0 <= k < BANDS:
        return None
    return BANDS - 1 - k


def read_lichess_csv(
    path: Path, errors: list[RecordError] | None = None
) -> list[tuple[ChessRecord, int, int]]:
    """The rated, first-seen games of the CSV as (record, white rating, black rating).

    Records carry the CSV's path and line, the players' ids as names and the result; a row
    whose moves do not replay is reported into ``errors`` and skipped.
    """
    errs: list[RecordError] = [] if errors is None else errors
    out: list[tuple[ChessRecord, int, int]] = []
    seen: set[str] = set()
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            line = reader.line_num
            if row.get("rated", "").lower() != "true" or row["id"] in seen:
                continue
            seen.add(row["id"])
            board = chess.Board()
            actions: list[int] = []
            try:
                for ply, san in enumerate(row["moves"].split()):
                    over = board.outcome(claim_draw=False)
                    if over is not None:
                        raise ValueError(
                            f"the game is over by the rules ({over.termination.name.lower()}) "
                            f"before ply {ply + 1}, {san}"
                        )
                    move = board.parse_san(san)
                    actions.append(move_to_action(move))
                    board.push(move)
                white, black = int(row["white_rating"]), int(row["black_rating"])
            except ValueError as exc:
                errs.append(RecordError(str(path), line, f"refused: {exc}"))
                continue
            winner = {"white": 0, "black": 1}.get(row["winner"])
            result = {"white": "1-0", "black": "0-1", "draw": "1/2-1/2"}.get(row["winner"], "*")
            record = ChessRecord(
                path=str(path),
                line=line,
                white_name=row["white_id"],
                black_name=row["black_id"],
                white_elo=white,
                black_elo=black,
                result=result,
                winner=winner,
                moves=np.asarray(actions, dtype=np.int64),
                headers={"Site": row["id"], "TimeControl": row["increment_code"]},
            )
            out.append((record, white, black))
    return out


def side_bands(
    games: Sequence[tuple[ChessRecord, int, int]], exclude: set[str]
) -> tuple[list[npt.NDArray[np.int64]], list[npt.NDArray[np.int8]], dict[str, int]]:
    """Per rank: the indices of the games with a side in that band, the side masks (bit 0
    White, bit 1 Black) of those sides, and counts of the sides dropped and why (a side
    that made no move is dropped too).

    ``exclude`` holds lower-cased player names that must not be trained on.
    """
    picked: list[list[int]] = [[] for _ in range(BANDS)]
    masks: list[list[int]] = [[] for _ in range(BANDS)]
    counts = {
        "sides": 0,
        "kept": 0,
        "no_moves": 0,
        "provisional": 0,
        "out_of_bands": 0,
        "excluded_name": 0,
    }
    for g, (record, white, black) in enumerate(games):
        by_rank: dict[int, int] = {}
        for side, (name, rating) in enumerate(
            ((record.white_name, white), (record.black_name, black))
        ):
            counts["sides"] += 1
            if not record.moves.size > side:
                counts["no_moves"] += 1
                continue
            if name.strip().lower() in exclude:
                counts["excluded_name"] += 1
                continue
            rank = band_of(rating)
            if rank is None:
                counts["provisional" if rating == PROVISIONAL else "out_of_bands"] += 1
                continue
            by_rank[rank] = by_rank.get(rank, 0) | (1 << side)
            counts["kept"] += 1
        for rank, mask in sorted(by_rank.items()):
            picked[rank].append(g)
            masks[rank].append(mask)
    return (
        [np.array(p, dtype=np.int64) for p in picked],
        [np.array(m, dtype=np.int8) for m in masks],
        counts,
    )


def build_extra(
    name: str,
    data_root: Path,
    folder: Path,
    exclude: Callable[[], set[str]],
    seed: int,
    random_actions: int,
    show_progress: bool = True,
) -> None:
    """Write the shards of an extra source into ``folder`` (the main data folder), resuming
    with the missing ones; its manifest ``extra-NAME.json`` records the counts.

    ``exclude`` gives the lower-cased names not to train on; it is called only when
    something is to be extracted."""
    prefix = extra_split(name)
    path = source_path(name, data_root)
    manifest = folder / f"{prefix}.json"
    size = path.stat().st_size
    shards = [folder / f"{prefix}-{r:02d}.npz" for r in range(BANDS)]
    if manifest.exists():
        old = json.loads(manifest.read_text())
        if old.get("source_size") == size and all(p.exists() for p in shards):
            return
        if old.get("source_size") != size:
            for p in shards:
                p.unlink(missing_ok=True)
    errors: list[RecordError] = []
    games = read_lichess_csv(path, errors)
    picked, masks, counts = side_bands(games, exclude())
    records = [g[0] for g in games]
    game = Chess()
    with Progress(disable=not show_progress) as progress:
        task = progress.add_task(f"extracting {prefix}", total=sum(p.size for p in picked))
        for r in range(BANDS):
            if shards[r].exists():
                progress.advance(task, int(picked[r].size))
                continue
            arrays = build_shard(
                records,
                picked[r],
                r,
                game,
                CHESS_CODEC,
                0,
                random_actions,
                seed,
                "train",
                advance=lambda k: progress.advance(task, k),
                side_masks=masks[r],
            )
            atomic_savez(shards[r], arrays)
    info: dict[str, Any] = {
        "source": str(path),
        "source_size": size,
        "rated_unique_games": len(games),
        "sides": counts,
        "games_per_rank": [int(p.size) for p in picked],
        "refused_records": [str(e) for e in errors],
    }
    tmp = manifest.with_name(manifest.name + ".tmp")
    tmp.write_text(json.dumps(info, indent=2))
    os.replace(tmp, manifest)


def build_with_extra(config: DataConfig, show_progress: bool = True, workers: int = 1) -> Path:
    """:func:`~sparring.estimation.data.build_dataset`, then (with ``extra_games``) the
    extra source's training shards in the same folder, leaving out every player named in
    the main folders; returns the folder."""
    folder = build_dataset(config, show_progress=show_progress, workers=workers)
    if not config.extra_games:  # DataConfig checked the name and the game
        return folder
    spec = dataset_spec(config.game, Path(config.data_root) if config.data_root else None)

    def exclude() -> set[str]:
        """Every player named in the main folders, lower-cased."""
        return {
            name.strip().lower()
            for split in ("train", "cand")
            for r in range(len(spec.ranks))
            for record in read_records(spec.file(split, r), config.game)
            for name in record_players(record)
        }

    build_extra(
        config.extra_games,
        spec.train_dir.parents[2],
        folder,
        exclude,
        config.seed,
        config.random_actions,
        show_progress,
    )
    return folder
