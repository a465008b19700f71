"""Commands for strength adjustment (Wu et al., AAAI 2019): ``calibrate`` and
``strength-target``.

``sparring calibrate GAME`` plays strength-adjusted (``sa``) players over a grid of ``z`` and
``R_th`` against the paper's baseline (``z = 0, R_th = 0.1``) and against a rating ladder,
resumably, then writes the report (Table 1-2, Fig. 1-4 analogues) and the calibration file
that ``sa:...,elo=E`` players and ``sparring play --elo`` use.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from sparring.cli.common import (
    BACKEND_HELP,
    RAY_ADDRESS_HELP,
    BackendName,
    backend_from_options,
    check_output_dir,
    check_output_file,
    default_ladder,
)
from sparring.errors import ConfigError, MissingResourceError

if TYPE_CHECKING:
    from sparring.experiments.calibration import CalibrationResult
    from sparring.strength.target import Calibration

console = Console()

_LIST_HELP = "Comma-separated values; inf and -inf allowed."


def _floats(text: str, what: str) -> tuple[float, ...]:
    """Parse ``-inf,-2,0,inf``; an empty text or ``none`` is the empty tuple."""
    if text.strip().lower() in ("", "none"):
        return ()
    out = []
    for item in text.split(","):
        try:
            value = float(item.strip())
        except ValueError:
            raise ConfigError(f"{what}: {item.strip()!r} is not a number") from None
        if math.isnan(value):
            raise ConfigError(f"{what}: nan is not allowed")
        out.append(value)
    return tuple(out)


def _names(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(s.strip() for s in text.split(",") if s.strip())


_LadderOpt = Annotated[
    Path | None,
    typer.Option(
        help="Ladder file fixing the Elo scale (default: the shipped baseline ladder of the "
        "game, baselines-GAME.json, when there is one)."
    ),
]
_LinkNearestOpt = Annotated[
    int,
    typer.Option(
        min=0,
        help="Also link every setting a target Elo can choose (z curve, floor) to this "
        "many ladder players nearest its first rating (0: none).",
    ),
]
_MergeFloorOpt = Annotated[
    Path | None,
    typer.Option(
        help="An existing calibration file: write it with this run's points but its "
        "baseline put in (replacing its points of the same setting), e.g. after a "
        "floor-only run or a run of more z values."
    ),
]
_PoolFloorOpt = Annotated[
    bool,
    typer.Option(
        help="With --merge-floor: pool a floor point measured in both files (inverse-"
        "variance weights; e.g. the same levels on another seed) instead of replacing it."
    ),
]


def calibrate(
    game_name: Annotated[str, typer.Argument(help="Game, e.g. connect4.")],
    base: Annotated[
        str,
        typer.Option(help="Search options of the sa player, e.g. base=az,model=connect4,sims=200."),
    ] = "base=uct,sims=300",
    z: Annotated[str, typer.Option(help=f"Strength indices z. {_LIST_HELP}")] = (
        "-inf,-2,-1.5,-1,-0.5,0,0.5,1,1.5,2,inf"
    ),
    rth: Annotated[str, typer.Option(help="Threshold ratios R_th (comma-separated).")] = (
        "0,0.02,0.05,0.1,0.25,0.5"
    ),
    floor: Annotated[
        str, typer.Option(help="Floor levels in [0, 2] below z=-inf ('none' for none).")
    ] = "0.5,1,1.5,2",
    baseline_z: Annotated[float, typer.Option(help="The baseline's z.")] = 0.0,
    baseline_rth: Annotated[float, typer.Option(help="The baseline's R_th (main scale).")] = 0.1,
    games: Annotated[int, typer.Option(min=1, help="Games per setting vs the baseline.")] = 200,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Base seed of every match.")] = 0,
    ladder: _LadderOpt = None,
    no_ladder: Annotated[
        bool, typer.Option("--no-ladder", help="Relative scale: the baseline at Elo 0.")
    ] = False,
    ladder_opponents: Annotated[
        str | None,
        typer.Option(help="Ladder player specs the baseline plays (default: all)."),
    ] = None,
    floor_opponents: Annotated[
        str, typer.Option(help="Ladder player specs z=-inf and the floor play.")
    ] = "random",
    top_opponents: Annotated[
        str, typer.Option(help="Ladder player specs z=+inf plays (default: none).")
    ] = "",
    link_games: Annotated[int, typer.Option(min=1, help="Games per ladder link.")] = 50,
    link_nearest: _LinkNearestOpt = 0,
    store: Annotated[Path, typer.Option(help="SQLite game store (resumable).")] = Path(
        "runs/strength.sqlite"
    ),
    out: Annotated[
        Path | None, typer.Option(help="Report directory (default runs/strength-GAME).")
    ] = None,
    calibration: Annotated[
        Path | None,
        typer.Option(help="Where to write the calibration file (default OUT/calibration.json)."),
    ] = None,
    merge_floor: _MergeFloorOpt = None,
    pool_floor: _PoolFloorOpt = False,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """Calibrate strength adjustment (Wu et al. 2019): Elo over a grid of z and R_th."""
    from sparring.evaluation.store import GameStore
    from sparring.experiments.calibration import CalibrationConfig, run_calibration
    from sparring.experiments.calibration_report import write_report
    from sparring.games import get_game

    get_game(game_name)
    if pool_floor and merge_floor is None:
        raise typer.BadParameter("--pool-floor needs --merge-floor FILE", param_hint="--pool-floor")
    previous = None  # read before anything is written: --calibration may be the same file
    if merge_floor is not None:
        from sparring.strength.target import load_calibration

        previous = load_calibration(merge_floor)
    ladder_path = _ladder_path(game_name, ladder, no_ladder)
    config = CalibrationConfig(
        game=game_name,
        base=base,
        z_values=_floats(z, "--z"),
        rth_values=_floats(rth, "--rth"),
        floor_values=_floats(floor, "--floor"),
        baseline_z=baseline_z,
        baseline_rth=baseline_rth,
        games=games,
        seed=seed,
        workers=workers,
        ladder=ladder_path,
        ladder_opponents=_names(ladder_opponents),
        floor_opponents=_names(floor_opponents) or (),
        top_opponents=_names(top_opponents) or (),
        link_games=link_games,
        link_nearest=link_nearest,
    )
    out_dir = out or Path("runs") / f"strength-{game_name}"
    check_output_dir(out_dir, "--out")
    check_output_file(calibration, "--calibration")
    check_output_file(store, "--store")
    with backend_from_options(backend, ray_address) as runner:
        console.print(
            f"calibrating {game_name} sa:{base}: {len(config.settings())} settings, "
            f"{games} games each; scale: {ladder_path or 'relative (baseline = 0)'}"
        )
        with GameStore(store) as db:
            result = run_calibration(config, db, console=console, progress=progress, backend=runner)
    command = ("sparring calibrate " + " ".join(sys.argv[2:])).strip()
    paths = write_report(result, out_dir, command=command, calibration_path=calibration)
    if previous is not None and merge_floor is not None:
        _save_merged(previous, result.calibration, paths["calibration"], merge_floor, pool_floor)
    _print_calibration(result, paths)


def _ladder_path(game_name: str, ladder: Path | None, no_ladder: bool) -> str | None:
    """The ladder file of ``--ladder``, else the shipped baseline ladder of the game;
    None with ``--no-ladder``."""
    if no_ladder:
        return None
    if ladder is not None:
        return str(ladder)
    default = default_ladder(game_name, "--ladder (or --no-ladder)")
    return None if default is None else str(default)


def _save_merged(
    previous: Calibration, update: Calibration, path: Path, merge_floor: Path, pool: bool
) -> None:
    """Write ``previous`` with this run's points put in (``--merge-floor``) to ``path``."""
    from sparring.experiments.calibration import merge_floor as merge
    from sparring.strength.target import save_calibration

    save_calibration(merge(previous, update, pool=pool), path)
    how = "pooled with" if pool else "with"
    console.print(f"{path}: {merge_floor}'s points {how} this run's")


