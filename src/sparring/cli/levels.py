"""Commands about levels: ``levels`` (a game's measured levels) and ``levels-build`` (writes
the shipped level tables from the shipped calibration and scale files, with seconds a move
measured on the machine it runs on)."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from sparring.errors import BadValueError
from sparring.games import get_game
from sparring.levels import (
    ADAPTIVE_MODES,
    TABLE_GAMES,
    LevelRow,
    LevelTable,
    level_table,
    offered,
)

if TYPE_CHECKING:
    from sparring.players.external_scale import ExternalScale

console = Console()


def levels(
    game: Annotated[
        str, typer.Argument(help="A game (connect4, othello6, othello, go9, go, chess).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the table as Markdown (for docs).")
    ] = False,
) -> None:
    """The levels a game offers, each with what it was measured against, the games behind it
    and its seconds a move (the same table the page, the engines and ``play`` use)."""
    get_game(game)  # an unknown game is refused with the known names
    table = level_table(game)
    if as_json:
        typer.echo(json.dumps(table.to_json(), indent=2))
        return
    if markdown:
        typer.echo(markdown_table(table))
        return
    if table.kind == "none":
        console.print(f"{game}: no measured levels; it offers {offered(table)}")
        return
    console.print(f"[bold]{game}[/bold]: Elo on {table.scale_label()}")
    console.print(f"offered: {offered(table)}")
    out = Table("level", "Elo", "95%", "games", "s a move", "setting played")
    for row in (*table.rows, *table.ranks):
        out.add_row(*_cells(row))
    if table.strongest is not None:
        out.add_row(*_cells(table.strongest, "strongest"))
    console.print(out)
    if table.strongest is not None and table.strongest.note:
        console.print(f"strongest: {table.strongest.note}")
    if table.reference:
        console.print(table.reference)


def markdown_table(table: LevelTable) -> str:
    """``table`` as Markdown: what is offered, then one row per level (the docs' tables are
    this text, checked by a test)."""
    if table.kind == "none":
        return f"`{table.game}`: no measured levels; it offers {offered(table)}.\n"
    lines = [
        f"`{table.game}`: Elo on {table.scale_label()}; offered: {offered(table)}.",
        "",
        "| level | Elo | 95% | games | seconds a move | setting played |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    rows: list[tuple[LevelRow, str | None]] = [(r, None) for r in (*table.rows, *table.ranks)]
    if table.strongest is not None:
        rows.append((table.strongest, "strongest"))
    for row, name in rows:
        cells = list(_cells(row, name))
        cells[-1] = f"`{cells[-1]}`"
        lines.append("| " + " | ".join(cells) + " |")
    if table.strongest is not None and table.strongest.note:
        lines += ["", f"Strongest: {table.strongest.note}."]
    return "\n".join(lines) + "\n"


def _cells(row: LevelRow, name: str | None = None) -> tuple[str, ...]:
    elo = "-" if row.elo is None else f"{row.elo:.0f}"
    label = name or row.rank or elo
    pm = "-" if row.plus_minus is None else f"± {row.plus_minus:.0f}"
    games = "-" if row.games is None else str(row.games)
    seconds = "-" if row.seconds is None else f"{row.seconds:.2f}"
    return label, elo, pm, games, seconds, row.setting


# ---- building the tables ------------------------------------------------------------------------
SCALE_TEXT: dict[str, tuple[str, str]] = {
    "connect4": ("the Connect Four baseline ladder", "Random = 1000"),
    "othello6": ("the 6x6 Othello baseline ladder", "Random = 1000"),
    "othello": ("the 8x8 Othello baseline ladder", "Random = 1000"),
    "go9": ("GNU Go 3.8 on 9x9", "GNU Go level 1 = 1000, komi 7.5"),
    "go": ("GNU Go 3.8 on 19x19", "GNU Go level 1 = 1000, komi 7.5, area scoring"),
    "chess": (
        "Stockfish 15.1 UCI_Elo",
        "Stockfish at UCI_Elo 1350, 1600 and 2000 held fixed, 0.5 s a move",
    ),
}
"""Each game's scale: name and anchor."""

