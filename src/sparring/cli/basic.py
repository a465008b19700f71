"""Commands about games and players: ``games``, ``players``, ``play``, ``bench``."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from sparring.errors import SparringError, is_interrupt
from sparring.games import GAME_NAMES, get_game
from sparring.games.base import Game
from sparring.nn.zoo import default_model
from sparring.players import make_player, player_kinds
from sparring.players.base import PlayerState
from sparring.session import GameSession, RecordFormat, default_format
from sparring.strength.target import spec_for_elo

console = Console()


def games() -> None:
    """List the games sparring plays."""
    table = Table("name", "actions", "board", "moves written as")
    for name in GAME_NAMES:
        g = get_game(name)
        table.add_row(
            name, str(g.num_actions), "x".join(map(str, g.board_shape)), g.move_to_text(0) + ", ..."
        )
    console.print(table)


def players() -> None:
    """List the player kinds a player spec may name (spec: KIND or KIND:key=value,...)."""
    table = Table("kind", "description")
    for kind, text in sorted(player_kinds().items()):
        table.add_row(kind, text)
    console.print(table)


HUMAN_LIKE_GAMES = ("go", "chess")
"""Games with strength estimators, where ``--rank`` / ``--elo`` pick SE-inf-MCTS."""


def opponent_spec(
    game_name: str, opponent: str | None, elo: float | None, rank: str | None = None
) -> str:
    """The AI's player spec for ``sparring play``.

    In Go and chess, ``rank`` (Go ``9d`` ... ``3-5k``, chess an Elo band) or, in chess,
    ``elo`` (the Lichess band holding it) asks for SE-inf-MCTS at that rank
    (``se-inf-mcts:rank=R`` / ``se-inf-mcts:elo=E``, :mod:`sparring.estimation.human_like`).
    Elsewhere ``elo`` gives a strength-adjusted player at that Elo
    (:func:`~sparring.strength.target.spec_for_elo`); otherwise ``opponent``, or by default
    the game's shipped network (``az``) where one exists and MCTS1 where none does.
    Raises :class:`SparringError` for ``rank`` outside Go and chess or with ``elo`` or
    ``opponent``.
    """
    if rank is not None:
        if game_name not in HUMAN_LIKE_GAMES:
            raise SparringError(f"--rank is for go and chess (SE-inf-MCTS), not {game_name}")
        if elo is not None or opponent is not None:
            raise SparringError("give --rank alone (not with --elo or --opponent)")
        return f"se-inf-mcts:rank={rank}"
    if elo is not None and game_name in HUMAN_LIKE_GAMES and opponent is None:
        if game_name == "go":
            raise SparringError("Go strength is a rank: use --rank (9d..1d, 1-2k, 3-5k)")
        return f"se-inf-mcts:elo={elo:g}"
    if elo is not None:
        return spec_for_elo(opponent, elo)
    if opponent is not None:
        return opponent
    return "az" if default_model(game_name) is not None else "mcts1"


def side_name(game: Game, player: int) -> str:
    """How the board shows ``player`` (0 or 1): ``X``/``O``, with the colour where the game
    has colours (``X (Black)`` in Go and Othello, ``White`` in chess)."""
    if game.name == "chess":
        return ("White (capital letters)", "Black (small letters)")[player]
    if game.name.startswith(("go", "othello")):
        return ("X (Black)", "O (White)")[player]
    return ("X", "O")[player]


_SUFFIX_FORMATS: dict[str, RecordFormat] = {".sgf": "sgf", ".pgn": "pgn", ".txt": "moves"}


def record_format_for(game: Game, path: Path) -> RecordFormat:
    """The record written to ``path``: by its suffix (``.sgf``, ``.pgn``, ``.txt`` for a move
    list), otherwise the game's natural one (SGF for Go, PGN for chess, a move list).
    SparringError when the suffix asks for a format the game has none of."""
    fmt = _SUFFIX_FORMATS.get(path.suffix.lower(), default_format(game))
    if fmt == "sgf" and default_format(game) != "sgf":
        raise SparringError(f"{path}: SGF records are written for Go only; use a .txt file")
    if fmt == "pgn" and game.name != "chess":
        raise SparringError(f"{path}: PGN records are written for chess only; use a .txt file")
    return fmt


def _save(session: GameSession, path: Path) -> None:
    """Write the session's record to ``path`` (format by :func:`record_format_for`), dated
    today (PGN ``Date``, SGF ``DT``)."""
    fmt = record_format_for(session.game, path)
    today = datetime.date.today()
    dated = {"pgn": {"Date": today.strftime("%Y.%m.%d")}, "sgf": {"DT": today.isoformat()}}
    try:
        path.write_text(session.export(fmt, **dated.get(fmt, {})))
    except OSError as err:
        console.print(f"[red]cannot write {path}: {err.strerror}[/red]")
        return
    console.print(f"record saved to {path}")


def _go_score(session: GameSession) -> str | None:
    """The area score line at the end of a Go game that was not resigned (None otherwise)."""
    from sparring.games.go import Go

    game = session.game
    if not isinstance(game, Go) or session.resigned is not None:
        return None
    black, white = game.area(session.state)
    margin = game.score_margin(session.state)
    verdict = (
        f"Black wins by {margin:g}"
        if margin > 0
        else f"White wins by {-margin:g}"
        if margin < 0
        else "a draw"
    )
    return (
        f"Score (area, Tromp-Taylor): Black {black}, White {white}, komi {game.komi:g}: {verdict}."
    )


def _takeback(session: GameSession, human: int) -> int:
    """How many moves ``undo`` takes back: the person's last move and the replies after it."""
    movers = session.movers
    for i in range(len(movers) - 1, -1, -1):
        if movers[i] == human:
            return len(movers) - i
    return 0


