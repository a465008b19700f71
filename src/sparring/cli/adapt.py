"""The ``adapt`` command: the dynamic strength adjustment experiment (Wu et al. 2019, Tables
3-4 and Fig. 5; :mod:`sparring.experiments.adapt`).

Plays every adaptive player against every opponent as series of games (parallel, resumable
from the game store in the output directory), the opponents against the un-adapted baseline,
and writes ``report.md``, ``results.json``, ``adapt.png`` (DSA players) and ``traces.png``
(AlphaDDA players) into ``--out``.  The report's win / loss / draw tables (every adaptive
player against every opponent, overall and as first / second player, with D of Eq. 11 and
the balanced marks) are the AlphaDDA paper's Tables 5-13 analogue.
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
from sparring.errors import ConfigError
from sparring.evaluation.store import GameStore


def adapt(
    game: Annotated[str, typer.Argument(help="Game, e.g. connect4.")],
    adaptive: Annotated[
        list[str],
        typer.Argument(help="Adaptive player spec(s), e.g. dsa:mode=inter,model=connect4."),
    ],
    opponents: Annotated[
        list[str],
        typer.Option(
            "--opponents",
            "-o",
            help="Opponent specs separated by commas (a key=value piece continues the spec "
            "before it) or by ';'; may be repeated.",
        ),
    ],
    out: Annotated[Path, typer.Option(help="Output directory (report, JSON, plot, store).")],
    games: Annotated[int, typer.Option("--games", "-n", help="Games per series.")] = 100,
    repeats: Annotated[int, typer.Option(help="Series per adaptive player and opponent.")] = 5,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Worker processes.")] = 1,
    seed: Annotated[int, typer.Option(help="Base seed of every series and match.")] = 0,
    baseline: Annotated[
        str | None,
        typer.Option(
            help="The un-adapted player of the 'w/o DSA' row (default: the first adaptive "
            "spec's search as sa at z=0, rth=0.1)."
        ),
    ] = None,
    baseline_games: Annotated[
        int | None,
        typer.Option(help="Games of each baseline match (default: --games; 0: no baseline)."),
    ] = None,
    opponent_elos: Annotated[
        str | None,
        typer.Option(
            help="The opponents' ladder Elos: a ladder JSON (e.g. the shipped "
            "src/sparring/models/ladders/ladder-connect4.json), 'calibration' (SA opponents "
            "at a fixed z: the shipped calibration's Elo; or calibration=PATH) or numbers "
            "separated by commas; join sources with '+'."
        ),
    ] = None,
    within: Annotated[float, typer.Option(help="Elo distance of the games-until table.")] = 100.0,
    settle: Annotated[
        int, typer.Option(help="Games left out of the 'after the first games' averages.")
    ] = 10,
    separation_margin: Annotated[
        float, typer.Option(help="Smallest gap between mean z lines counted as separated.")
    ] = 0.0,
    trace_games: Annotated[
        int,
        typer.Option(
            help="Example games per AlphaDDA player and opponent in traces.png (0: none)."
        ),
    ] = 2,
    store: Annotated[
        Path | None, typer.Option(help="SQLite game store (default: OUT/games.sqlite).")
    ] = None,
    note: Annotated[
        str | None, typer.Option(help="A paragraph put first in the report (e.g. 'smoke run').")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """Play adaptive players against opponents in series of games and report how well they
    found and matched each opponent (Tables 3-4, Fig. 5 of Wu et al. 2019; Tables 5-13 and
    the appendix 6 figures of Fujita 2022)."""
    from sparring.experiments.adapt import (
        STORE_NAME,
        AdaptConfig,
        check_config,
        parse_elos,
        run_adapt,
        split_specs,
        write_report,
    )

    specs: list[str] = []
    for text in opponents:
        specs += split_specs(text)
    if not adaptive:
        raise ConfigError("give at least one adaptive spec")
    config = AdaptConfig(
        game=game,
        adaptive=tuple(adaptive),
        opponents=tuple(specs),
        games=games,
        repeats=repeats,
        seed=seed,
        workers=workers,
        baseline=baseline,
        baseline_games=baseline_games,
        opponent_elos=None if opponent_elos is None else parse_elos(opponent_elos, specs, game),
        within=within,
        settle=settle,
        separation_margin=separation_margin,
        trace_games=trace_games,
    )
    db_path = store or out / STORE_NAME
    command = "sparring " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    with exit_on_interrupt(db_path):
        check_config(config)
        check_output_dir(out, "--out")
        check_output_file(db_path, "--store")
        console = Console()
        with backend_from_options(backend, ray_address) as runner:
            db_path.parent.mkdir(parents=True, exist_ok=True)
            with GameStore(db_path) as db:
                result = run_adapt(config, db, progress=progress, console=console, backend=runner)
        paths = write_report(result, out, command, note)
        console.print(
            f"{result.stored} of {result.expected} games stored in {db_path} "
            f"({result.played} played now)"
        )
        for path in paths.values():
            console.print(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add the ``adapt`` command to ``app``."""
    app.command("adapt")(adapt)
