"""Parameter studies (AlphaDDA Sec. 5.2-5.3, Fig. 3-4): the Elo of a trained AlphaZero as a
function of one parameter (simulations ``N_sim``, ``C_puct`` or the heads' dropout
probability), measured against a fixed ladder of baseline players.

Each value of the parameter is an ``az`` player spec; it plays ``games`` games (colours
alternating) against every ladder opponent through the resumable match machinery, and its
Elo is fitted with the ladder's ratings held fixed (:func:`fit_against_ladder`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from sparring.errors import ConfigError
from sparring.evaluation.backend import Backend
from sparring.evaluation.ladder import Ladder, LadderFit, fit_against_ladder
from sparring.evaluation.match import MatchConfig, run_match
from sparring.evaluation.store import GameStore

PARAMETERS = {"sims": "simulations N_sim", "cpuct": "C_puct", "dropout": "dropout probability"}
"""Parameters a study may vary: the ``az`` spec option and its name in the paper."""


@dataclass(frozen=True)
class StudyConfig:
    """One parameter study."""

    game: str
    model: str
    """Network name or file (as in ``az:model=...``)."""
    parameter: str
    """``sims``, ``cpuct`` or ``dropout``."""
    values: tuple[float, ...]
    opponents: tuple[str, ...] = ("mcts1", "mcts2", "minimax1", "random")
    """Ladder player specs (AlphaDDA's opponents in Sec. 5.2)."""
    games: int = 50
    """Games against each opponent per value (AlphaDDA: 50)."""
    simulations: int | None = None
    """``N_sim`` when the parameter is not ``sims`` (None: the game's Table A1 value)."""
    seed: int = 0
    workers: int = 1

    def __post_init__(self) -> None:
        if self.parameter not in PARAMETERS:
            raise ConfigError(
                f"unknown study parameter {self.parameter!r}; choose one of {', '.join(PARAMETERS)}"
            )
        if not self.values:
            raise ConfigError("a study needs at least one value")
        if self.games < 1 or self.workers < 1:
            raise ConfigError("games and workers must be >= 1")
        for value in self.values:
            if not math.isfinite(value) or value < 0:
                raise ConfigError(
                    f"study values must be finite numbers >= 0, not {value!r}", "values"
                )
            if self.parameter == "sims" and (value != int(value) or value < 1):
                raise ConfigError(f"sims must be whole numbers >= 1, not {value:g}", "values")

    def spec(self, value: float) -> str:
        """The ``az`` spec of the variant with ``parameter = value``."""
        shown = f"{int(value)}" if self.parameter == "sims" else f"{value:g}"
        options = [f"model={self.model}", f"{self.parameter}={shown}"]
        if self.parameter != "sims" and self.simulations is not None:
            options.append(f"sims={self.simulations}")
        options.append(f"name=AZ[{self.parameter}={shown}]")
        return "az:" + ",".join(options)


@dataclass(frozen=True)
class StudyPoint:
    """The measured strength of one variant."""

    value: float
    spec: str
    fit: LadderFit
    scores: dict[str, float]
    """Mean score against each opponent spec."""
    outcomes: dict[str, tuple[int, int, int]]
    """Wins, draws and losses against each opponent spec."""


def run_study(
    config: StudyConfig,
    ladder: Ladder,
    store: GameStore,
    console: Console | None = None,
    *,
    backend: Backend | None = None,
    progress: bool = True,
) -> list[StudyPoint]:
    """Play (or resume) every variant against every ladder opponent and rate it; ``backend``
    plays the games (None: the local pool of ``config.workers`` processes).  Progress bars
    go to ``console`` when ``progress`` (none without a console)."""
    if ladder.game != config.game:
        raise ConfigError(f"the ladder is for {ladder.game}, not {config.game}")
    rungs = [ladder.by_spec(spec) for spec in config.opponents]
    points = []
    for value in config.values:
        spec = config.spec(value)
        elos: list[float] = []
        scores: list[float] = []
        per_opponent: dict[str, float] = {}
        outcomes: dict[str, tuple[int, int, int]] = {}
        for rung in rungs:
            match = MatchConfig(
                game=config.game,
                spec_a=spec,
                spec_b=rung.spec,
                games=config.games,
                seed=config.seed,
                workers=config.workers,
            )
            result = run_match(
                match,
                store,
                progress=progress and console is not None,
                console=console,
                backend=backend,
            )
            mine = [r.score_a for r in result.records]
            elos += [rung.elo] * len(mine)
            scores += mine
            per_opponent[rung.spec] = sum(mine) / len(mine)
            outcomes[rung.spec] = (mine.count(1.0), mine.count(0.5), mine.count(0.0))
        fit = fit_against_ladder(elos, scores)
        points.append(StudyPoint(value, spec, fit, per_opponent, outcomes))
    return points


def study_markdown(config: StudyConfig, ladder: Ladder, points: list[StudyPoint]) -> str:
    """A markdown table of the study."""
    name = PARAMETERS[config.parameter]
    head = " | ".join(config.opponents)
    lines = [
        f"# {config.game}: Elo of AlphaZero ({config.model}) against {name}",
        "",
        f"Ladder ratings held fixed ({ladder.anchor}): "
        + ", ".join(
            f"{ladder.by_spec(o).name} {ladder.by_spec(o).elo:.0f}" for o in config.opponents
        ),
        f"; {config.games} games against each opponent per value, colours alternating.",
        "",
        f"| {config.parameter} | Elo | ± s.e. | {head} |",
        "| ---: | ---: | ---: |" + " ---: |" * len(config.opponents),
    ]
    for p in points:
        cells = " | ".join(f"{p.scores[o]:.2f}" for o in config.opponents)
        lines.append(f"| {p.value:g} | {p.fit.elo:.0f} | {p.fit.stderr:.0f} | {cells} |")
    lines += [
        "",
        "Wins / draws / losses of AlphaZero:",
        "",
        f"| {config.parameter} | {head} |",
        "| ---: |" + " ---: |" * len(config.opponents),
    ]
    for p in points:
        cells = " | ".join("{} / {} / {}".format(*p.outcomes[o]) for o in config.opponents)
        lines.append(f"| {p.value:g} | {cells} |")
    return "\n".join(lines) + "\n"


def plot_study(config: StudyConfig, points: list[StudyPoint], path: Path) -> Path:
    """Elo against the parameter with standard-error bars (the Fig. 3/4 analogue)."""
    from sparring.errors import require_extra

    require_extra("matplotlib", "research", "the study's plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [p.value for p in points]
    ax.errorbar(xs, [p.fit.elo for p in points], yerr=[p.fit.stderr for p in points], marker="o")
    if config.parameter == "sims":
        ax.set_xscale("log")
    ax.set_xlabel(PARAMETERS[config.parameter])
    ax.set_ylabel("Elo")
    ax.set_title(f"{config.game}: AlphaZero strength against {PARAMETERS[config.parameter]}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
