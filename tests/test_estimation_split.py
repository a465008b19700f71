"""The choose / report split of the held-out players in ``se-eval``.

The reference form (mean or line) is chosen on one part of the held-out players and every
figure is reported on the other; these tests pin the split (disjoint in players, stable, exact
on hand-worked names) and show that the choice reads the choose part only, down to
``evaluate_run`` (with the data, the network and the scoring replaced by small synthetic
stand-ins).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sparring.errors import BadValueError, IncompatibleError  # noqa: E402
from sparring.estimation.data import CHESS_RANKS, PairSet  # noqa: E402
from sparring.estimation.predict import (  # noqa: E402
    CHOOSE,
    NEITHER,
    REPORT,
    choose_reference_fit,
    choose_report_parts,
    fit_references,
    make_units,
    player_hash,
)
from sparring.nn.strength_net import (  # noqa: E402
    StrengthNetConfig,
    build_strength_model,
    load_strength_model,
    save_strength_model,
)

TINY_NET: dict[str, Any] = {
    "blocks": 1,
    "channels": 8,
    "head_channels": 8,
    "head_hidden": 16,
    "value_hidden": 16,
}


# ---- the split ---------------------------------------------------------------------------------
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]


def test_focus_players_of_a_rank_alternate_in_the_order_of_a_fixed_hash() -> None:
    # pinned: changing PART_SALT or the hash reorders the players
    order = ["alice", "dave", "heidi", "grace", "erin", "judy", "ivan", "bob", "carol", "frank"]
    assert sorted(NAMES, key=player_hash) == order
    parts = choose_report_parts([(n,) for n in NAMES], [0] * len(NAMES))
    expected = {name: i % 2 for i, name in enumerate(order)}  # choose, report, choose, ...
    assert parts.tolist() == [expected[n] for n in NAMES]
    assert CHOOSE == 0 and REPORT == 1


def test_games_follow_their_focus_player_and_mixed_games_are_dropped() -> None:
    units = [
        ("alice", "bob"),  # focus alice (3 games): choose; but bob is in a report game
        ("alice", "carol"),
        ("alice", "dave"),
        ("bob", "erin"),  # focus bob (2 games): report; bob also in a choose game
        ("frank", "grace"),  # rank 1: focus grace (2 games), choose
        ("heidi", "grace"),
        ("ivan",),  # focus ivan (2 games), report (grace < ivan in the hash order)
        ("judy", "ivan"),
    ]
    parts = choose_report_parts(units, [0, 0, 0, 0, 1, 1, 1, 1])
    assert parts.tolist() == [NEITHER, CHOOSE, CHOOSE, NEITHER, CHOOSE, CHOOSE, REPORT, REPORT]
    with pytest.raises(ValueError, match="length"):
        choose_report_parts(units, [0, 1])


def _random_units(rng: np.random.Generator, n: int, pool: int) -> list[tuple[str, ...]]:
    return [
        tuple(f"p{k}" for k in rng.choice(pool, size=int(rng.integers(1, 3)), replace=False))
        for _ in range(n)
    ]


def test_split_is_disjoint_in_players_and_stable() -> None:
    rng = np.random.default_rng(5)
    units = _random_units(rng, 400, 500)  # many players in several units
    assert len({p for u in units for p in u}) < sum(len(u) for u in units)
    ranks = rng.integers(0, 4, size=len(units))
    parts = choose_report_parts(units, ranks)
    players = {
        part: {p for u, q in zip(units, parts, strict=True) if q == part for p in u}
        for part in (CHOOSE, REPORT)
    }
    assert players[CHOOSE] and players[REPORT]
    assert not players[CHOOSE] & players[REPORT]
    assert (parts == NEITHER).any()  # this graph has players meeting both parts
    # the same units in another order: every unit keeps its part
    order = rng.permutation(len(units))
    again = choose_report_parts([units[i] for i in order], ranks[order])
    assert np.array_equal(again, parts[order])
    # twice the same: the same parts (no seed, no state)
    assert np.array_equal(choose_report_parts(units, ranks), parts)
    # every rank's kept units are split about evenly (the focus players alternate)
    for r in range(4):
        kept = parts[(ranks == r) & (parts != NEITHER)]
        assert abs(int((kept == CHOOSE).sum()) - int((kept == REPORT).sum())) < 0.3 * kept.size


# ---- the choice reads the choose part only -----------------------------------------------------
MEANS = np.array([2.0, 1.9, -1.0])
"""Candidate means; their line is 29/30 - 1.5 (i - 1): [2.467, 0.967, -0.533]."""
AT_MEANS = np.array([2.0, 1.9, -1.0])
"""Game scores on the means: the means predict all three ranks, the line misses rank 1."""
LINE_WINS = np.array([1.92, 0.9, -0.6])
"""Game scores where the line predicts all three and the means miss rank 0 (1.92 is nearer
1.9 than 2.0)."""


def _pairset(units: Sequence[tuple[str, ...]], ranks: list[int], n_ranks: int = 3) -> PairSet:
    """A pair set of game units (two pairs per side) with the given players and ranks."""
    side_game: list[int] = []
    side_player: list[str] = []
    side_rank: list[int] = []
    side_of: list[int] = []
    for g, (names, r) in enumerate(zip(units, ranks, strict=True)):
        for name in names:
            side_game.append(g)
            side_player.append(name)
            side_rank.append(r)
    for s in range(len(side_game)):
        side_of += [s, s]
    n = len(side_of)
    unit = np.array(side_of, dtype=np.int32)
    return PairSet(
        game="chess",
        ranks=tuple(f"r{i}" for i in range(n_ranks)),
        bits=np.zeros((n, 1), np.uint8),
        consts=np.zeros((n, 0), np.float32),
        action=np.zeros(n, np.int32),
        value=np.zeros(n, np.int8),
        move_number=(np.arange(n) % 40).astype(np.int16),
        random_actions=np.zeros((n, 0), np.int32),
        rank=np.array(side_rank, dtype=np.int8)[unit],
        unit=unit,
        unit_rank=np.array(side_rank, dtype=np.int8),
        unit_game=np.array(side_game, dtype=np.int32),
        unit_side=np.zeros(len(side_game), np.int8),
        unit_player=np.array(side_player, dtype=str),
        unit_moves=np.full(len(side_game), 2, np.int32),
        game_source=np.array([f"g{g}" for g in range(len(units))], dtype=str),
    )


def _heldout(per_rank: int = 12) -> tuple[PairSet, np.ndarray]:
    """Held-out games, two players each, none shared; and which are in the report part."""
    units = [(f"w{r}-{k}", f"b{r}-{k}") for r in range(3) for k in range(per_rank)]
    ranks = [r for r in range(3) for _ in range(per_rank)]
    pairs = _pairset(units, ranks)
    parts = choose_report_parts(units, ranks)
    assert (parts != NEITHER).all()  # no player plays twice
    report = parts == REPORT
    for part in (report, ~report):  # both parts hold every rank
        assert set(np.array(ranks)[part].tolist()) == {0, 1, 2}
    return pairs, report


def _scores(
    pairs: PairSet, report: np.ndarray, on_choose: np.ndarray, on_report: np.ndarray
) -> np.ndarray:
    """Per-pair scores: every pair of a game gets its rank's value of its part."""
    units = make_units(pairs, "game")
    unit_report = report[np.unique(pairs.unit_game)]  # game units in game order
    value = np.where(unit_report, on_report[units.rank], on_choose[units.rank])
    return value[units.of_pair][:, None].astype(np.float64)


