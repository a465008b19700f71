"""A player's own games for the estimator: games counted once by content (the ``estimate``
command on a folder with a copied file), uploads read strictly, the player found, the level
offered for an estimate, and the review by rank (the marked moves are those of largest
likelihood gap, checked by hand on a game of three moves with known probabilities)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import BadValueError
from sparring.estimation.data import GO_RANKS
from sparring.estimation.review import largest_gaps, review_game, stronger_rank
from sparring.estimation.upload import (
    Duplicate,
    UploadedFile,
    find_player,
    game_key,
    parse_uploads,
    unique_games,
)
from sparring.games.go import Go
from sparring.levels import Level, resolve
from sparring.records import parse_pgn_games, parse_sgf_games, write_sgf
from sparring.service.uploads import _rank_span, offer_for
from upload_games import chess_file, go_file

GAME = "(;GM[1]FF[4]SZ[19]PB[alice]PW[bob]DT[2024-01-01];B[pd];W[dd];B[pp];W[dp];B[qf])\n"


# ---- games counted once by content -----------------------------------------------------------
def test_a_game_key_is_the_moves_and_players_not_the_headers() -> None:
    (game,) = parse_sgf_games(GAME, "a.sgf")
    (other_day,) = parse_sgf_games(GAME.replace("2024-01-01", "2025-05-05"), "b.sgf")
    (other_move,) = parse_sgf_games(GAME.replace("B[qf]", "B[qg]"), "c.sgf")
    (other_name,) = parse_sgf_games(GAME.replace("PW[bob]", "PW[bert]"), "d.sgf")
    (cased,) = parse_sgf_games(GAME.replace("PB[alice]", "PB[ Alice ]"), "e.sgf")
    assert game_key(game) == game_key(other_day) == game_key(cased)
    assert len({game_key(game), game_key(other_move), game_key(other_name)}) == 3
    kept, repeats = unique_games([game, other_move, other_day, cased])
    assert kept == [game, other_move]
    assert repeats == [Duplicate("b.sgf:1", "a.sgf:1"), Duplicate("e.sgf:1", "a.sgf:1")]
    text, _ = chess_file(2, 6, seed=3)
    first, second = parse_pgn_games(text, "c.pgn")
    assert game_key(first) != game_key(second)
    assert unique_games([first, second, first]) == (
        [first, second],
        [Duplicate("c.pgn:1", "c.pgn:1")],
    )


def test_estimate_counts_a_copied_file_once(tmp_path: Path) -> None:
    """A folder holding a file and its copy under another name: the games are counted once,
    and said so; the estimate is the one of the file alone."""
    text, counts = go_file(3, 20, seed=11)
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "a.sgf").write_text(text)
    runner = CliRunner()
    alone = runner.invoke(app, ["estimate", str(folder / "a.sgf"), "-p", "alice"])
    assert alone.exit_code == 0, alone.output
    assert f"alice: 3 game(s), {sum(counts)} moves scored\n" in alone.output
    shutil.copy(folder / "a.sgf", folder / "copy-of-a.sgf")
    both = runner.invoke(app, ["estimate", str(folder), "-p", "alice"])
    assert both.exit_code == 0, both.output
    lines = text.splitlines()
    starts = [i + 1 for i, line in enumerate(lines) if line.startswith("(;")]
    a, c = folder / "a.sgf", folder / "copy-of-a.sgf"
    note = (
        f"3 repeated game(s) counted once ({c}:{starts[0]} is {a}:{starts[0]}; "
        f"{c}:{starts[1]} is {a}:{starts[1]}; {c}:{starts[2]} is {a}:{starts[2]})"
    )
    flat = " ".join(both.output.split())  # (the console wraps long lines)
    assert note in flat
    assert flat.replace(f"{note} ", "") == " ".join(alone.output.split())


# ---- uploads read strictly, the player found -------------------------------------------------
def test_an_upload_with_a_broken_record_is_refused_with_its_file_and_line() -> None:
    good, _ = go_file(2, 10, seed=1)
    bad = "(;GM[1]SZ[19]PB[alice]PW[x];B[pd])\n\n(;GM[1]SZ[19]PB[alice]PW[y];B[pd];W[pd])\n"
    with pytest.raises(BadValueError) as err:
        parse_uploads([UploadedFile("good.sgf", good), UploadedFile("bad.sgf", bad)])
    assert str(err.value) == (
        "bad.sgf:3: move 2 (W Q16) is illegal; nothing of this upload was used"
    )
    assert err.value.key == "files"
    cases = {
        "small.sgf": ("(;GM[1]SZ[9]PB[a]PW[b];B[ee])", "small.sgf:1: a 9x9 game; the estimator"),
        "empty.sgf": ("", "empty.sgf:1: no game in this file"),
        "notes.txt": ("hello", "notes.txt:1: not an SGF (Go) or PGN (chess) file"),
    }
    for name, (text, start) in cases.items():
        with pytest.raises(
            BadValueError, match="^" + start.replace("(", r"\(").replace(")", r"\)")
        ):
            parse_uploads([UploadedFile(name, text)])
    pgn, _ = chess_file(1, 4, seed=2)
    with pytest.raises(BadValueError, match=r"^give Go \(SGF\) or chess \(PGN\) games, not both"):
        parse_uploads([UploadedFile("a.sgf", good), UploadedFile("b.pgn", pgn)])
    with pytest.raises(BadValueError, match=r"^two files are named 'a.sgf'"):
        parse_uploads([UploadedFile("a.sgf", good), UploadedFile("a.sgf", good)])
    with pytest.raises(BadValueError, match=r"^more than 1 games in one upload"):
        parse_uploads([UploadedFile("a.sgf", good)], max_games=1)


def test_the_player_is_the_name_given_or_the_one_name_in_every_game() -> None:
    text, _ = go_file(4, 6, seed=5, player="Alice")
    uploaded = parse_uploads([UploadedFile("a.sgf", text)])
    assert uploaded.game == "go" and len(uploaded.records) == 4
    assert uploaded.games_per_file == {"a.sgf": 4}
    assert find_player(uploaded.records) == ("Alice", "in every game")
    assert find_player(uploaded.records, " alice ") == ("Alice", "given")
    assert find_player(uploaded.records, "BOB2") == ("bob2", "given")
    with pytest.raises(BadValueError) as err:
        find_player(uploaded.records, "zoe")
    assert str(err.value) == (
        "player 'zoe' is in none of the 4 game(s); names there (games): 'Alice' (4), "
        "'bob0' (1), 'bob1' (1), 'bob2' (1), 'bob3' (1)"
    )
    with pytest.raises(BadValueError, match=r"^name the player whose games these are: no name"):
        find_player(
            uploaded.records[:1]
            + parse_uploads([UploadedFile("b.sgf", GAME.replace("alice", "zed"))]).records
        )
    with pytest.raises(BadValueError, match="more than one name is in every game"):
        find_player(uploaded.records[:1])


# ---- the level offered ------------------------------------------------------------------------
def test_a_go_estimate_is_offered_the_nearest_level_that_exists() -> None:
    assert _rank_span("1-2k") == (-1.0, 0.0)
    assert _rank_span("3-5k") == (-4.0, -2.0)
    assert _rank_span("2d") == (2.0, 2.0)
    strongest = resolve("go", Level.strongest())[1].label
    for rank in ("3-5k", "2d", "9d"):  # every estimator rank is above the ladder's 9k
        offer = offer_for("go", rank)
        assert offer["opponent"] == {"mode": "strongest"}
        assert offer["label"] == strongest
        assert offer["notice"].startswith(
            f"Your estimate, {rank}, is stronger than every Go level measured here (the rank "
            "ladder's strongest rung is 9k; "
        )


def test_a_chess_band_is_offered_its_middle_elo_clamped_by_the_resolver() -> None:
    middle = offer_for("chess", "1400-1600")
    assert middle["opponent"] == {"mode": "elo", "elo": 1500.0}
    assert middle["label"] == "Elo 1500 (Stockfish 15.1 UCI_Elo)"
    assert middle["notice"].startswith("The estimate is a Lichess blitz band; the levels are Elo")
    top = offer_for("chess", "2400-2600")
    assert top["opponent"] == {"mode": "elo", "elo": 2500.0}
    assert top["label"] == "Elo 1991 (Stockfish 15.1 UCI_Elo)"  # the measured range's top
    assert "Elo 2500 is outside the measured range 842..1991" in top["notice"]
    # the strongest level is the Elo levels' top: no stronger level to point to
    assert top["notice"].endswith("playing the strongest level, 1991.")


@pytest.mark.parametrize(("above", "pointed"), [(0.9, False), (1.0, True), (60.0, True)])
def test_the_strongest_is_pointed_to_when_a_whole_elo_stronger(
    monkeypatch: pytest.MonkeyPatch, above: float, pointed: bool
) -> None:
    from dataclasses import replace

    import sparring.service.uploads as uploads
    from sparring.levels import level_table

    table = level_table("chess")
    top = resolve("chess", Level.at_elo(2500))[1].elo
    assert top is not None and table.strongest is not None
    stronger = replace(table, strongest=replace(table.strongest, elo=top + above))
    monkeypatch.setattr(uploads, "level_table", lambda game: stronger)
    notice = uploads.offer_for("chess", "2400-2600")["notice"]
    assert ("choose 'Its strongest' to play it." in notice) == pointed, notice


# ---- the review by rank -----------------------------------------------------------------------
def test_the_marked_moves_are_those_of_largest_likelihood_gap() -> None:
    """Black's three moves D4, Q4, K10 with known probabilities at 3d (index 6) and at 6d
    (index 3), other moves impossible: the gaps are log 2, log 10 and log(0.5/0.6)."""
    go = Go(19)
    names = ["D4", "Q16", "Q4", "D16", "K10", "C3"]
    moves = [go.parse_move(m) for m in names]
    record = next(iter(parse_sgf_games(write_sgf(go, moves, names=("ann", "ben")), "g.sgf")))
    m = dict(zip(names, moves, strict=True))
    own = [{"D4": 0.6, "Q16": 0.4}, {"Q4": 0.2, "D16": 0.8}, {"K10": 0.5, "C3": 0.5}]
    strong = [{"D4": 0.3, "Q16": 0.7}, {"Q4": 0.02, "D16": 0.98}, {"K10": 0.6, "C3": 0.4}]
    calls: list[tuple[int, int]] = []

    def policy(planes: np.ndarray, rank: int) -> np.ndarray:
        calls.append((len(planes), rank))
        table = {6: own, 3: strong}[rank]
        out = np.full((len(planes), go.num_actions), -np.inf)
        for row, probs in enumerate(table):
            for name, p in probs.items():
                out[row, m[name]] = math.log(p) + 7.0  # any shift: normalised per row
        return out

    review = review_game(record, 0, GO_RANKS, "3d", steps=3, top=3, policy=policy)
    assert calls == [(3, 6), (3, 3)]
    assert (review.own_rank, review.stronger_rank, review.moves) == ("3d", "6d", 3)
    # K10's gap, log(0.5 / 0.6), is negative: 6d likes it more, so it is not marked
    assert [r.text for r in review.marked] == ["Q4", "D4"]
    assert [r.ply for r in review.marked] == [2, 0]
    assert [r.gap for r in review.marked] == pytest.approx([math.log(10), math.log(2)], abs=1e-12)
    assert [r.p_own for r in review.marked] == pytest.approx([0.2, 0.6], abs=1e-12)
    assert [r.p_stronger for r in review.marked] == pytest.approx([0.02, 0.3], abs=1e-12)
    assert [r.preferred_text for r in review.marked] == ["D16", "Q16"]
    assert [r.p_preferred for r in review.marked] == pytest.approx([0.98, 0.7], abs=1e-12)
    assert review.marked[0].value_played is None and not review.values  # no value function
    top1 = review_game(record, 0, GO_RANKS, "3d", steps=3, top=1, policy=policy)
    assert [r.text for r in top1.marked] == ["Q4"]
    # White's moves under the same tables: in each row the other move's point holds Black's
    # stone already, so the legal-move mask leaves White's move alone at probability 1 for
    # both ranks (gap 0): nothing to mark
    white = review_game(record, 1, GO_RANKS, "3d", steps=3, top=3, policy=policy)
    assert (white.moves, white.marked) == (3, [])


def test_gap_ties_and_the_stronger_rank() -> None:
    assert largest_gaps(np.log([0.5, 0.5, 0.9]), np.log([0.25, 0.25, 0.9]), 2) == [0, 1]
    assert largest_gaps(np.log([0.5, 0.2, 0.9]), np.log([0.25, 0.4, 0.9]), 3) == [0]
    assert stronger_rank(GO_RANKS, "1-2K", 2) == (9, 7, None)
    i, j, note = stronger_rank(GO_RANKS, "8d", 3)
    assert (i, j) == (1, 0)
    assert note == "8d is 1 step(s) below the strongest rank: compared with 9d, not 3 steps up"
    with pytest.raises(BadValueError, match=r"^9d is the strongest rank of the network"):
        stronger_rank(GO_RANKS, "9d", 1)
    with pytest.raises(BadValueError, match=r"^rank '30k' is not one of 9d, 8d"):
        stronger_rank(GO_RANKS, "30k", 1)


def _gaps(output: str) -> list[float]:
    return [float(part.split(")")[0]) for part in output.split("(gap ")[1:]]


def test_review_command_prints_the_marked_moves_of_a_game(tmp_path: Path) -> None:
    text, counts = go_file(2, 24, seed=21)
    path = tmp_path / "mine.sgf"
    path.write_text(text)
    starts = [i + 1 for i, line in enumerate(text.splitlines()) if line.startswith("(;")]
    args = ["review", str(path), "-p", "alice", "--rank", "3d", "--stronger", "2", "--top", "4"]
    result = CliRunner().invoke(app, [*args, "--game", "2", "--values"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"alice ({path}:{starts[1]}): {counts[1]} moves compared at 3d and 5d (go-play)"
    )
    marked = [line for line in lines if line.startswith("move ")]
    assert len(marked) == 4
    gaps = [float(part.split(")")[0]) for part in result.output.split("(gap ")[1:]]
    assert len(gaps) == 4 and gaps == sorted(gaps, reverse=True)
    assert " played, " in marked[0] and " preferred" in marked[0]
    assert lines[-1].startswith("values: the play network's value head at the stronger rank")
