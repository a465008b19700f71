"""The engine commands: ``sparring gtp`` (Go Text Protocol) and ``sparring uci`` (chess UCI),
for GUIs and bots (Sabaki, Lizzie, GoGui; Cute Chess, Arena, lichess-bot).

Both read commands on standard input and answer on standard output until ``quit``
(:mod:`sparring.engines`).  The options are checked, and the player built, before the first
command is read: a bad rank, Elo or player spec exits with one line and code 2.
"""

from __future__ import annotations

import io
import sys
from typing import Annotated, TextIO

import typer

from sparring.errors import BadValueError
from sparring.levels import level_table


def _measured(game: str) -> str:
    """``636-1000`` (the game's measured Elo levels, from its shipped level table)."""
    span = level_table(game).elo_range
    return "none" if span is None else f"{span[0]:.0f}-{span[1]:.0f}"


GO_ELOS = f"19x19 {_measured('go')}, 9x9 {_measured('go9')}"
"""The measured Go Elo levels, for ``sparring gtp --help``."""


def gtp(
    game: Annotated[
        str, typer.Option("--game", "-g", help="go (19x19), go9, go13 or go:size=N,komi=K.")
    ] = "go",
    rank: Annotated[
        str | None,
        typer.Option(
            help="Play at this rank of the board size's measured rank ladder (sparring levels "
            "go lists them)."
        ),
    ] = None,
    elo: Annotated[
        float | None,
        typer.Option(
            help="Play at this Elo on the board size's scale (GNU Go 3.8 at level 1 = 1000; "
            f"measured: {GO_ELOS}; sparring levels go / go9 lists them); clamped to the "
            "measured range, and said."
        ),
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", "-p", help="Any player spec, e.g. uct:sims=200.")
    ] = None,
    style: Annotated[
        str,
        typer.Option(help="measured: the setting the level table measured (no other style was)."),
    ] = "measured",
    sims: Annotated[
        int | None,
        typer.Option(help="Simulations per move of the default player (then no measured level)."),
    ] = None,
    time: Annotated[
        float | None,
        typer.Option(
            "--time",
            help="At most this many seconds a move (the player's simulations are its work; "
            "with the GUI's time settings too, the shorter bound wins).",
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the player.")] = None,
) -> None:
    """A Go engine speaking GTP 2 on standard input/output (see docs/guide/engines.md)."""
    from sparring.engines.gtp import GTPEngine
    from sparring.games import get_game

    given = [name for name, value in (("--rank", rank), ("--elo", elo), ("--player", player))
             if value is not None]  # fmt: skip
    if len(given) > 1:
        raise BadValueError(f"give one of --rank, --elo and --player, not {' and '.join(given)}",
                            key=given[-1])  # fmt: skip
    if time is not None and not time > 0:
        raise BadValueError(f"--time must be > 0 seconds, not {time}", key="--time")
    strength: tuple[str, str] | None = None
    if rank is not None:
        strength = ("rank", rank)
    elif elo is not None:
        strength = ("elo", repr(elo))
    elif player:
        strength = ("player", player)
    engine = GTPEngine(
        game=get_game(game),
        strength=strength,
        style=style,
        simulations=sims,
        move_time=time,
        seed=seed,
    )
    engine.run(_input_lines())


def uci(
    elo: Annotated[
        float | None,
        typer.Option(
            help="Start with UCI_LimitStrength on at this UCI_Elo (the range `uci` shows: "
            "the shipped Stockfish scale's)."
        ),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option("--player", "-p", help="Any chess player spec (the Player option)."),
    ] = None,
    style: Annotated[
        str,
        typer.Option(
            help="measured: the setting the chess level table measured (the Style option; "
            "no other style was measured)."
        ),
    ] = "measured",
    sims: Annotated[
        int | None,
        typer.Option(
            help="Full strength with this many simulations a move instead of the strongest "
            "level's own (then no measured level; the Simulations option)."
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the player.")] = None,
) -> None:
    """A chess engine speaking UCI on standard input/output (see docs/guide/engines.md)."""
    from sparring.engines.uci import ELO_MAX, ELO_MIN, EngineOptions, UCIEngine

    if sims is not None and sims < 1:
        raise BadValueError(f"--sims must be >= 1, not {sims}", key="--sims")
    options = EngineOptions(style=style, simulations=sims or 0, player=player or "")
    if elo is not None:
        if not ELO_MIN <= elo <= ELO_MAX:
            raise BadValueError(f"--elo must be {ELO_MIN}..{ELO_MAX}, not {elo:g}", key="--elo")
        options.limit_strength, options.elo = True, round(elo)
    engine = UCIEngine(seed=seed, options=options)
    engine.run(_input_lines())


def _input_lines() -> TextIO:
    """Standard input with undecodable bytes replaced (bad input must not end an engine)."""
    stdin = sys.stdin
    if isinstance(stdin, io.TextIOWrapper):
        stdin.reconfigure(errors="replace")
    return stdin


def register(app: typer.Typer) -> None:
    """Add ``gtp`` and ``uci`` to ``app``."""
    app.command("gtp")(gtp)
    app.command("uci")(uci)