GO9_ROWS = (
    LevelRow(
        "az:model=go9,sims=800,finish=yes", 619.0, 253.0, 20,
        note="2 of 20 against GNU Go 3.8 level 1 (docs/results/go9-400-sims-gnugo1.md)",
    ),
    LevelRow(
        "az:model=go9,sims=3200,finish=yes", 1070.0, 155.0, 20,
        note="12 of 20 against GNU Go 3.8 level 1 (docs/results/go9-400-sims-gnugo1.md)",
    ),
)  # fmt: skip
"""The 9x9 network's measured simulation counts (the command is in the cited table)."""

STRONGEST: dict[str, LevelRow] = {
    "chess": LevelRow(
        "human-mcts:sf_nodes=10000,cpuct=0.25,sweep=true,sims=35", 2143.0, 116.0, 40,
        note="the Elo levels' top: 28 of 40 against Stockfish 15.1 at UCI_Elo 2000, no clock "
        "(seed 6421; two earlier runs of 40: 33 and 26.5; docs/research/external-strength.md, "
        "'Above 1,765')",
    ),
    "go": LevelRow(
        "human-mcts:model=go-play,rank=9d,sims=32", None, None, 40,
        note="22 of 40 against GNU Go 3.8 level 10, 1035 ± 108 with level 10 at "
        "1000 (docs/results/external/go-play-gpu2-9d-gnugo10.md); level 10's distance from "
        "level 1 on 19x19 was not measured",
    ),
}  # fmt: skip
"""The strongest measured setting of the games whose strongest is not a scale's end."""


FLOOR_UPDATE_ROUNDS = 10
"""A calibration point with fewer "games" than this comes from the floor updates, whose
count is of rounds of link games (the calibration's ``summary.floor_updates``)."""


def _calibration_table(game: str) -> LevelTable:
    from sparring.nn.zoo import default_model
    from sparring.strength.target import (
        calibration_path_for_model,
        load_calibration,
        strength_curve,
    )

    model = default_model(game)
    path = None if model is None else calibration_path_for_model(model)
    if path is None:
        raise BadValueError(f"{game} has no shipped calibration", key="game")
    calibration = load_calibration(path)
    curve = strength_curve(calibration)
    rows: dict[float, LevelRow] = {}
    for point in calibration.points:
        if point.setting.rth != curve.axis.rth:
            continue
        elo = round(curve.elo_of(point.setting), 1)
        if point.ladder_games is not None:
            games = point.ladder_games
            note = f"{point.label}: rated against the ladder alone, {games} games"
        elif point.games >= FLOOR_UPDATE_ROUNDS:
            games, note = point.games, point.label
        else:  # a floor update's point: its games count rounds of link games, not games
            rounds = "round" if point.games == 1 else "rounds"
            games, note = None, f"{point.label}: {point.games} {rounds} of floor-update games"
        pm = None if not (point.games or point.ladder_games) else round(1.96 * point.stderr, 1)
        rows.setdefault(elo, LevelRow(point.spec, elo, pm, games, note=note))
    ordered = tuple(rows[e] for e in sorted(rows))
    scale, anchor = SCALE_TEXT[game]
    return LevelTable(
        game, scale, anchor,
        f"{path.name}: the strength-adjusted search (sa:elo=E) calibrated on the baseline "
        f"ladder, {calibration.summary.get('games_per_point', '?')} games a point",
        "calibration", ordered,
        replace(ordered[-1], note="the calibration's strongest setting (plain search, z = +inf)"),
        adaptive=tuple(ADAPTIVE_MODES), default="default",
    )  # fmt: skip


