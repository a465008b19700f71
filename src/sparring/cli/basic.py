"""Commands about games and players: ``games``, ``players``, ``play``, ``bench``."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from sparring.cli.common import check_output_file
from sparring.errors import BadValueError, IncompatibleError, SparringError, is_interrupt
from sparring.games import GAME_NAMES, get_game
from sparring.games.base import Game, State
from sparring.levels import Level, LevelReport, resolve, with_elo
from sparring.players import player_kinds
from sparring.players.base import PlayerState
from sparring.players.registry import build_player, parse_player
from sparring.players.settings_base import PlayerSettings
from sparring.profiles import load_or_new, save_profile
from sparring.session import GameSession, RecordFormat, default_format

console = Console()


def games() -> None:
    """List the games sparring plays (a game with parameters is also named with other
    values, e.g. go:size=13,komi=6.5)."""
    table = Table("name", "actions", "board", "moves written as", "parameters")
    for name in GAME_NAMES:
        g = get_game(name)
        params = ", ".join(f"{k}={v:g}" for k, v in g.params().items()) or "-"
        table.add_row(
            name,
            str(g.num_actions),
            "x".join(map(str, g.board_shape)),
            g.move_to_text(0) + ", ...",
            params,
        )
    console.print(table)


def players() -> None:
    """List the player kinds a player spec may name (spec: KIND or KIND:key=value,...)."""
    table = Table("kind", "description")
    for kind, text in sorted(player_kinds().items()):
        table.add_row(kind, text)
    console.print(table)


def opponent_settings(
    game_name: str,
    opponent: str | None,
    elo: float | None,
    rank: str | None = None,
    level: str | None = None,
) -> tuple[PlayerSettings, LevelReport | None]:
    """The AI's typed settings for ``sparring play`` and the level's report (None for a
    player spec): ``level`` (text, :meth:`~sparring.levels.Level.parse`), ``elo`` or ``rank``
    ask the level resolver (:func:`sparring.levels.resolve`); ``opponent`` is a player spec,
    and with ``elo`` a strength-adjusted player of one's own at that Elo on its own
    calibration (:func:`sparring.levels.with_elo`); nothing: the game's default AI.
    :class:`SparringError` for two of ``level``, ``elo`` and ``rank``, or ``rank`` or
    ``level`` with ``opponent``."""
    asked = [name for name, value in (("--level", level), ("--elo", elo), ("--rank", rank))
             if value is not None]  # fmt: skip
    if len(asked) > 1:
        raise BadValueError(f"give one of {' and '.join(asked)}", key=asked[-1])
    if opponent is not None:
        if level is not None or rank is not None:
            raise BadValueError(
                "--opponent is a player of its own; give --level or --rank without it",
                key="--opponent",
            )
        settings = parse_player(opponent)
        return (settings, None) if elo is None else (with_elo(settings, elo), None)
    if level is not None:
        chosen: Level | None = Level.parse(level)
    elif elo is not None:
        chosen = Level.at_elo(elo)
    elif rank is not None:
        chosen = Level.at_rank(rank)
    else:
        chosen = None
    settings, report = resolve(game_name, chosen)
    return settings, report


def adaptive_settings(game_name: str, opponent: str | None) -> PlayerSettings:
    """The adaptive AI of ``sparring play --adaptive``: ``opponent`` (spec text) or, by
    default, the level resolver's adaptive level (``bayes``: :class:`DSASettings`)."""
    if opponent is not None:
        return parse_player(opponent)
    return resolve(game_name, Level.adaptive("bayes"))[0]


_SUFFIX_FORMATS: dict[str, RecordFormat] = {".sgf": "sgf", ".pgn": "pgn", ".txt": "moves"}


def record_format_for(game: Game, path: Path) -> RecordFormat:
    """The record written to ``path``: by its suffix (``.sgf``, ``.pgn``, ``.txt`` for a move
    list), otherwise the game's natural one (SGF for Go, PGN for chess, a move list).
    :class:`~sparring.errors.IncompatibleError` when the suffix asks for a format the game has
    none of."""
    fmt = _SUFFIX_FORMATS.get(path.suffix.lower(), default_format(game))
    if fmt == "sgf" and game.record_format != "sgf":
        raise IncompatibleError(f"{path}: SGF records are written for Go only; use a .txt file")
    if fmt == "pgn" and game.record_format != "pgn":
        raise IncompatibleError(f"{path}: PGN records are written for chess only; use a .txt file")
    return fmt


