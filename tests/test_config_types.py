"""Typed run configs read from TOML: a value of the wrong type is a ConfigError naming the key,
the expected type and the value, raised before any range check compares it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sparring.configfile import describe_type, normalise_field
from sparring.errors import ConfigError
from sparring.estimation.train import SEConfig
from sparring.training.config import TrainConfig

CONFIGS = Path(__file__).parents[1] / "configs"


@pytest.mark.parametrize(
    ("hint", "words"),
    [
        (int, "an integer"),
        (float, "a number"),
        (bool, "true or false"),
        (str, "a string"),
        (tuple[int, ...], "a list of integers"),
        (tuple[str, ...], "a list of strings"),
        (int | None, "an integer or nothing"),
    ],
)
def test_describe_type(hint: object, words: str) -> None:
    assert describe_type(hint) == words


def test_normalise_field_accepts_and_converts() -> None:
    assert normalise_field("c", "k", int, np.int64(3)) == 3
    assert type(normalise_field("c", "k", int, np.int64(3))) is int
    assert normalise_field("c", "k", float, 2) == 2.0
    assert type(normalise_field("c", "k", float, 2)) is float
    assert normalise_field("c", "k", tuple[int, ...], [1, 2]) == (1, 2)
    assert normalise_field("c", "k", tuple[int, str], [1, "a"]) == (1, "a")
    assert normalise_field("c", "k", int | None, None) is None
    assert normalise_field("c", "k", int | None, 4) == 4
    assert normalise_field("c", "k", bool, np.bool_(True)) is True


@pytest.mark.parametrize(
    ("hint", "value"),
    [
        (int, "3"),
        (int, 3.0),
        (int, True),
        (float, "0.5"),
        (float, False),
        (bool, 1),
        (str, 3),
        (tuple[int, ...], "1,2"),
        (tuple[int, ...], [1, 2.5]),
        (tuple[int, str], [1]),
        (int | None, "x"),
    ],
)
def test_normalise_field_rejects(hint: object, value: object) -> None:
    with pytest.raises(ConfigError, match=rf"^c: k must be {describe_type(hint)}, not "):
        normalise_field("c", "k", hint, value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('channels = "abc"', "train config: channels must be an integer, not 'abc'"),
        ("simulations = 2.5", "train config: simulations must be an integer, not 2.5"),
        ("iterations = true", "train config: iterations must be an integer, not True"),
        ('temperature = "hot"', "train config: temperature must be a number, not 'hot'"),
        ("backend = 1", "train config: backend must be a string, not 1"),
        (
            'eval_opponents = "random"',
            "train config: eval_opponents must be a list of strings, not 'random'",
        ),
        (
            'learning_rate_drops = [10, "x"]',
            "train config: learning_rate_drops must be a list of integers, not [10, 'x']",
        ),
    ],
)
def test_train_config_wrong_types_name_the_key(tmp_path: Path, line: str, message: str) -> None:
    text = (CONFIGS / "connect4.toml").read_text()
    key = line.split(" = ")[0]
    kept = [x for x in text.splitlines() if not x.startswith(f"{key} ")]
    path = tmp_path / "c.toml"
    path.write_text("\n".join([*kept, line]) + "\n")
    with pytest.raises(ConfigError) as info:
        TrainConfig.from_toml(path, "connect4")
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('channels = "abc"', "se config: channels must be an integer, not 'abc'"),
        ("steps = 1e3", "se config: steps must be an integer, not 1000.0"),
        ('val_fraction = "0.1"', "se config: val_fraction must be a number, not '0.1'"),
        ("augment = 1", "se config: augment must be true or false, not 1"),
        ("variant = 2", "se config: variant must be a string, not 2"),
        ("lr_decay_steps = 100", "se config: lr_decay_steps must be a list of integers, not 100"),
        (
            "lr_decay_steps = [1.5]",
            "se config: lr_decay_steps must be a list of integers, not [1.5]",
        ),
    ],
)
def test_se_config_wrong_types_name_the_key(tmp_path: Path, line: str, message: str) -> None:
    text = (CONFIGS / "se-go.toml").read_text()
    key = line.split(" = ")[0]
    kept = [x for x in text.splitlines() if not x.startswith(f"{key} ")]
    path = tmp_path / "c.toml"
    path.write_text("\n".join([*kept, line]) + "\n")
    with pytest.raises(ConfigError) as info:
        SEConfig.from_toml(path, "go")
    assert str(info.value) == message


def test_direct_construction_is_checked_before_range_checks() -> None:
    with pytest.raises(ConfigError, match="channels must be an integer, not 'abc'"):
        TrainConfig(game="connect4", channels="abc")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="blocks must be an integer, not None"):
        SEConfig(game="go", blocks=None)  # type: ignore[arg-type]


def test_numbers_of_the_right_kind_are_accepted() -> None:
    cfg = TrainConfig.from_mapping({"game": "connect4", "learning_rate": 1, "seed": np.int64(3)})
    assert cfg.learning_rate == 1.0 and type(cfg.learning_rate) is float
    assert cfg.seed == 3 and type(cfg.seed) is int
    se = SEConfig.from_mapping({"game": "go", "lr_decay_steps": [5, 9], "momentum": 0})
    assert se.lr_decay_steps == (5, 9) and se.momentum == 0.0
    assert SEConfig.from_mapping(se.to_mapping()) == se
