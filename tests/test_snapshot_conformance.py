"""Snapshot conformance: for every registered player kind, a session snapshotted mid-game and
restored in a fresh process plays the same next moves as the uninterrupted session.

Each case plays :data:`BEFORE` plies between the kind (player 0, tiny settings of
:data:`CASES`) and a seeded ``random`` player, takes :meth:`GameSession.snapshot` through JSON,
then plays :data:`AFTER` more plies.  One child process (``python -c``: nothing shared with
this one but the JSON) restores every snapshot with ``GameSession.restore(snapshot)`` (the
players rebuilt from their settings, seeds, saved and live state and random streams) and
plays the same number of plies; the moves and what the players reported about them
(:attr:`GameSession.annotations`: root visits, AlphaDDA's ``vbar``, DSA's ``z``) must be
equal.  A kind that is registered but has
no case fails :func:`test_every_registered_kind_has_a_case`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from sparring.games import get_game
from sparring.players import make_player, player_kinds
from sparring.players.external import find_program
from sparring.session import GameSession

BEFORE = 5
"""Plies played before the snapshot (the kind has moved three times: its in-game state, such
as AlphaDDA's values or intra-game DSA's z, has moved from its start)."""
AFTER = 4
"""Plies compared after it (two moves of each side, fewer where the game ends first; at least
two are compared)."""

CASES: dict[str, tuple[tuple[str, str], ...]] = {
    "random": (("random", "connect4"),),
    "uct": (("uct:sims=8", "connect4"), ("uct:sims=8", "go9")),
    "mcts1": (("mcts1", "connect4"),),
    "mcts2": (("mcts2", "connect4"),),
    "mcts3": (("mcts3", "othello6"),),
    "mcts4": (("mcts4", "connect4"),),
    "minimax": (("minimax:depth=1", "connect4"),),
    "minimax1": (("minimax1", "othello6"),),
    "minimax2": (("minimax2", "connect4"),),
    "az": (("az:sims=8", "connect4"), ("az:sims=8,dropout=0.3", "othello6")),
    "level": (("level:at=1000", "connect4"),),
    "sa": (("sa:sims=8,z=1,rth=0.5", "connect4"), ("sa:base=uct,sims=8,z=1,rth=0.5", "connect4")),
    "dsa": (
        ("dsa:sims=8", "connect4"),
        ("dsa:mode=intra,sims=8", "connect4"),
        ("dsa:mode=elo-intra,sims=8,elo0=1900", "connect4"),
    ),
    "alphadda1": (("alphadda1:nmax=4", "connect4"),),
    "alphadda2": (("alphadda2:sims=4,adrop=1,pdrop0=1.5,floor=on,fstart=0.5", "connect4"),),
    "alphadda3": (("alphadda3:sims=8", "othello6"),),
    "human-mcts": (("human-mcts:sims=4", "chess"),),
    "sa-mcts": (("sa-mcts:sims=4,z=1", "go"),),
    "se-mcts": (("se-mcts:elo=1900,sims=4", "chess"),),
    "se-inf-mcts": (("se-inf-mcts:rank=3-5k,sims=4", "go"),),
    "stockfish": (("stockfish:depth=2,movetime=none", "chess"),),
    "gnugo": (("gnugo:level=0", "go9"),),
}
"""Per registered kind: (spec with tiny settings, a game it plays)."""

CHILD = """
import json, sys
import sparring.kinds  # the composition root registers the kinds, as the command line does
from sparring.session import GameSession

out = {}
for case in json.load(open(sys.argv[1])):
    try:
        session = GameSession.restore(case["snapshot"])
        moves = []
        while len(moves) < case["plies"] and not session.is_over:
            moves.append(session.play_player())
        out[case["id"]] = [moves, list(session.annotations[len(session.moves) - len(moves):])]
    except Exception as err:  # reported, compared below
        out[case["id"]] = f"{type(err).__name__}: {err}"
print(json.dumps(out))
"""


def _ids() -> list[str]:
    return [f"{spec}@{game}" for kind in CASES for spec, game in CASES[kind]]


def test_every_registered_kind_has_a_case() -> None:
    missing = sorted(set(player_kinds()) - set(CASES))
    assert not missing, f"kinds without a snapshot case (add them to CASES): {missing}"


@cache
def _uninterrupted() -> dict[str, tuple[dict[str, object], list[list[object]]]]:
    """Per case id: the snapshot after BEFORE plies (through JSON) and the AFTER moves the
    session then played with their annotations (the players' analysis: AlphaDDA's ``vbar``,
    DSA's ``z``, ... which show their state within the game)."""
    results = {}
    for case_id in _ids():
        spec, name = case_id.split("@")
        if _missing_program(spec):
            continue
        game = get_game(name)
        session = GameSession(game, (make_player(spec, game, 11), make_player("random", game, 12)))
        for _ in range(BEFORE):
            session.play_player()
        snapshot = json.loads(json.dumps(session.snapshot()))
        moves = []
        while len(moves) < AFTER and not session.is_over:
            moves.append(session.play_player())
        notes = json.loads(json.dumps(session.annotations[len(session.moves) - len(moves) :]))
        results[case_id] = (snapshot, [moves, notes])
    return results


@cache
def _restored(tmp: str) -> dict[str, object]:
    """Per case id: the moves the child process played after restoring (or its error)."""
    cases = [
        {"id": case_id, "snapshot": snapshot, "plies": AFTER}
        for case_id, (snapshot, _) in _uninterrupted().items()
    ]
    path = Path(tmp) / "snapshots.json"
    path.write_text(json.dumps(cases))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _missing_program(spec: str) -> bool:
    """Whether ``spec`` is an external engine that is not installed (never with
    SPARRING_CI=1: the case then fails)."""
    program = {"stockfish": "stockfish", "gnugo": "gnugo"}.get(spec.split(":")[0])
    return (
        program is not None
        and find_program(program) is None
        and os.environ.get("SPARRING_CI") != "1"
    )


@pytest.mark.parametrize("case_id", _ids())
def test_restore_in_a_new_process_plays_the_same_next_moves(
    case_id: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if _missing_program(case_id.split("@")[0]):
        pytest.skip(f"{case_id}: the engine is not installed")
    snapshot, expected = _uninterrupted()[case_id]
    players = snapshot["players"]
    assert isinstance(players, list) and players[0]["settings"] is not None
    assert len(expected[0]) >= 2
    restored = _restored(str(tmp_path_factory.getbasetemp()))
    assert restored[case_id] == expected
