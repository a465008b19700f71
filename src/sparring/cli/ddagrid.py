"""The ``dda-grid`` command: AlphaDDA's grid search (Fujita 2022, appendix 2, Eq. 11;
:mod:`sparring.experiments.dda_grid`).

Plays every setting of the paper's grid (Tables A2-A4; keys overridable with ``--grid``)
against the opponents (parallel, resumable from the game store in the output directory), in
full or by successive halving (``--halving``), and writes ``report.md`` and ``results.json``
into ``--out`` (after every halving round, and at the end).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from sparring.cli.common import (
    BACKEND_HELP,
    RAY_ADDRESS_HELP,
    BackendName,
    backend_from_options,
    check_output_dir,
    check_output_file,
)
from sparring.cli.evaluation import exit_on_interrupt
from sparring.evaluation.store import GameStore


def dda_grid(
    game: Annotated[str, typer.Argument(help="Game, e.g. connect4.")],
    kind: Annotated[str, typer.Argument(help="Player kind, e.g. alphadda1.")],
    out: Annotated[Path, typer.Option(help="Output directory (report, JSON, store).")],
    grid: Annotated[
        list[str] | None,
        typer.Option(
            "--grid",
            help="KEY=V1,V2,... replacing (or adding) one key of the paper's grid; repeatable.",
        ),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option", help="KEY=VALUE added to every setting's spec (e.g. history=code)."
        ),
    ] = None,
    opponents: Annotated[
        str | None,
        typer.Option(
            "--opponents",
            "-o",
            help="Opponent specs separated by commas or ';' (default: az, mcts1, mcts2, "
            "minimax1, random).",
        ),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Games per opponent and setting (even).")
    ] = 40,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Worker processes.")] = 1,
    seed: Annotated[int, typer.Option(help="Base seed of every series.")] = 0,
    halving: Annotated[bool, typer.Option(help="Successive halving instead of the full grid.")] = (
        False
    ),
    first_games: Annotated[
        int, typer.Option(help="Halving: games per opponent in round 1 (even).")
    ] = 4,
    keep: Annotated[float, typer.Option(help="Halving: fraction of settings kept per round.")] = (
        0.5
    ),
    final: Annotated[int, typer.Option(help="Halving: settings kept at least.")] = 3,
    plan: Annotated[
        bool, typer.Option(help="Print the settings and the most games the run plays; no play.")
    ] = False,
    store: Annotated[
        Path | None, typer.Option(help="SQLite game store (default: OUT/games.sqlite).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """Grid search of an AlphaDDA kind's parameters by the metric D (Fujita 2022, appendix 2,
    Eq. 11), in full or by successive halving."""
    from sparring.experiments.adapt import split_specs
    from sparring.experiments.dda_grid import (
        PAPER_OPPONENTS,
        STORE_NAME,
        DDAGridConfig,
        parse_grid_option,
        parse_option,
        run_grid,
        survivor_count,
        write_report,
    )

    config = DDAGridConfig(
        game=game,
        kind=kind.strip().lower(),
        grid=tuple(parse_grid_option(text) for text in grid or ()),
        options=tuple(parse_option(text) for text in option or ()),
        opponents=PAPER_OPPONENTS if opponents is None else split_specs(opponents),
        games=games,
        seed=seed,
        workers=workers,
        halving=halving,
        first_games=first_games,
        keep=keep,
        final=final,
    )
    console = Console()
    if plan:
        settings = config.settings()
        n = len(settings)
        total, previous = 0, 0
        for number, g in enumerate(config.schedule()):
            total += n * (g - previous) * len(config.opponents)
            console.print(f"round {number + 1}: {n} settings, {g} games per opponent")
            previous = g
            n = survivor_count(n, config.keep, config.final)
        console.print(f"{len(settings)} settings, e.g. {settings[0].spec}; {total} games at most")
        return
    db_path = store or out / STORE_NAME
    check_output_dir(out, "--out")
    check_output_file(db_path, "--store")
    command = "sparring " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    with exit_on_interrupt(db_path):
        with backend_from_options(backend, ray_address) as runner:
            db_path.parent.mkdir(parents=True, exist_ok=True)
            with GameStore(db_path) as db:
                result = run_grid(
                    config,
                    db,
                    progress=progress,
                    console=console,
                    on_round=lambda partial: write_report(partial, out, command),
                    backend=runner,
                )
        paths = write_report(result, out, command)
        best = result.best
        console.print(
            f"best: {best.setting.spec}  D = {best.d} over {best.games} games per opponent; "
            f"{result.played} games played now"
        )
        for path in paths.values():
            console.print(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add the ``dda-grid`` command to ``app``."""
    app.command("dda-grid")(dda_grid)