def _scale_table(game: str) -> LevelTable:
    from sparring.players.external_scale import ExternalScale, default_scale

    path = default_scale(game)
    chain = ExternalScale.read(path)
    rows: list[LevelRow] = []
    for scale_file in chain.segments():
        rows += _segment_rows(scale_file, rows[-1].elo if rows else None)
    scale, anchor = SCALE_TEXT[game]
    segments = chain.segments()
    knobs = "" if len(segments) == 1 else f" ({' then '.join(s.knob for s in segments)})"
    strongest = STRONGEST[game]
    offset = segments[-1].offset  # the strongest is the top scale's setting or above it
    if offset and strongest.elo is not None:
        strongest = replace(
            strongest,
            elo=round(strongest.elo + offset, 1),
            note=f"{strongest.note}; {strongest.elo:.0f} before the scale's offset {offset:+.0f}",
        )
    return LevelTable(
        game, scale, anchor,
        f"{path.name}: {chain.scale}; Elo levels on its monotone fit{knobs}",
        "stockfish" if game == "chess" else "gnugo", tuple(rows), strongest,
        command=chain.command,
    )  # fmt: skip


def _segment_rows(scale_file: ExternalScale, below: float | None) -> list[LevelRow]:
    """The level rows of one scale of a chain: its points whose fitted Elo lies above
    ``below`` (the top of the scale under it), a flat run of the fit at its first value."""
    from sparring.players.external_scale import KNOBS, SCALE_KEYS

    search = ",".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}"
        for k, v in scale_file.search.items()
        if k in SCALE_KEYS and v not in (None, 0, False) and k != scale_file.knob
    )
    kind = KNOBS[scale_file.knob]
    rows: list[LevelRow] = []
    for point, fit in zip(scale_file.points, scale_file.fitted(), strict=True):
        last = rows[-1].elo if rows else below
        if last is not None and round(fit, 1) <= last:
            continue  # a flat run of the monotone fit is played at its first value
        value = f"{point.value:g}"
        setting = f"{kind}:{search},{scale_file.knob}={value}"
        note = f"{scale_file.knob} = {value}: measured {point.elo - scale_file.offset:.0f}"
        if scale_file.offset:
            note += f", {point.elo:.0f} with the scale's offset {scale_file.offset:+.0f}"
        rows.append(
            LevelRow(setting, round(fit, 1), round(point.plus_minus, 1), point.games, note=note)
        )
    return rows


RANK_LADDER = "go-rank-ladder.json"
"""The shipped Go 19x19 handicap ladder (package data; written by ``research/go_ladder.py
ship`` from a run whose every pair was level, docs/strength/go-ladder.md)."""


def rank_rows(path: Path) -> tuple[LevelRow, ...]:
    """The rank rows of a shipped handicap ladder, weakest first: each rung's setting, its
    confirmation against the rung above (Black at komi 0.5) and, for the top rung, its even
    games against GNU Go level 10 with the rank assumed for that level."""
    from sparring.players.registry import parse_player

    data = json.loads(path.read_text())
    if data.get("format") != "sparring-rank-ladder":
        raise BadValueError(f"{path.name} is not a rank ladder", key="ranks")
    rows = []
    for rung in data["rungs"]:
        if "against" in rung:
            low, high = rung["interval"]
            note = (
                f"Black at komi 0.5 against {rung['against']}: {rung['score']:.3f} "
                f"({low:.3f}-{high:.3f}), {rung['games']} games"
            )
            games = int(rung["games"])
        else:
            even = [
                a for a in data["anchors"]
                if a["level"] == 10 and a["handicap"] == 0 and a["rung"] == _rung_of(rung)
            ]  # fmt: skip
            won, games = sum(a["rung_score"] for a in even), sum(a["games"] for a in even)
            note = f"{data['top']}; {won:g} of {games} even games against GNU Go level 10"
        setting = parse_player(rung["setting"]).spec()  # the resolver's spelling
        rows.append(LevelRow(setting, None, None, games, rank=rung["rank"], note=note))
    return tuple(rows)


def _rung_of(rung: dict[str, Any]) -> dict[str, Any]:
    """The ``{"rank", "temp"}`` of a ladder row's ``human-mcts`` setting."""
    options = dict(kv.split("=", 1) for kv in rung["setting"].split(":", 1)[1].split(","))
    return {"rank": options["rank"], "temp": float(options["temp"])}