def _print_calibration(result: CalibrationResult, paths: Mapping[str, Path]) -> None:
    """The table of measured settings, the strength analyses' H and the files written."""
    table = Table("z", "R_th", "floor", "games", "score", "Elo", "± 95%", title=result.scale)
    for p in result.points:
        table.add_row(
            f"{p.setting.z:g}",
            f"{p.setting.rth:g}",
            f"{p.setting.floor:g}",
            str(p.games),
            "-" if p.score is None else f"{p.score:.3f}",
            f"{p.elo:.0f}",
            f"{1.96 * p.stderr:.0f}",
        )
    console.print(table)
    for a in result.analyses.values():
        if a.h is not None:
            console.print(f"H (Eq. 17) for R_th = {a.rth:g}: {a.h:.3f} ({a.positions} positions)")
    console.print(f"{result.played} games played, {result.skipped} already stored")
    for name, path in paths.items():
        console.print(f"{name}: {path}")


CALIBRATION_ARG_HELP = (
    "Calibration file (sparring calibrate), or the name of a shipped network with one "
    "(connect4, othello6, othello)."
)


def calibration_file(calibration: Path) -> Path:
    """``calibration`` itself when it is a file; else, when it names a shipped network with a
    calibration beside it (``othello``), that calibration file; else ``calibration``
    unchanged (loading it then says the file is not found)."""
    if calibration.is_file():
        return calibration
    from sparring.nn.zoo import shipped_models
    from sparring.strength.target import calibration_path_for_model

    model = shipped_models().get(str(calibration))
    shipped = None if model is None else calibration_path_for_model(model)
    return calibration if shipped is None else shipped


