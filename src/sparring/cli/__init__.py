"""The ``sparring`` command line.

Every command lives in a module of this package that adds itself to :data:`app`.  Errors caused
by bad input (:class:`~sparring.errors.SparringError`) are printed as one line on standard
error with exit code 2; no traceback is shown for them.  Ctrl-C anywhere (while a command
starts, searches or plays games) ends the command with one line and exit code 130.
"""

from __future__ import annotations

import importlib
import sys
from functools import cache
from typing import Annotated, Any

import typer

from sparring.errors import SparringError, is_interrupt
from sparring.version import __version__

COMMAND_MODULES = (
    "basic",
    "evaluation",
    "training",
    "strength",
    "estimation",
    "adapt",
    "ddagrid",
    "serve",
    "engines",
    "levels",
)
"""Modules of this package whose ``register(app)`` adds commands."""

COMMANDS: dict[str, tuple[str, str]] = {
    "games": (
        "basic",
        "List the games sparring plays (a game with parameters is also named with other\n"
        "values, e.g. go:size=13,komi=6.5).",
    ),
    "players": (
        "basic",
        "List the player kinds a player spec may name (spec: KIND or KIND:key=value,...).",
    ),
    "play": (
        "basic",
        "Play a game against an AI in the terminal; type a move, 'undo', 'save FILE', 'help' or\n"
        "'quit'.  Ctrl-C ends the game (exit code 130).  With --adaptive, a series of games\n"
        "against an AI that adapts to your strength.",
    ),
    "bench": (
        "basic",
        "Measure rules, UCT and (with --engine / --selfplay) AlphaZero search and self-play.",
    ),
    "match": (
        "evaluation",
        "Play GAMES games between two players, alternating who moves first, and rate them.",
    ),
    "study": (
        "evaluation",
        "AlphaZero's Elo against one parameter (AlphaDDA Fig. 3-4), on a fixed ladder.",
    ),
    "oracle": (
        "evaluation",
        "Connect4 move quality against perfect play (the exact solver BitBully).",
    ),
    "tournament": (
        "evaluation",
        "Play a round robin between the players, N games per pair, and rate them.",
    ),
    "ladder-extend": (
        "evaluation",
        "Add rungs to a ladder: rate new players against it, its ratings held fixed.",
    ),
    "train": (
        "training",
        "Train (or resume training) a policy/value network by self-play.",
    ),
    "calibrate": (
        "strength",
        "Calibrate strength adjustment (Wu et al. 2019): Elo over a grid of z and R_th.",
    ),
    "strength-target": (
        "strength",
        "Print the strength setting (z, R_th, floor) and player spec for a target Elo.",
    ),
    "strength-check": (
        "strength",
        "Play players asked for target Elos against the ladder and measure their Elo.",
    ),
    "se-data": (
        "estimation",
        "Extract (or finish extracting) the state-action pairs of a config into the cache.",
    ),
    "se-train": (
        "estimation",
        "Train (or resume) a strength estimator (SE, SE-inf), the SL baseline classifier, or a\n"
        "play network (``--variant play``: policy and value with the rank as an input).",
    ),
    "se-eval": (
        "estimation",
        "Evaluate strength-estimator runs: rank-prediction accuracy on held-out players.",
    ),
    "multiskill-eval": (
        "estimation",
        "Evaluate the multi-skill strength estimator on held-out players.",
    ),
    "se-policy": (
        "estimation",
        "Policy-head move match on held-out players' games: how often the argmax of the policy\n"
        "is the human move (top-1, top-5; without and with a legal-move mask), per rank, and how\n"
        "much probability it puts on illegal moves.",
    ),
    "se-match": (
        "estimation",
        "Human move matching per rank (the paper's Tables 1-2): the share of held-out positions\n"
        "where each program plays the human move, with 95% intervals; table, plot and JSON.",
    ),
    "se-strength": (
        "estimation",
        "Strength by rank (Fig. 4 / Fig. 7, Table 5, appendix C): programs at each rank against\n"
        "the middle rank, a round robin of ranks with Elo, or SA-MCTS's z per rank; resumable.",
    ),
    "estimate": (
        "estimation",
        "Estimate a player's rank (Go) or Elo band (chess) from their games.",
    ),
    "review": (
        "estimation",
        "Review a player's games by rank: their moves where a player a few ranks stronger would\n"
        "most likely have played differently, by the play network's move probabilities at the two\n"
        "ranks.",
    ),
    "scale-fit": (
        "estimation",
        "Fit a strength scale: the measured Elo of the human-like search per value of one knob\n"
        "(sims or z) against engines held at fixed Elo (the file behind ``human-mcts:sf_elo=E``,\n"
        "``--elo`` and ``UCI_Elo`` in chess; behind ``sa-mcts:gnugo_elo=E`` and ``gtp --elo`` in\n"
        "Go, with GNU Go held).",
    ),
    "adapt": (
        "adapt",
        "Play adaptive players against opponents in series of games and report how well they\n"
        "found and matched each opponent (Tables 3-4, Fig. 5 of Wu et al. 2019; Tables 5-13 and\n"
        "the appendix 6 figures of Fujita 2022).",
    ),
    "dda-grid": (
        "ddagrid",
        "Grid search of an AlphaDDA kind's parameters by the metric D (Fujita 2022, appendix 2,\n"
        "Eq. 11), in full or by successive halving.",
    ),
    "serve": (
        "serve",
        "Serve the game page and the HTTP API (/api, documented at /openapi.json); open the\n"
        "printed address in a browser.  Ctrl-C or SIGTERM stops the server (exit status 0);\n"
        "games continue after a restart, with the AI moves that were in flight.",
    ),
    "gtp": (
        "engines",
        "A Go engine speaking GTP 2 on standard input/output (see docs/guide/engines.md).",
    ),
    "uci": (
        "engines",
        "A chess engine speaking UCI on standard input/output (see docs/guide/engines.md).",
    ),
    "levels": (
        "levels",
        "The levels a game offers, each with what it was measured against, the games behind it\n"
        "and its seconds a move (the same table the page, the engines and ``play`` use).",
    ),
    "levels-build": (
        "levels",
        "Write the level tables (package data) from the shipped calibration and scale files,\n"
        "timing each distinct setting on the computer it runs on (for maintainers).",
    ),
}
"""Every command: the module of :data:`COMMAND_MODULES` that registers it and the first
paragraph of its help (what ``sparring --help`` lists).  :func:`main` imports only the module
of the command it runs, and none for ``sparring --help``, so that the help and the engines'
first replies come without loading every command's dependencies; tests/test_cli_startup.py
checks this table against the commands the modules register."""


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"sparring {__version__}")
        raise typer.Exit()


