"""The strength controller interface (sparring.strength.controller) and its fixed setting."""

from __future__ import annotations

import pytest

from sparring.strength import FixedController, MoveContext, StrengthController
from sparring.strength.selection import StrengthSetting


def test_fixed_controller_plays_one_setting_and_keeps_no_state() -> None:
    setting = StrengthSetting(-1.5, 0.25)
    controller = FixedController(setting)
    assert isinstance(controller, StrengthController)
    controller.new_game(1)
    contexts = [MoveContext(0, 0), MoveContext(7, 1, root_value=-0.9), MoveContext(40, 0, 1.0)]
    assert [controller.setting(c) for c in contexts] == [setting] * 3
    controller.game_over(0.0)
    controller.game_over(1.0)  # results change nothing
    assert controller.setting(MoveContext(3, 1, 0.2)) is setting
    assert controller.save_state() is None
    controller.restore_state(None)
    with pytest.raises(ValueError, match="keeps no state"):
        controller.restore_state({"z": 1.0})
    assert repr(controller) == "FixedController(z=-1.5,rth=0.25)"


def test_move_context_win_rate_and_checks() -> None:
    assert MoveContext(5, 0, root_value=0.5).win_rate == 0.75
    assert MoveContext(5, 0, root_value=-1.0).win_rate == 0.0
    assert MoveContext(0, 1).win_rate is None
    for bad in ((-1, 0, None), (0, 2, None), (0, 0, 1.5)):
        with pytest.raises(ValueError):
            MoveContext(*bad)