def _save(session: GameSession, path: Path) -> None:
    """Write the session's record to ``path`` (format by :func:`record_format_for`), dated
    today (PGN ``Date``, SGF ``DT``)."""
    fmt = record_format_for(session.game, path)
    from sparring.records.common import date_headers

    try:
        path.write_text(session.export(fmt, **date_headers(fmt, datetime.date.today())))
    except OSError as err:
        console.print(f"[red]cannot write {path}: {err.strerror}[/red]")
        return
    console.print(f"record saved to {path}")


def _go_score(session: GameSession) -> str | None:
    """The score line at the end of a game that was counted (Go's area score,
    :meth:`Game.score_text`) and not resigned; None otherwise."""
    if session.resigned is not None:
        return None
    return session.game.score_text(session.state)


PLAY_HELP = "commands: a move, 'undo' (take back your last move), 'save FILE', 'help', 'quit'"
SERIES_HELP = (
    "commands: a move, 'undo' (take back your last move), 'save FILE', 'help', 'resign' "
    "(the game counts as lost), 'quit' (stop; this game is not counted)"
)

LEGAL_LISTED = 20
"""At most this many legal moves are listed after a bad move (Go has up to 361)."""


def legal_moves_line(game: Game, moves: list[int], limit: int = LEGAL_LISTED) -> str:
    """The legal moves as the person types them: all of them when there are at most
    ``limit``, else their number and the first few, pointing to ``help`` for the rest."""
    texts = [game.move_to_text(m) for m in moves]
    if len(texts) <= limit:
        return "legal moves: " + " ".join(texts)
    shown = " ".join(texts[: min(8, limit)])
    return f"{len(texts)} legal moves (e.g. {shown} ...); type 'help' to list them all"


def announced_move(game: Game, state: State, move: int) -> str:
    """``move`` (played at ``state``) in the notation the person types: standard algebraic
    notation in games that have one (chess: ``Nf3``, not the UCI ``g1f3``), else the
    game's move text."""
    san = getattr(game, "san", None)
    return str(san(state, move)) if callable(san) else game.move_to_text(move)


def _play_loop(
    session: GameSession,
    human: int,
    ai_name: str,
    save: Path | None,
    quit_resigns: bool = True,
) -> None:
    """Alternate the person's moves (read from the terminal) and the AI's until the game ends,
    the person resigns (``resign``; also ``quit`` unless ``quit_resigns`` is False, when
    ``quit`` leaves the game unfinished) or the input ends."""
    game = session.game
    while not session.is_over:
        console.print(game.render(session.state))
        if session.to_move != human:
            before = session.state
            move = session.play_player()
            if session.resigned is not None:
                console.print(f"{ai_name} resigns.")
            else:
                console.print(f"{ai_name} plays {announced_move(game, before, move)}")
            continue
        moves = session.legal_moves()
        try:
            text = input("your move> ")
        except EOFError:
            console.print("\nno more input; game abandoned")
            if save is not None:
                _save(session, save)
            raise typer.Exit(1) from None
        command, _, argument = text.strip().partition(" ")
        word = command.lower()
        if word in ("quit", "exit") and not quit_resigns:
            return
        if word in ("quit", "exit", "resign"):
            session.resign(human)
            console.print("You resigned.")
            break
        if word in ("help", "?", ""):
            legal = " ".join(game.move_to_text(m) for m in moves)
            console.print(f"legal moves: {legal}\n{PLAY_HELP if quit_resigns else SERIES_HELP}")
            continue
        if word in ("undo", "takeback"):
            count = session.undo_turn(human)  # the person's last move and the replies
            if count == 0:
                console.print("nothing to undo: you have not moved yet")
                continue
            console.print(f"took back {count} move(s)")
            continue
        if word == "save":
            target = Path(argument.strip()) if argument.strip() else save
            if target is None:
                console.print("usage: save FILE (.sgf for Go, .pgn for chess, .txt a move list)")
                continue
            try:
                record_format_for(game, target)
            except SparringError as exc:
                console.print(f"[red]{exc}[/red]")
                continue
            _save(session, target)
            continue
        try:
            move = game.parse_move(text, session.state)
        except SparringError as exc:
            console.print(f"[red]{exc}[/red]; {legal_moves_line(game, moves)}")
            continue
        session.play(move)