PLAY_HELP = "commands: a move, 'undo' (take back your last move), 'save FILE', 'help', 'quit'"


def _play_loop(session: GameSession, human: int, ai_name: str, save: Path | None) -> None:
    """Alternate the person's moves (read from the terminal) and the AI's until the game ends,
    the person resigns (``quit``) or the input ends."""
    game = session.game
    while not session.is_over:
        console.print(game.render(session.state))
        if session.to_move != human:
            move = session.play_player()
            console.print(f"{ai_name} plays {game.move_to_text(move)}")
            continue
        legal = " ".join(game.move_to_text(m) for m in session.legal_moves())
        try:
            text = input("your move> ")
        except EOFError:
            console.print("\nno more input; game abandoned")
            if save is not None:
                _save(session, save)
            raise typer.Exit(1) from None
        command, _, argument = text.strip().partition(" ")
        word = command.lower()
        if word in ("quit", "exit", "resign"):
            session.resign(human)
            console.print("You resigned.")
            break
        if word in ("help", "?", ""):
            console.print(f"legal moves: {legal}\n{PLAY_HELP}")
            continue
        if word in ("undo", "takeback"):
            count = _takeback(session, human)
            if count == 0:
                console.print("nothing to undo: you have not moved yet")
                continue
            session.undo(count)
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
            console.print(f"[red]{exc}[/red]; legal moves: {legal}")
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
    elo: Annotated[
        float | None,
        typer.Option(
            help="Play at this Elo (baseline-ladder scale) with the shipped network's "
            "strength calibration: the spec sa:elo=E; in chess, SE-inf-MCTS at the Lichess "
            "band holding E (se-inf-mcts:elo=E)."
        ),
    ] = None,
    rank: Annotated[
        str | None,
        typer.Option(
            help="Go or chess: play SE-inf-MCTS (Chen et al. 2025) at this rank: Go 9d..1d, "
            "1-2k, 3-5k; chess an Elo band such as 1400-1600 (or --elo E in chess)."
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
            help="With --adaptive: the adaptive player's state (JSON), loaded if the file "
            "exists and written after every game, so the next session continues."
        ),
    ] = None,
) -> None:
    """Play a game against an AI in the terminal; type a move, 'undo', 'save FILE', 'help' or
    'quit'.  Ctrl-C ends the game (exit code 130).  With --adaptive, a series of games
    against an AI that adapts to your strength."""
    if profile is not None and not adaptive:
        raise typer.BadParameter("--profile is for --adaptive", param_hint="--profile")
    if adaptive:
        if elo is not None:
            raise typer.BadParameter("--adaptive chooses the strength itself", param_hint="--elo")
        if save is not None:
            raise typer.BadParameter("--save records one game; not with --adaptive")
        _play_adaptive(game_name, opponent or "dsa", second, position, seed, profile)
        return
    try:
        game = get_game(game_name)
        if save is not None:
            record_format_for(game, save)
        ai = make_player(opponent_spec(game.name, opponent, elo, rank), game, seed)
        start = game.parse_position(position) if position is not None else None
        human = 1 if second else 0
        players = (None, ai) if human == 0 else (ai, None)
        names = ("You", ai.name) if human == 0 else (ai.name, "You")
        session = GameSession(game, players, start=start, names=names)
        order = "moves first" if session.to_move == human else "moves second"
        console.print(f"You are {side_name(game, human)} ({order}) against {ai.name}.")
        try:
            _play_loop(session, human, ai.name, save)
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
        if session.resigned is None:
            console.print(game.render(session.state))
        score_line = _go_score(session)
        if score_line is not None:
            console.print(score_line)
        score = session.score_for(human)
        console.print("You win!" if score == 1 else "Draw." if score == 0.5 else f"{ai.name} wins.")
    if save is not None:
        _save(session, save)