def test_choose_reference_fit_picks_the_form_that_predicts_the_choose_part() -> None:
    pairs, _ = _heldout()
    units = make_units(pairs, "game")
    at_means = AT_MEANS[units.rank][units.of_pair]
    choice = choose_reference_fit(at_means, units, MEANS, max_games=5, draws=20)
    assert choice.chosen == "mean"
    assert choice.criterion["mean"] == pytest.approx(1.0)
    assert choice.criterion["line"] == pytest.approx(2 / 3)
    assert choice.units_per_rank == [12, 12, 12]
    line_wins = LINE_WINS[units.rank][units.of_pair]
    choice = choose_reference_fit(line_wins, units, MEANS, max_games=5, draws=20)
    assert choice.chosen == "line" and choice.criterion["mean"] == pytest.approx(2 / 3)
    assert np.allclose(fit_references(MEANS, "line"), [2.9 / 3 + 1.5, 2.9 / 3, 2.9 / 3 - 1.5])


def test_split_heldout_keeps_each_game_and_its_scores_in_one_part() -> None:
    from sparring.estimation.report import split_heldout

    pairs, report = _heldout()
    scores = np.arange(len(pairs), dtype=np.float64)[:, None]
    (cp, cs), (rp, rs), dropped = split_heldout(pairs, scores)
    assert dropped == [0, 0, 0]
    assert len(cp) + len(rp) == len(pairs)
    assert not set(cp.unit_player[cp.unit].tolist()) & set(rp.unit_player[rp.unit].tolist())
    # the scores travel with their pairs: pair k scored k
    assert sorted(cs[:, 0].tolist() + rs[:, 0].tolist()) == list(range(len(pairs)))
    game_of = pairs.unit_game[pairs.unit]
    assert set(game_of[rs[:, 0].astype(int)].tolist()) == set(np.flatnonzero(report).tolist())
    # a part without some rank is refused
    one_rank = _pairset([("ivan",), ("alice",)], [0, 0], n_ranks=2)  # rank 1 has no game
    with pytest.raises(IncompatibleError, match="no game of rank"):
        split_heldout(one_rank, np.zeros((len(one_rank), 1)))