def play(
    game_name: Annotated[str, typer.Argument(help="Game to play, e.g. connect4.")],
    opponent: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            "-o",
            help="Player spec of the AI (default: the game's shipped network, else mcts1).",
        ),
    ] = None,
    level: Annotated[
        str | None,
        typer.Option(
            help="The AI's level: an Elo (1500), a rank (5k), 'strongest' or 'adaptive' "
            "(sparring levels GAME lists what the game offers and what each was measured "
            "against)."
        ),
    ] = None,
    elo: Annotated[
        float | None,
        typer.Option(
            help="Play at this Elo on the game's scale (Connect Four and Othello: the "
            "baseline ladder, Random = 1000; chess: Stockfish 15.1 UCI_Elo; Go: GNU Go 3.8 "
            "level 1 = 1000); with --opponent sa:...,calibration=PATH, on that calibration."
        ),
    ] = None,
    rank: Annotated[
        str | None,
        typer.Option(
            help="Play at this rank of the game's measured rank ladder (sparring levels)."
        ),
    ] = None,
    second: Annotated[bool, typer.Option("--second", help="Let the AI move first.")] = False,
    position: Annotated[str | None, typer.Option(help="Start from this position text.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the AI.")] = None,
    save: Annotated[
        Path | None,
        typer.Option(
            help="Write the game's record here when it ends: SGF (.sgf, Go), PGN (.pgn, "
            "chess) or a move list (.txt; other suffixes: the game's natural record)."
        ),
    ] = None,
    adaptive: Annotated[
        bool,
        typer.Option(
            "--adaptive",
            help="Play a series of games against a player that adapts its strength to yours "
            "(dynamic strength adjustment, default spec 'dsa': Bayesian estimate of your Elo); "
            "after each game it shows its estimate of your Elo.",
        ),
    ] = False,
    profile: Annotated[
        Path | None,
        typer.Option(
            help="Your profile (JSON, sparring.profiles; made if the file does not exist): "
            "every finished game is added to it, and with --adaptive it keeps what the "
            "adaptive player learned about you (per game and kind) and its estimates of "
            "your strength, so the next session continues."
        ),
    ] = None,
) -> None:
    """Play a game against an AI in the terminal; type a move, 'undo', 'save FILE', 'help' or
    'quit'.  Ctrl-C ends the game (exit code 130).  With --adaptive, a series of games
    against an AI that adapts to your strength."""
    if seed is not None and seed < 0:
        raise BadValueError(f"--seed must be >= 0, not {seed}", key="--seed")
    check_output_file(save, "--save", create_parents=False)
    check_output_file(profile, "--profile")
    if adaptive:
        if elo is not None:
            raise typer.BadParameter("--adaptive chooses the strength itself", param_hint="--elo")
        if save is not None:
            raise typer.BadParameter("--save records one game; not with --adaptive")
        if level is not None or rank is not None:
            raise typer.BadParameter("--adaptive chooses the strength itself", param_hint="--level")
        settings = adaptive_settings(get_game(game_name).name, opponent)
        _play_adaptive(game_name, settings, second, position, seed, profile)
        return
    try:
        game = get_game(game_name)
        if save is not None:
            record_format_for(game, save)
        settings, report = opponent_settings(game.name, opponent, elo, rank, level)
        ai = build_player(settings, game, seed)
        if report is not None:
            _print_level(report)
        person = None if profile is None else load_or_new(profile)[0]
        start = game.parse_position(position) if position is not None else None
        human = 1 if second else 0
        players = (None, ai) if human == 0 else (ai, None)
        # the opponent by its level where one was asked ("AI (12 kyu)"), else its name
        level = None if report is None or report.level is None else report.label.split(" (")[0]
        them = ai.name if level is None else f"AI ({level})"
        names = ("You", them) if human == 0 else (them, "You")
        session = GameSession(game, players, start=start, names=names)
        order = "moves first" if session.to_move == human else "moves second"
        console.print(f"You are {game.side_label(human)} ({order}) against {them}.")
        try:
            _play_loop(session, human, them, save)
        except BaseException as exc:
            if not is_interrupt(exc):
                raise
            if save is not None:
                _save(session, save)
            raise
    except BaseException as exc:
        if isinstance(exc, typer.Exit) or not is_interrupt(exc):
            raise
        console.print("\ninterrupted; game abandoned")
        raise typer.Exit(130) from None
    if session.is_over:
        _print_result(session, human, them)
    if save is not None:
        _save(session, save)
    if person is not None and profile is not None and session.is_over:
        person.record_game(session, human, record=None if save is None else str(save))
        save_profile(person, profile)
        console.print(f"game added to the profile {profile}")