def strength_target(
    calibration: Annotated[Path, typer.Argument(help=CALIBRATION_ARG_HELP)],
    elo: Annotated[float, typer.Option(help="Target Elo on the calibration's scale.")],
    rth: Annotated[
        float | None, typer.Option(help="Threshold to use (default: the main one).")
    ] = None,
) -> None:
    """Print the strength setting (z, R_th, floor) and player spec for a target Elo."""
    from sparring.strength.target import load_calibration, sa_spec, setting_for_elo

    named = calibration
    calibration = calibration_file(calibration)
    cal = load_calibration(calibration)
    result = setting_for_elo(cal, elo, rth)
    if result.clamped:
        typer.echo(f"warning: {result.describe()}", err=True)
    typer.echo(f"setting: {result.setting.label()} (expected Elo {result.expected_elo:.0f})")
    typer.echo(f"spec:    {sa_spec(cal.base, result.setting)}")
    if calibration != named and rth is None:  # a shipped network's name: its own short spec
        typer.echo(f"or:      sa:model={named},elo={elo:g}")
    else:
        typer.echo(f"or:      {sa_spec(cal.base, calibration=calibration, elo=elo)}")


def strength_check(
    calibration: Annotated[Path, typer.Argument(help=CALIBRATION_ARG_HELP)],
    elo: Annotated[str, typer.Option(help="Target Elos (comma-separated).")],
    ladder: Annotated[
        Path | None,
        typer.Option(
            help="Ladder file (default: the shipped baseline ladder, baselines-GAME.json)."
        ),
    ] = None,
    opponents: Annotated[
        int, typer.Option(min=1, help="Nearest ladder players each target plays.")
    ] = 4,
    games: Annotated[int, typer.Option(min=1, help="Games against each opponent.")] = 50,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Base seed of every match.")] = 0,
    store: Annotated[Path, typer.Option(help="SQLite game store (resumable).")] = Path(
        "runs/strength.sqlite"
    ),
    markdown: Annotated[Path | None, typer.Option(help="Write the table to this file.")] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """Play players asked for target Elos against the ladder and measure their Elo."""
    from sparring.evaluation.ladder import read_ladder
    from sparring.evaluation.store import GameStore
    from sparring.experiments.target_check import check_targets, checks_markdown
    from sparring.strength.target import load_calibration

    calibration = calibration_file(calibration)
    cal = load_calibration(calibration)
    targets = _floats(elo, "--elo")
    ladder_file = ladder or default_ladder(cal.game)
    if ladder_file is None:
        raise MissingResourceError(f"the repository has no ladder of {cal.game}; give --ladder")
    rungs = read_ladder(ladder_file)
    check_output_file(store, "--store")
    check_output_file(markdown, "--markdown")
    with backend_from_options(backend, ray_address) as runner, GameStore(store) as db:
        checks = check_targets(
            cal,
            calibration,
            targets,
            rungs,
            db,
            opponents=opponents,
            games=games,
            seed=seed,
            workers=workers,
            console=console if progress else None,
            backend=runner,
        )
    table = Table("target", "setting", "measured Elo", "± 95%", "error", "games")
    for c in checks:
        table.add_row(
            f"{c.target:.0f}",
            c.chosen.setting.label() + (" (clamped)" if c.chosen.clamped else ""),
            f"{c.fit.elo:.0f}",
            f"{1.96 * c.fit.stderr:.0f}",
            f"{c.error:+.0f}",
            str(c.fit.games),
        )
    console.print(table)
    if markdown is not None:
        command = ("sparring strength-check " + " ".join(sys.argv[2:])).strip()
        text = f"Command: `{command}`\n\n" + checks_markdown(cal, calibration, checks, games)
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(text)
        console.print(f"wrote {markdown}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("calibrate")(calibrate)
    app.command("strength-target")(strength_target)
    app.command("strength-check")(strength_check)
