"""What the dynamic strength adjustment experiment reads from player specs: the kinds and
modes it treats apart, the un-adapted baseline of an adaptive spec, an opponent's fixed z, and
whether a spec is one of the AlphaDDA paper's players or opponents."""

from __future__ import annotations

from typing import Any

from sparring.errors import SparringError
from sparring.experiments.alphadda_paper import PAPER_OPPONENTS
from sparring.players.alphadda import DEFAULT_ROWS, TABLE_1, TABLE_2, TABLE_3
from sparring.players.registry import PlayerSpec, parse_player
from sparring.players.settings import DSA_DEFAULT_MODE, SASettings
from sparring.strength.dsa import BayesConfig, EloInterGameConfig, EloIntraGameConfig

ALPHADDA_KINDS = ("alphadda1", "alphadda2", "alphadda3")
"""Player kinds of AlphaDDA (:mod:`sparring.players.alphadda`)."""

INTRA_MODES = ("intra", "elo-intra")
"""``mode=`` values of the ``dsa`` kind that adapt within a game (Table 4 analogue)."""

SEARCH_KEYS = ("base", "model", "sims", "cpuct", "c", "open")
"""Options of an adaptive spec copied into its default baseline (the search it adapts)."""

ELO_MODES = ("elo-inter", "elo-intra", "bayes")
"""``mode=`` values of the ``dsa`` kind that adapt in Elo through the calibration."""


def default_baseline(adaptive: str) -> str:
    """The un-adapted player of an adaptive spec: an ``sa`` player with the adaptive spec's
    search options (:data:`SEARCH_KEYS`) at its starting setting, held fixed.

    AlphaDDA kinds (``alphadda1-3``): ``az`` with the spec's ``model``, ``cpuct``, ``sims``
    and ``rootrand`` (AlphaZero, the player AlphaDDA weakens).
    The z-space modes (``inter``, ``intra``, and other kinds than ``dsa``): ``z = z0`` (0 by
    default) at ``R_th = rth`` (0.1), the paper's "w/o DSA" player (its SA player at z = 0);
    the Elo-space modes: the calibrated setting for their first target (``elo0``,
    default 1500), ``bayes``: for its prior mean (``prior``, default 1500).
    """
    parsed = PlayerSpec.parse(adaptive)
    options = parsed.options
    if parsed.kind in ALPHADDA_KINDS:
        az = [f"{k}={options[k]}" for k in ("model", "cpuct", "sims", "rootrand") if k in options]
        return "az:" + ",".join(az) if az else "az"
    mode = adaptive_mode(adaptive)
    search = [f"{k}={v}" for k, v in options.items() if k in SEARCH_KEYS]
    if mode not in ELO_MODES:
        return "sa:" + ",".join(
            [*search, f"rth={options.get('rth', '0.1')}", f"z={options.get('z0', '0')}"]
        )
    if "calibration" in options:
        search.append(f"calibration={options['calibration']}")
    if mode == "bayes":
        start = options.get("prior", f"{BayesConfig().prior_mean:g}")
    elif mode == "elo-inter":
        start = options.get("elo0", f"{EloInterGameConfig().elo0:g}")
    else:
        start = options.get("elo0", f"{EloIntraGameConfig().elo0:g}")
    return "sa:" + ",".join([*search, f"elo={start}"])


def adaptive_mode(spec: str) -> str:
    """The adaptation mode of an adaptive spec: a ``dsa`` spec's ``mode`` (its default when
    absent), ``inter`` for other kinds unless they have a ``mode=`` option."""
    parsed = PlayerSpec.parse(spec)
    if parsed.kind == "dsa":
        return parsed.options.get("mode", DSA_DEFAULT_MODE).lower()
    return parsed.options.get("mode", "inter").lower()


def opponent_z(spec: str) -> float | None:
    """The fixed z of an SA opponent spec (``sa:...,z=Z``), read from its typed settings
    (:class:`~sparring.players.settings.SASettings`); None for another kind, an SA player at
    an Elo (no fixed setting), or a spec that does not parse."""
    try:
        settings = parse_player(spec)
    except SparringError:
        return None
    if not isinstance(settings, SASettings) or settings.strength is None:
        return None
    return float(settings.strength.z)


PAPER_ROW_KEYS: dict[str, tuple[str, ...]] = {
    "alphadda1": ("nh", "asim", "bsim0", "nmax"),
    "alphadda2": ("nh", "adrop", "pdrop0"),
    "alphadda3": ("nh", "c"),
}
"""The spec options of each AlphaDDA kind that its row of the paper's Tables 1-3 sets."""


def paper_kind(spec: str, game: str | None = None) -> str | None:
    """The AlphaDDA kind of ``spec`` when it is the paper's player, else None: a kind of
    :data:`ALPHADDA_KINDS` with no option but ``model``, ``name``, ``rootrand`` (the author's
    code's random root picks, with which the paper's tables were made) and, given ``game``, the
    options of :data:`PAPER_ROW_KEYS` at the values of the game's row of Tables 1-3
    (``alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200`` on Connect4).  A spec without options is
    the paper's player unless the game has a tuned default row (``TUNED_1`` ... in
    :mod:`sparring.players.alphadda`)."""
    parsed = PlayerSpec.parse(spec)
    kind = parsed.kind
    if kind not in ALPHADDA_KINDS:
        return None
    extra = {k: v for k, v in parsed.options.items() if k not in ("model", "name", "rootrand")}
    if not extra:  # the kind's default row: the paper's unless a tuned row is shipped
        tuned = DEFAULT_ROWS[kind][0]
        return kind if game is None or game not in tuned else None
    tables: dict[str, dict[str, Any]] = {
        "alphadda1": dict(TABLE_1),
        "alphadda2": dict(TABLE_2),
        "alphadda3": dict(TABLE_3),
    }
    row = None if game is None else tables[kind].get(game)
    keys = PAPER_ROW_KEYS[kind]
    if row is None or not set(extra) <= set(keys):
        return None
    for key, text in extra.items():
        try:
            if float(text) != float(row[keys.index(key)]):
                return None
        except ValueError:
            return None
    return kind


def paper_opponent(spec: str) -> str | None:
    """The paper's name of an opponent spec (:data:`~sparring.experiments.alphadda_paper.
    PAPER_OPPONENTS`; options other than ``model`` and ``name`` make it another player, except
    ``rootrand`` of ``az``: the author's code's AlphaZero picks 20% of its root simulations at
    random)."""
    parsed = PlayerSpec.parse(spec)
    same = {"model", "name"} | ({"rootrand"} if parsed.kind == "az" else set())
    if set(parsed.options) <= same:
        return PAPER_OPPONENTS.get(parsed.kind)
    return None
