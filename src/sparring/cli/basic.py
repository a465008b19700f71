"""Commands about games and players: ``games``, ``players``, ``play``, ``bench``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from sparring.errors import SparringError
from sparring.games import GAME_NAMES, get_game
from sparring.nn.zoo import default_model
from sparring.players import make_player, player_kinds
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


def opponent_spec(game_name: str, opponent: str | None, elo: float | None) -> str:
    """The AI's player spec for ``sparring play``.

    With ``elo``, a strength-adjusted player at that Elo
    (:func:`~sparring.strength.target.spec_for_elo`); otherwise ``opponent``, or by default
    the game's shipped network (``az``) where one exists and MCTS1 where none does.
    """
    if elo is not None:
        return spec_for_elo(opponent, elo)
    if opponent is not None:
        return opponent
    return "az" if default_model(game_name) is not None else "mcts1"


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
            "strength calibration: the spec sa:elo=E."
        ),
    ] = None,
    second: Annotated[bool, typer.Option("--second", help="Let the AI move first.")] = False,
    position: Annotated[str | None, typer.Option(help="Start from this position text.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the AI.")] = None,
) -> None:
    """Play a game against an AI in the terminal; type a move, 'help' or 'quit'."""
    game = get_game(game_name)
    ai = make_player(opponent_spec(game.name, opponent, elo), game, seed)
    state = game.parse_position(position) if position is not None else game.initial_state()
    human = 1 if second else 0
    ai.new_game(game, 1 - human)
    console.print(f"You play {'first' if human == 0 else 'second'} against {ai.name}.")
    while not game.is_terminal(state):
        console.print(game.render(state))
        if game.to_move(state) == human:
            legal = " ".join(game.move_to_text(int(m)) for m in game.legal_moves(state))
            try:
                text = input("your move> ")
            except EOFError:
                console.print("\nno more input; game abandoned")
                raise typer.Exit(1) from None
            if text.strip().lower() in ("quit", "exit", "resign"):
                console.print("You resigned.")
                return
            if text.strip().lower() in ("help", "?", ""):
                console.print(f"legal moves: {legal}")
                continue
            try:
                move = game.parse_move(text, state)
            except SparringError as exc:
                console.print(f"[red]{exc}[/red]; legal moves: {legal}")
                continue
        else:
            move = ai.select_move(game, state)
            console.print(f"{ai.name} plays {game.move_to_text(move)}")
        state = game.play(state, move)
    console.print(game.render(state))
    outcome = game.status(state)
    score = outcome.score_for(human)
    verdict = "You win!" if score == 1 else "Draw." if score == 0.5 else f"{ai.name} wins."
    ai.game_over(game, state, 1 - score)
    console.print(verdict)


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