def _print_level(report: LevelReport) -> None:
    """The AI's level and seconds a move, and the level's notice, if any."""
    if report.level is not None:
        seconds = "" if report.seconds is None else f", about {report.seconds:.2f} s a move"
        console.print(f"Level: {report.label}{seconds}.")
    if report.notice:
        console.print(f"[yellow]{report.notice}[/yellow]")


def _print_result(session: GameSession, human: int, ai_name: str) -> None:
    """The final position (unless a side resigned), Go's score and who won."""
    if session.resigned is None:
        console.print(session.game.render(session.state))
    score_line = _go_score(session)
    if score_line is not None:
        console.print(score_line)
    score = session.score_for(human)
    console.print("You win!" if score == 1 else "Draw." if score == 0.5 else f"{ai_name} wins.")


def _estimate_line(state: PlayerState | None) -> str:
    """What the adaptive player thinks of the person, from its saved state."""
    games = state.get("games", 0) if state else 0
    if not state or not games or state.get("opponent_elo") is None:
        start = (
            "" if not state or state.get("elo") is None else f"; I start at Elo {state['elo']:.0f}"
        )
        return f"No estimate of your strength yet{start}."
    opp = float(state["opponent_elo"])  # type: ignore[arg-type]
    elo = float(state.get("elo", opp))  # type: ignore[arg-type]
    return (
        f"My estimate of your Elo after {games} game(s): {opp:.0f} "
        f"(Random = 1000 on this scale); next game I play at Elo {elo:.0f}."
    )


def _ask_again() -> bool:
    try:
        answer = input("Play another game? [y/n] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes", "")


def _play_adaptive(
    game_name: str,
    settings: PlayerSettings,
    second: bool,
    position: str | None,
    seed: int | None,
    profile: Path | None,
) -> None:
    """``play --adaptive``: games against the adaptive player of ``settings`` until the
    person stops, colours alternating (the person first unless ``second``); the player's
    state is kept in ``profile`` after every finished game."""
    spec = settings.spec()
    try:
        game = get_game(game_name)
        ai = build_player(settings, game, seed)
        if ai.save_state() is None:
            raise IncompatibleError(f"{spec!r} does not adapt (keeps no state); use a dsa:... spec")
        person = None if profile is None else load_or_new(profile)[0]
        if person is not None:
            kept = person.restore_adaptive(ai, game, spec)  # keyed by game and kind
            if kept is not None and kept.state is not None:
                console.print(f"continuing from {profile}")
        start = game.parse_position(position) if position is not None else None
    except (SparringError, ValueError) as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    console.print(_estimate_line(ai.save_state()))
    human = 1 if second else 0
    played = (ai.save_state() or {}).get("games", 0)
    number = played if isinstance(played, int) else 0  # a resumed series goes on counting
    try:
        while True:
            number += 1
            before = ai.save_state()
            players = (None, ai) if human == 0 else (ai, None)
            names = ("You", ai.name) if human == 0 else (ai.name, "You")
            session = GameSession(game, players, start=start, names=names)
            order = "moves first" if session.to_move == human else "moves second"
            console.print(
                f"Game {number}: you are {game.side_label(human)} ({order}) against {ai.name}."
            )
            _play_loop(session, human, ai.name, None, quit_resigns=False)
            if not session.is_over:  # quit: the game is not counted
                ai.restore_state(before)
                console.print(f"Game {number} abandoned; it is not counted.")
                break
            if session.resigned is None:
                console.print(game.render(session.state))
            score = session.score_for(human)
            console.print(
                "You win!" if score == 1 else "Draw." if score == 0.5 else f"{ai.name} wins."
            )
            state = ai.save_state()
            if person is not None and profile is not None:
                person.finish_adaptive_game(session, human, spec, ai)
                save_profile(person, profile)
            console.print(_estimate_line(state))
            if not _ask_again():
                break
            human = 1 - human
    except BaseException as exc:
        if isinstance(exc, typer.Exit) or not is_interrupt(exc):
            raise
        console.print("\ninterrupted; game abandoned")
        raise typer.Exit(130) from None


