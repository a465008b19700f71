"""Commands that evaluate players: ``match`` and ``tournament``.

Both play their games (resumably) into a SQLite game store, then print the win/loss/draw
table (AlphaDDA Tables 5-13 views) and the Elo tables: maximum likelihood with confidence
intervals, and the AlphaDDA appendix 5 K=8 ratings (Eq. 16-17).  Bad input raises
:class:`~sparring.errors.SparringError`, which the ``sparring`` entry point prints as one line.
Ctrl-C stops them with exit code 130 and one line saying how many games are stored (a re-run
of the same command resumes), not a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from sparring.cli.common import (
    BACKEND_HELP,
    RAY_ADDRESS_HELP,
    BackendName,
    backend_from_options,
    check_output_file,
)
from sparring.errors import ConfigError, is_interrupt
from sparring.evaluation.ladder import write_ladder
from sparring.evaluation.match import (
    MatchConfig,
    RunInterrupted,
    RunResult,
    TournamentConfig,
    player_labels,
    run_match,
    run_tournament,
)
from sparring.evaluation.ratings import (
    Anchor,
    GameResults,
    default_anchor,
    fit_elo,
    incremental_elo,
)
from sparring.evaluation.report import (
    elo_rich_table,
    pair_stats,
    plot_elo,
    report_markdown,
    wld_rich_table,
)
from sparring.evaluation.store import GameStore
from sparring.games import get_game

if TYPE_CHECKING:
    from sparring.evaluation.rungs import RungResult
    from sparring.strength.target import Calibration

DEFAULT_STORE = Path("sparring-games.sqlite")
"""Game store used when ``--store`` is not given (in the working directory)."""

_GAMES_HELP = "Games to play"
_WORKERS_HELP = "Worker processes (1: play in this process)."
_SEED_HELP = "Base seed; every game's seed is derived from it and the game's index."
_STORE_HELP = "SQLite game store; a re-run with the same players and seed resumes there."
_PLOT_HELP = "Save a PNG plot of the Elo ratings with their confidence intervals."
_MARKDOWN_HELP = "Write the Elo and win/loss/draw tables to this markdown file."
_JSON_HELP = "Write the maximum-likelihood ratings to this JSON file (a ladder for other runs)."
_ANCHOR_HELP = "Fix one player's Elo, e.g. Random=1000 (default: Random=1000, else first=1500)."
_FMA_HELP = "Also fit a first-move advantage in the maximum-likelihood Elo."
_PASSES_HELP = "Passes of the K=8 Elo update over the games (AlphaDDA appendix 5)."
_PROGRESS_HELP = "Show a progress bar."


EXIT_INTERRUPTED = 130
"""Exit code after Ctrl-C (128 + SIGINT, as shells report it)."""


@contextmanager
def exit_on_interrupt(store: Path) -> Iterator[None]:
    """Turn Ctrl-C (also when numba reports it as a ``SystemError``) into one line on standard
    error and exit code 130; a :class:`RunInterrupted` says how many games are stored."""
    try:
        yield
    except BaseException as error:
        if not is_interrupt(error):
            raise
        if isinstance(error, RunInterrupted):
            line = (
                f"interrupted: {error.stored} games of this run are stored in {store} "
                f"({error.played} played now); re-run the same command to resume"
            )
        else:
            line = "interrupted"
        typer.echo(line, err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _check_outputs(
    store: Path, plot: Path | None, markdown: Path | None, json_path: Path | None
) -> None:
    """Every output path can be written (checked before any game is played); the default
    store is named, since it is made in the current folder."""
    check_output_file(store, "--store")
    if store == DEFAULT_STORE:
        typer.echo(
            f"games are stored in {store.resolve()} (--store PATH for another file); a re-run "
            "with the same players and seed resumes there",
            err=True,
        )
    check_output_file(plot, "--plot")
    check_output_file(markdown, "--markdown")
    check_output_file(json_path, "--json")


def _check_inputs(
    game_name: str, specs: list[str], anchor_text: str | None, k8_passes: int
) -> Anchor | None:
    """Validate the game, all specs, the anchor and the K=8 passes before any game is played."""
    if k8_passes < 1:
        raise ConfigError(f"--k8-passes must be >= 1, not {k8_passes}", "--k8-passes")
    labels = player_labels(get_game(game_name), specs)
    if anchor_text is None:
        return None
    anchor = Anchor.parse(anchor_text)
    anchor.index_in(labels)
    return anchor


def _report(
    console: Console,
    result: RunResult,
    *,
    title: str,
    anchor: Anchor | None,
    first_move_advantage: bool,
    passes: int,
    plot: Path | None,
    markdown: Path | None,
    json_path: Path | None = None,
) -> None:
    """Print the tables of a finished (or partly finished) run, and write plot/markdown/JSON."""
    records = result.records
    console.print(
        f"{title}: {len(records)} of {result.expected} games stored "
        f"({result.played} played now, {result.skipped} already stored); run {result.run_key}"
    )
    if not records:
        return
    console.print(wld_rich_table(pair_stats(records), title=f"{title}: win/loss/draw rates"))
    results = GameResults.from_records(records, names=result.labels)
    fit = fit_elo(
        results,
        anchor=anchor or default_anchor(result.labels),
        first_move_advantage=first_move_advantage,
    )
    k8 = dict(zip(results.names, incremental_elo(results, passes=passes).tolist(), strict=True))
    console.print(elo_rich_table(fit, k8, title=f"{title}: Elo ratings"))
    if plot is not None:
        console.print(f"plot saved to {plot_elo(fit, plot, k8=k8, title=title)}")
    if markdown is not None:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(report_markdown(title, records, fit, k8))
        console.print(f"markdown saved to {markdown}")
    if json_path is not None:
        write_ladder(json_path, result.game, result.labels, result.specs, fit)
        console.print(f"ratings saved to {json_path}")


def match(
    game: Annotated[str, typer.Argument(help="Game, e.g. connect4.")],
    spec_a: Annotated[str, typer.Argument(help="Player spec of A (first in even games).")],
    spec_b: Annotated[str, typer.Argument(help="Player spec of B (first in odd games).")],
    games: Annotated[int, typer.Option("--games", "-n", help=_GAMES_HELP + ".")] = 100,
    workers: Annotated[int, typer.Option("--workers", "-w", help=_WORKERS_HELP)] = 1,
    seed: Annotated[int, typer.Option(help=_SEED_HELP)] = 0,
    store: Annotated[Path, typer.Option(help=_STORE_HELP)] = DEFAULT_STORE,
    plot: Annotated[Path | None, typer.Option(help=_PLOT_HELP)] = None,
    markdown: Annotated[Path | None, typer.Option(help=_MARKDOWN_HELP)] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help=_JSON_HELP)] = None,
    anchor: Annotated[str | None, typer.Option(help=_ANCHOR_HELP)] = None,
    first_move_advantage: Annotated[bool, typer.Option(help=_FMA_HELP)] = False,
    k8_passes: Annotated[int, typer.Option(help=_PASSES_HELP)] = 1,
    progress: Annotated[bool, typer.Option(help=_PROGRESS_HELP)] = True,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """Play GAMES games between two players, alternating who moves first, and rate them."""
    config = MatchConfig(
        game=game, spec_a=spec_a, spec_b=spec_b, games=games, seed=seed, workers=workers
    )
    with exit_on_interrupt(store):
        parsed_anchor = _check_inputs(game, [spec_a, spec_b], anchor, k8_passes)
        _check_outputs(store, plot, markdown, json_path)
        console = Console()
        with backend_from_options(backend, ray_address) as runner, GameStore(store) as db:
            result = run_match(config, db, progress=progress, console=console, backend=runner)
        _report(
            console,
            result,
            title=f"{result.game}: {result.labels[0]} vs {result.labels[1]}",
            anchor=parsed_anchor,
            first_move_advantage=first_move_advantage,
            passes=k8_passes,
            plot=plot,
            markdown=markdown,
            json_path=json_path,
        )


def tournament(
    game: Annotated[str, typer.Argument(help="Game, e.g. connect4.")],
    specs: Annotated[list[str], typer.Argument(help="Player specs (at least two).")],
    games_per_pair: Annotated[
        int, typer.Option("--games-per-pair", "-n", help=_GAMES_HELP + " per pair of players.")
    ] = 50,
    workers: Annotated[int, typer.Option("--workers", "-w", help=_WORKERS_HELP)] = 1,
    seed: Annotated[int, typer.Option(help=_SEED_HELP)] = 0,
    store: Annotated[Path, typer.Option(help=_STORE_HELP)] = DEFAULT_STORE,
    plot: Annotated[Path | None, typer.Option(help=_PLOT_HELP)] = None,
    markdown: Annotated[Path | None, typer.Option(help=_MARKDOWN_HELP)] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help=_JSON_HELP)] = None,
    anchor: Annotated[str | None, typer.Option(help=_ANCHOR_HELP)] = None,
    first_move_advantage: Annotated[bool, typer.Option(help=_FMA_HELP)] = False,
    k8_passes: Annotated[int, typer.Option(help=_PASSES_HELP)] = 1,
    progress: Annotated[bool, typer.Option(help=_PROGRESS_HELP)] = True,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """Play a round robin between the players, N games per pair, and rate them."""
    config = TournamentConfig(
        game=game,
        specs=tuple(specs),
        games_per_pair=games_per_pair,
        seed=seed,
        workers=workers,
    )
    with exit_on_interrupt(store):
        parsed_anchor = _check_inputs(game, list(config.specs), anchor, k8_passes)
        _check_outputs(store, plot, markdown, json_path)
        console = Console()
        with backend_from_options(backend, ray_address) as runner, GameStore(store) as db:
            result = run_tournament(config, db, progress=progress, console=console, backend=runner)
        _report(
            console,
            result,
            title=f"{result.game} tournament",
            anchor=parsed_anchor,
            first_move_advantage=first_move_advantage,
            passes=k8_passes,
            plot=plot,
            markdown=markdown,
            json_path=json_path,
        )


def register(app: typer.Typer) -> None:
    """Add the ``match`` and ``tournament`` commands to ``app``."""
    app.command("match")(match)
    app.command("study")(study)
    app.command("oracle")(oracle)
    app.command("tournament")(tournament)
    app.command("ladder-extend")(ladder_extend)


def ladder_extend(
    ladder: Annotated[Path, typer.Argument(help="Ladder file (sparring tournament --json).")],
    specs: Annotated[list[str], typer.Argument(help="Player specs to add as rungs.")],
    out: Annotated[Path, typer.Option(help="Where to write the extended ladder.")],
    games: Annotated[
        int, typer.Option("--games", "-n", help="Games against each ladder player.")
    ] = 100,
    workers: Annotated[int, typer.Option("--workers", "-w", help=_WORKERS_HELP)] = 1,
    seed: Annotated[int, typer.Option(help=_SEED_HELP)] = 0,
    store: Annotated[Path, typer.Option(help=_STORE_HELP)] = DEFAULT_STORE,
    markdown: Annotated[Path | None, typer.Option(help="Write the table to this file.")] = None,
    against: Annotated[
        str | None,
        typer.Option(
            help="Play only these ladder players (names or specs, comma-separated; "
            "default: every player)."
        ),
    ] = None,
    into: Annotated[
        Path | None,
        typer.Option(
            help="A calibration file (sparring calibrate) whose points of the same settings "
            "take these ratings, the baseline's included; the players must be sa players of "
            "its search. Written in place."
        ),
    ] = None,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """Add rungs to a ladder: rate new players against it, its ratings held fixed."""
    from sparring.evaluation.ladder import read_ladder, save_ladder
    from sparring.evaluation.rungs import rate_rungs, rungs_markdown

    the_ladder = read_ladder(ladder)
    _check_outputs(store, None, markdown, None)
    check_output_file(out, "--out")
    opponents = (
        None if against is None else tuple(a.strip() for a in against.split(",") if a.strip())
    )
    calibration = None if into is None else _checked_into(into, specs)
    console = Console()
    with backend_from_options(backend, ray_address) as runner, GameStore(store) as db:
        results = rate_rungs(
            the_ladder, specs, db, games, seed, workers, console, against=opponents, backend=runner
        )
    text = rungs_markdown(the_ladder, results, games, opponents)
    console.print(text)
    extended = the_ladder.with_players([r.player for r in results])
    save_ladder(out, extended)
    console.print(f"extended ladder saved to {out}")
    if into is not None and calibration is not None:
        _rate_into(into, calibration, results, ladder, games, seed, opponents)
        console.print(f"ratings put into {into}")
    if markdown is not None:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(text)


def _checked_into(path: Path, specs: list[str]) -> Calibration:
    """The calibration at ``--into``; fails before any game when it is not one of these
    players' search."""
    from sparring.experiments.calibration_rerate import setting_of
    from sparring.strength.target import load_calibration

    try:
        calibration = load_calibration(path)
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"--into {path}: not a readable calibration file ({exc})") from None
    for spec in specs:
        setting_of(spec, calibration)
    return calibration


