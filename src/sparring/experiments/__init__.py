"""Experiments that measure strength by playing matches (above :mod:`sparring.evaluation`).

* :mod:`~sparring.experiments.calibration`: plays SA agents over a grid of ``(z, R_th)``
  against the paper's baseline (and a rating ladder) and writes a calibration file
  (Wu et al., AAAI 2019, Table 1, Fig. 1-3);
* :mod:`~sparring.experiments.strength_analysis`: the paper's strength analysis (Eq. 5-17:
  ``E_norm(z)`` and the strength exponent ``H``);
* :mod:`~sparring.experiments.calibration_report`: tables and plots of a calibration (the
  paper's Table 1-2, Fig. 1-4);
* :mod:`~sparring.experiments.target_check`: target Elos checked in play against a ladder
  (``sparring strength-check``).

Layering: experiments may import :mod:`sparring.evaluation`, :mod:`sparring.players` and
:mod:`sparring.strength`; none of those imports this package.  Its modules are imported by
name (this ``__init__`` imports nothing, so ``import sparring.experiments.target_check``
does not load the calibration machinery).
"""
