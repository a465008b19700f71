"""Small record files for the upload and review tests: games of uniformly random legal moves
(the ``random`` player's play, seeded), one player named in every game."""

from __future__ import annotations

import numpy as np

from sparring.games.chess import Chess
from sparring.games.go import Go
from sparring.records import write_pgn, write_sgf


def random_moves(game: Go | Chess, plies: int, seed: int) -> list[int]:
    """``plies`` uniformly random legal moves from the start (Go: no pass)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    moves: list[int] = []
    for _ in range(plies):
        legal = [int(m) for m in game.legal_moves(state)]
        if isinstance(game, Go):
            legal = [m for m in legal if m != game.pass_move]
        if not legal or game.is_terminal(state):
            break
        move = legal[int(rng.integers(len(legal)))]
        moves.append(move)
        state = game.play(state, move)
    return moves


def go_file(games: int, plies: int, seed: int, player: str = "alice") -> tuple[str, list[int]]:
    """SGF text of ``games`` 19x19 games, ``player`` Black in the even ones and White in the
    odd ones against ``bob0``, ``bob1``, ...; and ``player``'s number of moves in each."""
    go = Go(19)
    texts, counts = [], []
    for g in range(games):
        moves = random_moves(go, plies + g % 3, seed + g)
        side = g % 2
        names = (player, f"bob{g}") if side == 0 else (f"bob{g}", player)
        texts.append(write_sgf(go, moves, names=names, properties={"DT": f"2024-01-{g + 1:02d}"}))
        counts.append(len(moves[side::2]))
    return "\n".join(texts), counts


def chess_file(games: int, plies: int, seed: int, player: str = "carol") -> tuple[str, list[int]]:
    """PGN text of ``games`` chess games, ``player`` White in the even ones and Black in the odd
    ones; and ``player``'s number of moves in each."""
    chess = Chess()
    texts, counts = [], []
    for g in range(games):
        moves = random_moves(chess, plies + g % 3, seed + g)
        side = g % 2
        names = (player, f"dan{g}") if side == 0 else (f"dan{g}", player)
        texts.append(write_pgn(chess, moves, names=names))
        counts.append(len(moves[side::2]))
    return "\n".join(texts), counts
