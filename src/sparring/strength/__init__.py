"""Strength adjustment of MCTS-based players (Wu et al., AAAI 2019) and its calibration.

* :mod:`~sparring.strength.selection`: the SA move policy, root visit counts -> move
  distribution (``p_i ∝ N_i^z`` over the candidates ``N_i >= R_th N_max``) and the floor
  below ``z = -inf``;
* :mod:`~sparring.strength.calibration`: plays SA agents over a grid of ``(z, R_th)`` against
  the paper's baseline (and a rating ladder) and writes a calibration file;
* :mod:`~sparring.strength.analysis`: the paper's strength analysis (Eq. 5-17: ``E_norm(z)``
  and the strength exponent ``H``);
* :mod:`~sparring.strength.target`: calibration files and the setting for a target Elo;
* :mod:`~sparring.strength.report`: tables and plots (the paper's Table 1-2, Fig. 1-4).

The player itself is :mod:`sparring.players.strength` (spec ``sa:...``).
"""

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
    TargetResult,
    load_calibration,
    save_calibration,
    setting_for_elo,
)

__all__ = [
    "PAPER_RTH",
    "Calibration",
    "CalibrationPoint",
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