def _rate_into(
    path: Path,
    calibration: Calibration,
    players: list[RungResult],
    ladder: Path,
    games: int,
    seed: int,
    against: tuple[str, ...] | None,
) -> None:
    """Put ``players``' ratings into the calibration at ``path`` (``ladder-extend --into``)."""
    from sparring.experiments.calibration_rerate import rerate
    from sparring.strength.target import save_calibration

    record: dict[str, object] = {"ladder": ladder.name, "games": games, "seed": seed}
    if against is not None:
        record["against"] = list(against)
    save_calibration(rerate(calibration, players, record), path)


def study(
    game: Annotated[str, typer.Argument(help="Game, e.g. connect4.")],
    parameter: Annotated[str, typer.Argument(help="sims, cpuct or dropout.")],
    values: Annotated[list[float], typer.Argument(help="Values of the parameter.")],
    ladder: Annotated[Path, typer.Option(help="Ladder file (sparring tournament --json).")],
    model: Annotated[str | None, typer.Option(help="Network name or file.")] = None,
    opponents: Annotated[
        str, typer.Option(help="Comma-separated ladder player specs.")
    ] = "mcts1,mcts2,minimax1,random",
    games: Annotated[int, typer.Option("--games", "-n", help="Games per opponent per value.")] = 50,
    simulations: Annotated[int | None, typer.Option(help="N_sim when not studied.")] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", help=_WORKERS_HELP)] = 1,
    seed: Annotated[int, typer.Option(help=_SEED_HELP)] = 0,
    store: Annotated[Path, typer.Option(help=_STORE_HELP)] = DEFAULT_STORE,
    plot: Annotated[Path | None, typer.Option(help="Save the Elo curve as PNG.")] = None,
    markdown: Annotated[Path | None, typer.Option(help="Write the table to this file.")] = None,
    progress: Annotated[bool, typer.Option(help=_PROGRESS_HELP)] = True,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """AlphaZero's Elo against one parameter (AlphaDDA Fig. 3-4), on a fixed ladder."""
    from sparring.evaluation.ladder import read_ladder
    from sparring.evaluation.study import StudyConfig, plot_study, run_study, study_markdown

    config = StudyConfig(
        game=game,
        model=model or game,
        parameter=parameter,
        values=tuple(values),
        opponents=tuple(o.strip() for o in opponents.split(",") if o.strip()),
        games=games,
        simulations=simulations,
        seed=seed,
        workers=workers,
    )
    the_ladder = read_ladder(ladder)
    for value in config.values:
        player_labels(get_game(game), [config.spec(value)])
    _check_outputs(store, plot, markdown, None)
    console = Console()
    with backend_from_options(backend, ray_address) as runner, GameStore(store) as db:
        points = run_study(config, the_ladder, db, console, backend=runner, progress=progress)
    text = study_markdown(config, the_ladder, points)
    console.print(text)
    if markdown is not None:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(text)
    if plot is not None:
        console.print(f"plot saved to {plot_study(config, points, plot)}")


def oracle(
    specs: Annotated[list[str], typer.Argument(help="Connect4 player specs to score.")],
    positions: Annotated[int, typer.Option(min=1, help="Number of solved positions.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the position set and the players.")] = 0,
    markdown: Annotated[Path | None, typer.Option(help="Write the table to this file.")] = None,
    progress: Annotated[bool, typer.Option(help=_PROGRESS_HELP)] = True,
) -> None:
    """Connect4 move quality against perfect play (the exact solver BitBully)."""
    from rich.table import Table

    from sparring.evaluation.oracle import connect4_positions, score_player
    from sparring.players import make_player

    game = get_game("connect4")
    players = [make_player(spec, game, seed) for spec in specs]
    check_output_file(markdown, "--markdown")
    console = Console()
    with console.status(f"solving {positions} positions"):
        solved = connect4_positions(positions, seed)
    n_decisive = sum(p.decisive for p in solved)
    misses = "other moves: won->drawn / won->lost / drawn->lost"
    table = Table("player", "value-optimal", "score-optimal", "value-optimal (decisive)", misses)
    lines = [
        f"Connect4 move quality on {positions} positions (seed {seed}; {n_decisive} decisive)",
        "",
        f"| player | value-optimal | score-optimal | value-optimal on decisive positions "
        f"| {misses} |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for spec, player in zip(specs, players, strict=True):
        report = score_player(player, solved, progress=progress)
        cells = [f"{100 * v:.1f}%" for v in report.rates().values()] + [report.misses()]
        table.add_row(spec, *cells)
        lines.append(f"| {spec} | " + " | ".join(cells) + " |")
    console.print(table)
    if markdown is not None:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text("\n".join(lines) + "\n")
