"""The ``sparring`` command line.

Every command lives in a module of this package that adds itself to :data:`app`.  Errors caused
by bad input (:class:`~sparring.errors.SparringError`) are printed as one line on standard
error with exit code 2; no traceback is shown for them.  Ctrl-C anywhere (while a command
starts, searches or plays games) ends the command with one line and exit code 130.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated

import typer

from sparring.errors import SparringError, is_interrupt
from sparring.kinds import register_builtin_kinds
from sparring.version import __version__

register_builtin_kinds()  # every player kind, for the commands that build players

app = typer.Typer(
    name="sparring",
    help="An AlphaZero-style game AI as a training partner at any strength.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"sparring {__version__}")
        raise typer.Exit()


@app.callback()
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

for _name in COMMAND_MODULES:
    importlib.import_module(f"sparring.cli.{_name}").register(app)


def main() -> None:
    """Console entry point: run the app, turning input errors into one-line messages.

    Typer handles usage errors (unknown option, missing argument) itself with exit code 2.
    """
    try:
        app()
    except SparringError as exc:
        typer.echo(f"error: {exc}", err=True)
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
