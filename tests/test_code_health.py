"""The shared pieces that replaced copies: one ``DEFAULT_C_PUCT``, one config
base for matches and series, one training plot, and the adaptive experiment's typed reading
of an opponent's z."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import sparring
from sparring.errors import ConfigError
from sparring.evaluation.match import HeadToHeadConfig, MatchConfig
from sparring.evaluation.series import SeriesConfig
from sparring.experiments.adapt import opponent_z
from sparring.players.settings import SASettings
from sparring.rundir import Curve, Panel, TrainingPlot
from sparring.strength.selection import StrengthSetting

SRC = Path(sparring.__file__).resolve().parent


def test_default_c_puct_is_defined_once() -> None:
    from sparring.search.hooks import DEFAULT_C_PUCT, PriorBonus
    from sparring.search.puct import PUCTConfig
    from sparring.search.semcts import SEMCTSConfig
    from sparring.training.config import TrainConfig

    definitions = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "DEFAULT_C_PUCT" for t in node.targets)
    ]
    assert definitions == ["search/hooks.py"]
    assert DEFAULT_C_PUCT == 1.25
    assert PUCTConfig().c_puct == PriorBonus(0, 0.0).c_puct == SEMCTSConfig(0.0).c_puct == 1.25
    assert TrainConfig.for_game("connect4").c_puct == 1.25


def test_match_and_series_configs_share_one_base() -> None:
    match = MatchConfig("tictactoe", "random", "mcts1", 10, seed=3, workers=2)
    series = SeriesConfig("tictactoe", "random", "mcts1", 4, 2, seed=3, workers=2)
    assert isinstance(match, HeadToHeadConfig) and isinstance(series, HeadToHeadConfig)
    assert match.specs == series.specs == ("random", "mcts1")
    assert match.to_mapping() == {
        "game": "tictactoe",
        "spec_a": "random",
        "spec_b": "mcts1",
        "seed": 3,
        "workers": 2,
        "games": 10,
    }
    assert SeriesConfig.from_mapping(series.to_mapping()) == series
    # The checks run in the same order with the same messages as before the merge.
    with pytest.raises(ConfigError, match=r"^match config: games must be >= 1, not 0$"):
        MatchConfig("tictactoe", "a", "b", games=0, seed=-1)
    with pytest.raises(ConfigError, match=r"^series config: series must be >= 1, not 0$"):
        SeriesConfig("tictactoe", "a", "b", series=0, workers=0)
    with pytest.raises(ConfigError, match=r"^series config: workers must be >= 1, not 0$"):
        SeriesConfig("tictactoe", "a", "b", workers=0)
    with pytest.raises(ConfigError, match=r"unknown key 'games' in series config"):
        SeriesConfig.from_mapping({"game": "tictactoe", "spec_a": "a", "spec_b": "b", "games": 3})


def test_training_plot_curves_and_file(tmp_path: Path) -> None:
    records = [
        {"iteration": 1, "loss": 1.0},
        {"iteration": 2, "loss": 0.5, "score_vs_random": 0.75, "score_vs_mcts1": 0.25},
    ]
    assert Curve("score_vs_*").lines(records) == [
        ("score_vs_mcts1", "mcts1"),
        ("score_vs_random", "random"),
    ]
    assert Curve("loss", "train").lines(records) == [("loss", "train")]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records) + '{"torn')
    plot = TrainingPlot(
        "iteration",
        (Panel("loss", (Curve("loss", "train"),)), Panel("score", (Curve("score_vs_*"),))),
        figsize=(6, 3),
    )
    plot.write(log, tmp_path / "training.png")
    assert (tmp_path / "training.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl", "training.png"]
    plot.write(tmp_path / "empty.jsonl", tmp_path / "empty.png")  # no log: no file
    assert not (tmp_path / "empty.png").exists()


def test_opponent_z_reads_typed_settings() -> None:
    assert opponent_z("sa:z=2,rth=0.1") == 2.0
    assert opponent_z("sa:base=uct,z=-1.5") == -1.5
    assert opponent_z("sa:elo=1500") is None  # an Elo, not a fixed setting
    assert opponent_z("mcts1") is None
    assert opponent_z("no-such-kind:z=1") is None
    assert opponent_z(SASettings(strength=StrengthSetting(-0.5))) == -0.5  # settings as given


def test_adapt_experiment_reads_settings_not_spec_text() -> None:
    """``experiments/adapt`` parses spec text only through ``parse_player``: no
    ``PlayerSpec``, and option text is read only from a plug-in kind's
    ``FactorySettings.parsed`` (a kind without typed settings)."""
    offenders = []
    for path in sorted((SRC / "experiments" / "adapt").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            name = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Name) and node.id == "PlayerSpec":
                offenders.append(f"{name} PlayerSpec")
            if isinstance(node, ast.alias) and node.name == "PlayerSpec":
                offenders.append(f"{path.name} imports PlayerSpec")
            if isinstance(node, ast.Attribute) and node.attr == "options":
                parent = node.value
                if not (isinstance(parent, ast.Attribute) and parent.attr == "parsed"):
                    offenders.append(f"{name} .options")
    assert offenders == []