PROFILE_FORMAT = "sparring-adaptive-profile"
"""The ``format`` field of a ``play --adaptive --profile`` file."""


def _load_profile(path: Path, game: Game, spec: str) -> dict[str, Any] | None:
    """The player state stored in the profile ``path`` (None if the file does not exist);
    SparringError if it is for another game or player, or malformed."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SparringError(f"profile {str(path)!r} cannot be read: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
        raise SparringError(f"{str(path)!r} is not a sparring adaptive profile")
    if data.get("game") != game.name or data.get("spec") != spec:
        raise SparringError(
            f"profile {str(path)!r} is for {data.get('game')} against {data.get('spec')!r}, "
            f"not {game.name} against {spec!r}"
        )
    state = data.get("state")
    return state if isinstance(state, dict) else None


def _write_profile(path: Path, game: Game, spec: str, state: PlayerState | None) -> None:
    record: dict[str, Any] = {"format": PROFILE_FORMAT, "version": 1, "game": game.name}
    record.update(spec=spec, state=state)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=2) + "\n")
    tmp.replace(path)


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
    spec: str,
    second: bool,
    position: str | None,
    seed: int | None,
    profile: Path | None,
) -> None:
    """``play --adaptive``: games against the adaptive player ``spec`` until the person
    stops, colours alternating (the person first unless ``second``); the player's state is
    kept in ``profile`` after every finished game."""
    try:
        game = get_game(game_name)
        ai = make_player(spec, game, seed)
        if ai.save_state() is None:
            raise SparringError(f"{spec!r} does not adapt (keeps no state); use a dsa:... spec")
        if profile is not None:
            state = _load_profile(profile, game, spec)
            if state is not None:
                ai.restore_state(state)
                console.print(f"continuing from {profile}")
        start = game.parse_position(position) if position is not None else None
    except (SparringError, ValueError) as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    console.print(_estimate_line(ai.save_state()))
    human = 1 if second else 0
    number = 0
    try:
        while True:
            number += 1
            players = (None, ai) if human == 0 else (ai, None)
            names = ("You", ai.name) if human == 0 else (ai.name, "You")
            session = GameSession(game, players, start=start, names=names)
            order = "moves first" if session.to_move == human else "moves second"
            console.print(
                f"Game {number}: you are {side_name(game, human)} ({order}) against {ai.name}."
            )
            _play_loop(session, human, ai.name, None)
            if session.resigned is None:
                console.print(game.render(session.state))
            score = session.score_for(human)
            console.print(
                "You win!" if score == 1 else "Draw." if score == 0.5 else f"{ai.name} wins."
            )
            state = ai.save_state()
            if profile is not None:
                _write_profile(profile, game, spec, state)
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
        with markdown.open("a") as fh:
            for section in sections:
                fh.write("\n" + section)
        console.print(f"appended to {markdown}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("games")(games)
    app.command("players")(players)
    app.command("play")(play)
    app.command("bench")(bench)