def _fake_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on_report: np.ndarray) -> Any:
    """``evaluate_run`` on synthetic data: candidate means MEANS, held-out games scored
    AT_MEANS on the choose part and ``on_report`` on the report part."""
    from sparring.estimation import report as report_module

    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    cfg = {"game": "chess", "eval_max_games": 5, "eval_draws": 20, "eval_cross_fit": 0}
    cfg["eval_train_sample"] = 0
    (run / "config.json").write_text(json.dumps(cfg))
    model = build_strength_model(StrengthNetConfig("chess", CHESS_RANKS, "se", **TINY_NET))
    save_strength_model(run / "model.pt", model, {"step": 7})
    held, report = _heldout()
    cand_units = [(f"c{r}-{k}", f"d{r}-{k}") for r in range(3) for k in range(4)]
    cand = _pairset(cand_units, [r for r in range(3) for _ in range(4)])
    sets = {"val": held, "cand": cand}
    scores = {
        "val": _scores(held, report, AT_MEANS, on_report),
        "cand": MEANS[cand.rank.astype(int)][:, None],
    }
    monkeypatch.setattr(report_module, "build_dataset", lambda *a, **k: tmp_path)
    monkeypatch.setattr(report_module, "load_split", lambda folder, split: sets[split])
    monkeypatch.setattr(
        report_module, "_scores", lambda run, name, step, model, pairs, cfg, progress: scores[name]
    )
    return report_module.evaluate_run(run, show_progress=False)


def test_evaluate_run_chooses_on_the_choose_part_and_reports_on_the_report_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sparring.estimation.report import write_report

    ev = _fake_run(tmp_path, monkeypatch, on_report=LINE_WINS)
    # the choose part sits on the means: the means are chosen, though the line would
    # predict the report part perfectly
    assert ev.heldout == "split" and ev.choice is not None
    assert ev.choice.chosen == "mean" and ev.config.reference_fit == "mean"
    assert ev.val_units == [6, 6, 6]  # measured on the report part only (12 a rank held out)
    assert ev.choice.units_per_rank == [6, 6, 6]
    assert ev.dropped_units == [0, 0, 0]
    by_name = {m.name: m for m in ev.methods}
    assert ev.methods[0].name == "SE"  # the chosen form comes first
    assert np.allclose(by_name["SE"].curves.mean_exact, 2 / 3)  # mean refs miss rank 0 here
    assert np.allclose(by_name["SE (line)"].curves.mean_exact, 1.0)
    _, meta = load_strength_model(ev.run / "estimator.pt")
    assert meta["references"]["fit"] == "mean"
    assert meta["references"]["chosen_on"]["scores"] == {"mean": 1.0, "line": 0.6667}
    assert meta["evaluation"]["heldout"] == "report part of the held-out players"
    text = write_report([ev], tmp_path / "out", "chess").read_text()
    assert "every figure below is measured on the *report* part only" in text
    assert "| 100.0% | 66.7% | **mean** |" in text
    # other report-part scores change the figures, not the choice
    ev2 = _fake_run(tmp_path, monkeypatch, on_report=AT_MEANS)
    assert ev2.choice is not None and ev2.choice.criterion == ev.choice.criterion
    assert np.allclose({m.name: m for m in ev2.methods}["SE"].curves.mean_exact, 1.0)


def test_evaluate_run_rejects_an_unknown_heldout_protocol(tmp_path: Path) -> None:
    from sparring.estimation.report import evaluate_run

    with pytest.raises(BadValueError, match="heldout"):
        evaluate_run(tmp_path, heldout="half")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--heldout", "all"], "--reference-fit choose needs --heldout split"),
        (["--heldout", "half"], "--heldout must be one of split, all"),
        (["--reference-fit", "cubic"], "--reference-fit must be choose, mean or line"),
    ],
)
def test_se_eval_refuses_a_choice_without_a_split_in_one_line(
    tmp_path: Path,
    args: list[str],
    needle: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import sys

    from sparring.cli import main

    monkeypatch.setattr(sys, "argv", ["sparring", "se-eval", "chess", str(tmp_path), *args])
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_whole_player_accuracy_counts_only_games_with_pairs_in_the_part() -> None:
    from sparring.estimation.report import _player_units

    # "ann" plays 6 games, "bo" 5; each game one side (one unit), two pairs per side
    units = [("ann",)] * 6 + [("bo",)] * 5
    pairs = _pairset(units, [0] * 6 + [1] * 5, n_ranks=2)
    of_pair, player_rank, n = _player_units(pairs)
    assert n == 2 and sorted(player_rank.tolist()) == [0, 1]
    # keep ann's six games and two of bo's: bo has no longer five games in the set
    keep = np.flatnonzero(pairs.unit < 8)
    of_pair, player_rank, n = _player_units(pairs.take(keep))
    assert n == 1 and player_rank.tolist() == [0]
    assert (of_pair[:12] == 0).all() and (of_pair[12:] == -1).all()
