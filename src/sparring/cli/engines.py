"""The engine commands: ``sparring gtp`` (Go Text Protocol) and ``sparring uci`` (chess UCI),
for GUIs and bots (Sabaki, Lizzie, GoGui; Cute Chess, Arena, lichess-bot).

Both read commands on standard input and answer on standard output until ``quit``
(:mod:`sparring.engines`).  While the engine starts (its modules loaded, its options
checked, its player built), the protocol's quick commands are answered at once
(:mod:`sparring.engines.front`: GTP ``name``, ``protocol_version``, ...; UCI ``uci``,
``isready``); the first other command waits for the engine.  A bad rank, Elo or player spec
exits with one line and code 2 before any other command is answered.
"""

from __future__ import annotations

import io
import math
import sys
from typing import Annotated, TextIO

import typer

from sparring.engines.front import (
    EngineFront,
    gtp_quick,
    measured_elo_range,
    measured_ranks,
    uci_elo_range,
    uci_quick,
)
from sparring.errors import BadValueError


def _ranks(game: str) -> str:
    """``20k-9k`` (the game's measured ranks, from its shipped level table)."""
    ranks = measured_ranks(game)
    return "none" if not ranks else f"{ranks[0]}-{ranks[-1]}"


def _measured(game: str) -> str:
    """``636-1000`` (the game's measured Elo levels, from its shipped level table)."""
    span = measured_elo_range(game)  # the whole Elos inside it, as the resolver clamps
    return "none" if span is None else f"{math.ceil(span[0])}-{math.floor(span[1])}"


GO_ELOS = f"19x19 {_measured('go')}, 9x9 {_measured('go9')}"
"""The measured Go Elo levels, for ``sparring gtp --help``."""
GO_RANKS = f"19x19 {_ranks('go')}, 9x9 {_ranks('go9')}"
"""The measured Go ranks, for ``sparring gtp --help``."""


def gtp(
    game: Annotated[
        str, typer.Option("--game", "-g", help="go (19x19), go9, go13 or go:size=N,komi=K.")
    ] = "go",
    rank: Annotated[
        str | None,
        typer.Option(
            help=f"Play at this rank of the board size's measured rank ladder ({GO_RANKS}; "
            "a handicap ladder anchored on GNU Go 3.8; sparring levels go lists them)."
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
    front = EngineFront(_input_lines(), sys.stdout, gtp_quick)  # name, ... answered at once
    from sparring.engines.gtp import GTPEngine
    from sparring.games import get_game
    from sparring.kinds import register_builtin_kinds

    register_builtin_kinds()

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
        front.held,
        game=get_game(game),
        strength=strength,
        style=style,
        simulations=sims,
        move_time=time,
        seed=seed,
    )
    front.hand_over()
    engine.out = sys.stdout
    engine.run(front.lines())


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
    if sims is not None and sims < 1:
        raise BadValueError(f"--sims must be >= 1, not {sims}", key="--sims")
    low, high = uci_elo_range()
    if elo is not None and not low <= elo <= high:
        raise BadValueError(f"--elo must be {low}..{high}, not {elo:g}", key="--elo")
    front = EngineFront(_input_lines(), sys.stdout, uci_quick)  # uci, isready answered at once
    from sparring.engines.uci import EngineOptions, UCIEngine
    from sparring.kinds import register_builtin_kinds

    register_builtin_kinds()
    options = EngineOptions(style=style, simulations=sims or 0, player=player or "")
    if elo is not None:
        options.limit_strength, options.elo = True, round(elo)
    engine = UCIEngine(front.held, seed=seed, options=options)
    engine.prepare()  # the player built, its network loaded, while uci and isready are answered
    front.hand_over()
    engine.out = sys.stdout
    engine.run(front.lines())


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