def bench(
    games_: Annotated[
        list[str] | None, typer.Option("--game", "-g", help="Game to measure (repeatable).")
    ] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Timed repeats per figure.")] = 3,
    seconds: Annotated[float, typer.Option(min=0.05, help="Length of one repeat.")] = 1.0,
    uct_simulations: Annotated[
        int, typer.Option(min=100, help="Simulations per UCT search.")
    ] = 20000,
    no_openspiel: Annotated[
        bool, typer.Option("--no-openspiel", help="Skip the reference.")
    ] = False,
    markdown: Annotated[Path | None, typer.Option(help="Append the results to this file.")] = None,
    rules: Annotated[
        bool, typer.Option("--rules/--no-rules", help="Rules and UCT against OpenSpiel.")
    ] = True,
    engine: Annotated[
        bool, typer.Option("--engine/--no-engine", help="Network and PUCT search throughput.")
    ] = False,
    selfplay: Annotated[
        bool,
        typer.Option(
            "--selfplay/--no-selfplay", help="Self-play games per hour with training settings."
        ),
    ] = False,
    selfplay_games: Annotated[
        int, typer.Option(min=1, help="Timed self-play games per game (--selfplay).")
    ] = 30,
    threads: Annotated[
        int, typer.Option(min=1, help="Network threads for --engine and --selfplay.")
    ] = 1,
) -> None:
    """Measure rules, UCT and (with --engine / --selfplay) AlphaZero search and self-play.

    Rules and UCT are compared with OpenSpiel measured in the same run; the engine benchmark
    compares the batched PUCT search with the network alone at the same batch size.
    """
    from sparring.bench import BenchConfig, rows_to_markdown, run_benchmarks

    names = tuple(games_) if games_ else BenchConfig.games
    for name in names:
        get_game(name)
    check_output_file(markdown, "--markdown", create_parents=False)
    command = ("sparring bench " + " ".join(sys.argv[2:])).strip()
    sections: list[str] = []
    if rules:
        config = BenchConfig(names, repeats, seconds, uct_simulations, not no_openspiel)
        with console.status("benchmarking") as status:
            rows = run_benchmarks(config, lambda msg: status.update(f"benchmarking {msg}"))
        table = Table("game", "metric", "sparring", "reference", "ratio")
        for r in rows:
            table.add_row(
                r.game,
                r.metric,
                f"{r.ours:,.0f}",
                f"{r.reference:,.0f} ({r.reference_name})" if r.reference else "-",
                f"{r.ratio:.1f}x" if r.ratio else "-",
            )
        console.print(table)
        sections.append(rows_to_markdown(rows, command, repeats))
    if engine:
        from sparring.bench import benchmark_search_engine, engine_markdown
        from sparring.search.bench import format_rows

        with console.status("benchmarking the network and the PUCT search"):
            engine_rows = benchmark_search_engine(seconds=seconds, repeats=repeats, threads=threads)
        console.print(format_rows(engine_rows))
        sections.append(engine_markdown(engine_rows, command, repeats, threads))
    if selfplay:
        from sparring.bench import bench_selfplay, selfplay_markdown

        selfplay_rows = []
        for name in names:
            with console.status(f"self-play: {name}"):
                row = bench_selfplay(name, games=selfplay_games, threads=threads)
            console.print(
                f"{name}: {row.games} games in {row.seconds:.1f} s, "
                f"{row.games_per_hour:,.0f} games/hour, {row.positions_per_second:,.0f} moves/s"
            )
            selfplay_rows.append(row)
        sections.append(selfplay_markdown(selfplay_rows, command, threads))
    if markdown is not None and sections:
        with markdown.open("a", encoding="utf-8") as fh:
            for section in sections:
                fh.write("\n" + section)
        console.print(f"appended to {markdown}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("games")(games)
    app.command("players")(players)
    app.command("play")(play)
    app.command("bench")(bench)
