"""Strength adjustment of MCTS-based players (Wu et al., AAAI 2019): the core a player uses.

* :mod:`~sparring.strength.selection`: the SA move policy, root visit counts -> move
  distribution (``p_i ∝ N_i^z`` over the candidates ``N_i >= R_th N_max``) and the floor
  below ``z = -inf``;
* :mod:`~sparring.strength.target`: calibration files and the setting for a target Elo;
* :mod:`~sparring.strength.controller`: the interface of a strength controller, which picks
  the setting for every move (fixed today; dynamic adjustment later).

This package depends only on :mod:`sparring.errors` and numpy/scipy: it must not import
:mod:`sparring.players`, :mod:`sparring.evaluation` or :mod:`sparring.experiments`.  The
experiments that *measure* strength (calibration, the strength analysis, reports, target
checks in play) live in :mod:`sparring.experiments`, above evaluation.  The player itself is
:mod:`sparring.players.strength` (spec ``sa:...``).
"""

from sparring.strength.controller import (
    FixedController,
    MoveContext,
    StrengthController,
)
from sparring.strength.selection import (
    PAPER_RTH,
    StrengthSetting,
    candidate_mask,
    floor_schedule,
    sa_distribution,
    sephton_distribution,
    strength_distribution,
    top_n_distribution,
)
from sparring.strength.target import (
    Calibration,
    CalibrationPoint,
    StrengthRangeWarning,
    TargetResult,
    load_calibration,
    save_calibration,
    setting_for_elo,
)

__all__ = [
    "PAPER_RTH",
    "Calibration",
    "CalibrationPoint",
    "FixedController",
    "MoveContext",
    "StrengthController",
    "StrengthRangeWarning",
    "StrengthSetting",
    "TargetResult",
    "candidate_mask",
    "floor_schedule",
    "load_calibration",
    "sa_distribution",
    "save_calibration",
    "sephton_distribution",
    "setting_for_elo",
    "strength_distribution",
    "top_n_distribution",
]