def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Options before the command (``sparring --version``)."""


def _new_app() -> typer.Typer:
    app = typer.Typer(
        name="sparring",
        help="An AlphaZero-style game AI as a training partner at any strength.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_options)
    return app


SELF_STARTING = ("engines",)
"""Command modules whose commands load the player kinds themselves (the engines: after
they start answering the protocol's first commands, :mod:`sparring.engines.front`)."""


def build_app(modules: tuple[str, ...] = COMMAND_MODULES) -> typer.Typer:
    """The command line with the commands of ``modules`` (every player kind registered,
    unless they all register them themselves: :data:`SELF_STARTING`)."""
    if not set(modules) <= set(SELF_STARTING):
        from sparring.kinds import register_builtin_kinds

        register_builtin_kinds()  # every player kind, for the commands that build players
    app = _new_app()
    for name in modules:
        importlib.import_module(f"sparring.cli.{name}").register(app)
    return app


def listing_app() -> typer.Typer:
    """The command line for ``sparring --help``: every command of :data:`COMMANDS` by its
    name and help alone (no command module imported; running one does nothing)."""
    app = _new_app()
    for name, (_, text) in COMMANDS.items():
        app.command(name, help=text)(_listed)
    return app


def _listed() -> None:
    """A command of :func:`listing_app` (never run: :func:`main` runs the real one)."""


@cache
def _full_app() -> typer.Typer:
    return build_app()


def __getattr__(name: str) -> Any:
    """``sparring.cli.app``: the command line with every command (built on first use)."""
    if name == "app":
        return _full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app_for(argv: list[str]) -> typer.Typer:
    """The app :func:`main` runs for ``argv``: the module of its command alone; the listing
    when it names none (``sparring``, ``sparring --help``); everything otherwise (an unknown
    command, then reported by Typer with the others)."""
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    if command is None:
        return listing_app()
    if command in COMMANDS:
        return build_app((COMMANDS[command][0],))
    return _full_app()


TRAINING_PACKAGES = {"torch": "PyTorch", "onnx": "the onnx package"}
"""Packages of the ``train`` and ``research`` extras that the core runs without (the engines
run the shipped networks' ONNX files): a command that needs one says what to install."""


def main() -> None:
    """Console entry point: run the app, turning input errors into one-line messages.

    Typer handles usage errors (unknown option, missing argument) itself with exit code 2.
    """
    try:
        _app_for(sys.argv[1:])()
    except SparringError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except ImportError as exc:
        if exc.name not in TRAINING_PACKAGES:
            raise
        typer.echo(
            f"error: this command needs {TRAINING_PACKAGES[exc.name]}, which is not installed: "
            "pip install 'sparring[train]'",
            err=True,
        )
        sys.exit(2)
    except SystemExit as exc:
        # Typer turns a plain Ctrl-C into "Aborted!" and exit code 1; make it 130.
        if exc.code == 1 and is_interrupt(exc):
            sys.exit(130)
        raise
    except BaseException as exc:  # e.g. numba's SystemError when Ctrl-C hits compiled code
        if not is_interrupt(exc):
            raise
        typer.echo("\ninterrupted", err=True)
        sys.exit(130)