def build_table(game: str) -> LevelTable:
    """``game``'s level table from the shipped files (seconds a move not yet measured)."""
    if game in ("connect4", "othello6", "othello"):
        return _calibration_table(game)
    if game == "go":
        from sparring.nn.zoo import MODEL_DIR

        return replace(_scale_table(game), ranks=rank_rows(MODEL_DIR / RANK_LADDER))
    if game == "chess":
        return _scale_table(game)
    if game == "go9":
        scale, anchor = SCALE_TEXT[game]
        return LevelTable(
            game, scale, anchor,
            "the shipped 9x9 network by simulations, 20 games a point against GNU Go level 1",
            "rows", GO9_ROWS, GO9_ROWS[-1], default="default",
        )  # fmt: skip
    raise BadValueError(f"no level table is built for {game}", key="game")


def seconds_a_move(game_name: str, spec: str, moves: int, seed: int = 1) -> float:
    """The median seconds of ``moves`` moves of ``spec`` in ``game_name``, from positions
    reached by seeded random play (the one-off costs paid by a first move not counted)."""
    import numpy as np

    from sparring.players.registry import build_player, parse_player

    game = get_game(game_name)
    player = build_player(parse_player(spec), game, seed)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    player.select_move(game, state.copy(), None)  # compile, load, start helpers
    times = []
    for _ in range(moves):
        legal = game.legal_moves(state)
        began = time.perf_counter()
        player.select_move(game, state.copy(), None)
        times.append(time.perf_counter() - began)
        game.kernels.play(state, int(rng.choice(legal)))
        if game.is_terminal(state):
            state = game.initial_state()
    return round(statistics.median(times), 3)


def _measure(table: LevelTable, moves: int) -> LevelTable:
    """``table`` with each row's seconds a move (one measurement per distinct search: the
    rows of a calibration share theirs)."""
    cost: dict[str, float] = {}

    def key(row: LevelRow) -> str:
        if table.kind == "calibration" and row.setting.startswith("sa:"):
            return "sa"  # the same search at every (z, R_th, floor)
        if table.kind == "gnugo":
            return row.setting.split(",z=")[0]  # z chooses among the same search's moves
        return row.setting

    def timed(row: LevelRow) -> LevelRow:
        k = key(row)
        if k not in cost:
            console.print(f"timing {row.setting} ...")
            cost[k] = seconds_a_move(table.game, row.setting, moves)
        return replace(row, seconds=cost[k])

    strongest = None if table.strongest is None else timed(table.strongest)
    return replace(
        table,
        rows=tuple(timed(r) for r in table.rows),
        strongest=strongest,
        ranks=tuple(timed(r) for r in table.ranks),
    )


def levels_build(
    games: Annotated[
        list[str] | None, typer.Argument(help="Games (default: all with tables).")
    ] = None,
    out: Annotated[Path, typer.Option(help="The folder of the level tables.")] = Path(
        "src/sparring/models/levels"
    ),
    moves: Annotated[int, typer.Option(help="Moves timed per distinct setting (0: none).")] = 8,
) -> None:
    """Write the level tables (package data) from the shipped calibration and scale files,
    timing each distinct setting on the computer it runs on (for maintainers)."""
    if moves < 0:
        raise BadValueError("--moves must be >= 0", key="--moves")
    out.mkdir(parents=True, exist_ok=True)
    for game in games or list(TABLE_GAMES):
        table = build_table(game)
        if moves:
            table = _measure(table, moves)
        command = f"sparring levels-build {game} --moves {moves}"
        data = table.to_json()
        data["command"] = command
        if table.command:
            data["notes"] = [*data["notes"], f"the scale file's command: {table.command}"]
        data["reference"] = "seconds a move: median of timed moves on a 2-core CPU" if moves else ""
        (out / f"{game}.json").write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
        console.print(f"wrote {out / f'{game}.json'}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("levels")(levels)
    app.command("levels-build")(levels_build)


__all__ = [
    "build_table",
    "levels",
    "levels_build",
    "markdown_table",
    "register",
    "seconds_a_move",
]
