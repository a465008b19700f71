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


def gtp(
    game: Annotated[
        str, typer.Option("--game", "-g", help="go (19x19), go9, go13 or go:size=N,komi=K.")
    ] = "go",
    rank: Annotated[
        str | None,
        typer.Option(help="19x19 only: play at this rank (9d..1d, 1-2k, 3-5k), as --style says."),
    ] = None,
    elo: Annotated[
        float | None,
        typer.Option(
            help="19x19 only: play at this Elo on GNU Go's scale (GNU Go 3.8 at level 1 = "
            "1000): SA's z over the play network, as the shipped scale measured it; clamped "
            "to its range."
        ),
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", "-p", help="Any player spec, e.g. uct:sims=200.")
    ] = None,
    style: Annotated[
        str,
        typer.Option(
            help="How --rank is played: measured (the rank-conditioned play network go-play, "
            "the setting rated against GNU Go; the rank shapes its moves, not its strength), "
            "human-like (SE-inf-MCTS) or plain (SA-MCTS at the rank's z)."
        ),
    ] = "measured",
    sims: Annotated[
        int | None, typer.Option(help="Simulations per move of the rank/default players.")
    ] = None,
    time: Annotated[
        float | None,
        typer.Option("--time", help="Seconds per move when the GUI sends no time settings."),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the player.")] = None,
) -> None:
    """A Go engine speaking GTP 2 on standard input/output (see README, "Engines")."""
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
            help="measured (the Stockfish scale's setting for the Elo; at full strength "
            "the strongest measured setting, with Stockfish's leaf values), human-like "
            "(SE-inf-MCTS at the Elo's band) or plain (SA-MCTS): the Style option."
        ),
    ] = "measured",
    sims: Annotated[
        int,
        typer.Option(help="Simulations per move (the Simulations option; not for Style measured)."),
    ] = 100,
    seed: Annotated[int | None, typer.Option(help="Seed of the player.")] = None,
) -> None:
    """A chess engine speaking UCI on standard input/output (see README, "Engines")."""
    from sparring.engines.uci import ELO_MAX, ELO_MIN, EngineOptions, UCIEngine

    options = EngineOptions(style=style, simulations=sims, player=player or "")
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
