"""Human move matching per rank (Chen, Shih & Wu, ICLR 2025, Tables 1 and 2).

For each rank group, positions are drawn from held-out players' games
(:func:`~sparring.estimation.heldout.held_out_positions`: never from games the estimators
trained on), the same positions for every program; a program's **move match** is the share of
positions where its move equals the move the human played, with a 95% Wilson interval.

Programs
--------
A program is named by text (read only at the command line, :func:`parse_program`):

* ``policy:model=NAME`` -- the estimator ``NAME``'s raw policy head, top-1 over the legal moves
  (the paper's fifth column; ``NAME`` a shipped estimator such as ``go-se-inf`` or a file; a
  play network such as ``chess-play`` is asked at each position's rank group);
  ``policy:model=NAME,sym=yes`` -- the same policy averaged over the rules' symmetric images
  of each position (:func:`~sparring.nn.symmetry.symmetric_log_policy`);
* ``player:SPEC`` -- any player of :func:`~sparring.players.registry.make_player`, one per
  rank: ``{rank}`` in ``SPEC`` is replaced by the rank group of the positions it moves in
  (``player:se-inf-mcts:rank={rank},sims=50``), so the rank-conditioned human-like search
  programs (``mcts``, ``sa-mcts``, ``se-mcts``, ``se-inf-mcts``) plug in as player kinds.

:func:`run_match` returns a :class:`MatchTable`; :func:`write_match` writes ``match.md``,
``match.json`` and ``match.png`` (move match against rank, one line per program).

With a ``judge`` (chess: :class:`~sparring.estimation.quality.StockfishJudge`), every
program's moves and the humans' own moves also get their mean centipawn loss per rank
(``cpl.png``): does a program told to play at a rank play about as well as that rank?
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from sparring.errors import SparringError, require_extra
from sparring.estimation.heldout import (
    HeldOutPositions,
    policy_moves,
    position_logits,
    wilson_interval,
)
from sparring.estimation.quality import LossSummary
from sparring.nn import estimators, strength_net
from sparring.players import registry
from sparring.players.registry import PlayerSpec, check_options
from sparring.players.settings import option_bool
from sparring.rundir import atomic_savefig, atomic_write


class MoveProgram(Protocol):
    """Something that picks a move in each of a set of held-out positions."""

    name: str

    def moves(self, pos: HeldOutPositions) -> npt.NDArray[np.int64]:
        """The program's move in every position of ``pos`` (one action per position)."""
        ...


@dataclass
class PolicyProgram:
    """The raw policy head of a strength estimator or play network: the legal move of highest
    logit (a play network's at the position's rank group)."""

    name: str
    model: str
    """A shipped estimator's name or a model file."""
    symmetric: bool = False
    """Average the log-policy over the rules' symmetric images of each position
    (:func:`~sparring.estimation.heldout.position_logits`)."""

    def moves(self, pos: HeldOutPositions) -> npt.NDArray[np.int64]:
        net, _ = strength_net.load_strength_model(estimators.resolve_estimator(self.model))
        if net.config.game != pos.game:
            raise SparringError(f"{self.model} is a {net.config.game} network, not {pos.game}")
        return policy_moves(position_logits(net, pos, self.symmetric), pos.legal, k=1)[:, 0]


@dataclass
class PlayerProgram:
    """A player of the registry, built once per rank group (``{rank}`` in its spec is the
    group's name), asked for a move in each position of that group."""

    name: str
    spec: str
    seed: int = 0

    def moves(self, pos: HeldOutPositions) -> npt.NDArray[np.int64]:
        rules = pos.game_rules()
        out = np.empty(len(pos), dtype=np.int64)
        for r, rank in enumerate(pos.ranks):
            idx = np.flatnonzero(pos.rank == r)
            if idx.size == 0:
                continue
            player = registry.make_player(
                self.spec.replace("{rank}", rank), rules, seed=self.seed + r
            )
            try:
                for i in idx.tolist():
                    player.new_game(rules, rules.to_move(pos.states[i]))
                    out[i] = player.select_move(rules, pos.states[i].copy())
            finally:
                player.close()  # an engine player's process (python-chess's thread) ends here
        return out


def parse_program(text: str) -> MoveProgram:
    """``policy:model=NAME`` or ``player:SPEC`` (see the module docstring)."""
    kind, _, rest = text.strip().partition(":")
    if kind == "policy":
        return _parse_policy(text, rest)
    if kind == "player" and rest.strip():
        return PlayerProgram(name=rest.strip(), spec=rest.strip())
    raise SparringError(
        f"bad program {text!r}: expected policy:model=NAME or player:SPEC "
        "(a player spec, {rank} replaced by each rank group)"
    )


def _parse_policy(text: str, rest: str) -> PolicyProgram:
    """``model=NAME[,sym=yes|no]`` of a policy program (nothing else; each key once), read as
    a player spec's options (:meth:`~sparring.players.registry.PlayerSpec.parse`,
    :func:`~sparring.players.settings.option_bool`)."""
    usage = f"bad program {text!r}: expected policy:model=NAME[,sym=yes|no]"
    keys = [item.partition("=")[0].strip().lower() for item in rest.split(",")]
    if len(set(keys)) != len(keys):
        raise SparringError(f"{usage} (an option given twice)")
    try:
        spec = PlayerSpec.parse(f"policy:{rest}")
        check_options(spec, {"model", "sym"})
        symmetric = bool(option_bool(spec, "sym"))
    except SparringError as exc:
        raise SparringError(f"{usage} ({exc})") from None
    model = spec.options.get("model")
    if model is None:
        raise SparringError(usage)
    name = f"policy {model}" + (" (symmetries)" if symmetric else "")
    return PolicyProgram(name=name, model=model, symmetric=symmetric)


MoveJudge = Callable[[list[object], npt.NDArray[np.int64]], npt.NDArray[np.float64]]
"""Per-position loss of ``moves[i]`` in ``states[i]`` (e.g. ``StockfishJudge.losses``)."""


@dataclass(frozen=True)
class ProgramResult:
    """One program's move match, per rank and over all positions."""

    name: str
    hits: tuple[int, ...]
    """Positions matched, per rank."""
    positions: tuple[int, ...]
    """Positions asked, per rank."""
    seconds: float
    loss: LossSummary | None = None
    """Mean centipawn loss of the program's moves per rank (with a judge; else None)."""
    matched: tuple[bool, ...] = ()
    """Per position, in the positions' order: whether the program played the human move (for
    :func:`paired_comparisons`; empty in a table read from an older report)."""

    def share(self, r: int | None = None) -> float:
        """Matched share of rank ``r`` (None: all positions)."""
        h = sum(self.hits) if r is None else self.hits[r]
        n = sum(self.positions) if r is None else self.positions[r]
        return h / n if n else float("nan")

    def interval(self, r: int | None = None) -> tuple[float, float]:
        """95% Wilson interval of :meth:`share`."""
        h = sum(self.hits) if r is None else self.hits[r]
        n = sum(self.positions) if r is None else self.positions[r]
        return wilson_interval(h, n)


@dataclass(frozen=True)
class MatchTable:
    """Every program's move match on one set of positions."""

    game: str
    ranks: tuple[str, ...]
    results: tuple[ProgramResult, ...]
    seed: int
    human_loss: LossSummary | None = None
    """Mean centipawn loss of the humans' own moves per rank (with a judge; else None)."""


def run_match(
    pos: HeldOutPositions,
    programs: Sequence[MoveProgram],
    seed: int = 0,
    clock: Callable[[], float] | None = None,
    judge: MoveJudge | None = None,
) -> MatchTable:
    """Ask every program for its move in every position of ``pos`` and count the matches;
    with ``judge``, also the mean loss of each program's moves and of the humans' moves."""
    now = clock or time.perf_counter
    ranks = len(pos.ranks)

    def judged(moves: npt.NDArray[np.int64]) -> LossSummary | None:
        if judge is None:
            return None
        return LossSummary.of(judge(pos.states, moves), pos.rank, ranks)

    human_loss = judged(pos.actions)
    results = []
    for program in programs:
        t0 = now()
        chosen = program.moves(pos)
        seconds = now() - t0
        if chosen.shape != pos.actions.shape:
            raise SparringError(f"{program.name}: {chosen.shape} moves for {len(pos)} positions")
        hit = chosen == pos.actions
        results.append(
            ProgramResult(
                name=program.name,
                hits=tuple(int(hit[pos.rank == r].sum()) for r in range(len(pos.ranks))),
                positions=tuple(int((pos.rank == r).sum()) for r in range(len(pos.ranks))),
                seconds=seconds,
                loss=judged(chosen),
                matched=tuple(bool(x) for x in hit),
            )
        )
    return MatchTable(pos.game, pos.ranks, tuple(results), seed, human_loss)


@dataclass(frozen=True)
class PairedComparison:
    """One program against the table's first on the same positions: the discordant
    positions (matched by one of the two only) and McNemar's exact test on them."""

    name: str
    reference: str
    only_this: int
    """Positions this program matched and the reference did not."""
    only_reference: int
    """Positions the reference matched and this program did not."""
    positions: int
    p_value: float
    """Two-sided exact McNemar test: the binomial test of ``only_this`` among the discordant
    positions against one half (1.0 when there are none)."""

    @property
    def difference(self) -> float:
        """This program's share minus the reference's (the discordant counts' difference over
        all positions)."""
        return (self.only_this - self.only_reference) / self.positions if self.positions else 0.0


def paired_comparisons(table: MatchTable) -> list[PairedComparison]:
    """Every program after the first, paired with the first on the same positions (empty when
    there is one program or the per-position matches are missing)."""
    # scipy.stats takes about 2 s to import: only for the paired comparisons
    from scipy.stats import binomtest

    results = table.results
    if len(results) < 2 or any(len(r.matched) != len(results[0].matched) for r in results):
        return []
    first = np.array(results[0].matched, dtype=bool)
    if first.size == 0:
        return []
    out = []
    for res in results[1:]:
        this = np.array(res.matched, dtype=bool)
        k, m = int((this & ~first).sum()), int((this ^ first).sum())
        out.append(
            PairedComparison(
                name=res.name,
                reference=results[0].name,
                only_this=k,
                only_reference=m - k,
                positions=int(first.size),
                p_value=float(binomtest(k, m).pvalue) if m else 1.0,
            )
        )
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def match_markdown(table: MatchTable, command: str = "") -> str:
    """The table (move match % with 95% interval, per rank and on average) as markdown."""
    names = [r.name for r in table.results]
    lines = [f"# Human move matching: {table.game}", ""]
    if command:
        lines += ["```bash", command, "```", ""]
    counts = table.results[0].positions if table.results else ()
    lines += [
        "Share of positions (held-out players' games, the same positions for every program) "
        "where the program's move is the human move, % with its 95% Wilson interval.",
        "",
        "| rank | positions | " + " | ".join(names) + " |",
        "| --- | --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for r, rank in enumerate(table.ranks):
        cells = []
        for res in table.results:
            lo, hi = res.interval(r)
            cells.append(f"{_pct(res.share(r))} ({_pct(lo)}-{_pct(hi)})")
        lines.append(f"| {rank} | {counts[r]} | " + " | ".join(cells) + " |")
    cells = []
    for res in table.results:
        lo, hi = res.interval()
        cells.append(f"**{_pct(res.share())}** ({_pct(lo)}-{_pct(hi)})")
    lines.append(f"| all | {sum(counts)} | " + " | ".join(cells) + " |")
    lines += _paired_markdown(table)
    if table.human_loss is not None:
        lines += _loss_markdown(table)
    lines += [
        "",
        "Seconds per program: "
        + ", ".join(f"{res.name} {res.seconds:.1f}" for res in table.results),
        "",
    ]
    return "\n".join(lines)


def _paired_markdown(table: MatchTable) -> list[str]:
    """The paired comparisons with the first program (nothing with one program)."""
    pairs = paired_comparisons(table)
    if not pairs:
        return []
    lines = [
        "",
        f"Paired with the first program ({pairs[0].reference}) on the same positions: the "
        "positions only one of the two matched, and the exact two-sided McNemar p (a binomial "
        "test of those positions against one half).",
        "",
        "| program | only this | only the first | difference (points) | p |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for pair in pairs:
        lines.append(
            f"| {pair.name} | {pair.only_this} | {pair.only_reference} | "
            f"{100 * pair.difference:+.1f} | {pair.p_value:.2g} |"
        )
    return lines


HUMAN_MOVES = "human moves"
"""The name of the humans' own moves among the loss columns."""


def _loss_columns(table: MatchTable) -> list[tuple[str, LossSummary]]:
    """The humans' moves first, then every judged program, with their losses."""
    assert table.human_loss is not None
    judged = [(res.name, res.loss) for res in table.results if res.loss is not None]
    return [(HUMAN_MOVES, table.human_loss), *judged]


def _loss_markdown(table: MatchTable) -> list[str]:
    """The centipawn-loss table: humans' moves first, then each judged program."""
    columns = _loss_columns(table)
    lines = [
        "",
        "Mean centipawn loss of the moves (Stockfish, `sparring.estimation.quality`), 95% "
        "normal interval; `human moves` are the moves the humans played in these positions.",
        "",
        "| rank | " + " | ".join(name for name, _ in columns) + " |",
        "| --- | " + " | ".join("---" for _ in columns) + " |",
    ]
    for r, rank in enumerate(table.ranks):
        cells = []
        for _, loss in columns:
            lo, hi = loss.interval(r)
            cells.append(f"{loss.mean[r]:.0f} ({lo:.0f}-{hi:.0f})")
        lines.append(f"| {rank} | " + " | ".join(cells) + " |")
    lines.append("| all | " + " | ".join(f"**{loss.overall():.0f}**" for _, loss in columns) + " |")
    return lines


def write_match(table: MatchTable, out: Path, command: str = "") -> Path:
    """Write ``match.md``, ``match.json`` and ``match.png`` into ``out``; the markdown's path."""
    out.mkdir(parents=True, exist_ok=True)
    data = {
        "game": table.game,
        "ranks": list(table.ranks),
        "seed": table.seed,
        "command": command,
        "human_loss": None if table.human_loss is None else asdict(table.human_loss),
        "programs": [
            asdict(r)
            | {
                "share": [r.share(k) for k in range(len(table.ranks))],
                "interval": [list(r.interval(k)) for k in range(len(table.ranks))],
                "share_all": r.share(),
                "interval_all": list(r.interval()),
            }
            for r in table.results
        ],
    }
    _write_text(out / "match.json", json.dumps(data, indent=2) + "\n")
    md = out / "match.md"
    _write_text(md, match_markdown(table, command))
    _plot(table, out / "match.png")
    if table.human_loss is not None:
        _plot_loss(table, out / "cpl.png")
    return md


def _write_text(path: Path, text: str) -> None:
    atomic_write(path, text.encode())


def _rank_plot(
    table: MatchTable,
    lines: list[tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64]]],
    ylabel: str,
    title: str,
    png: Path,
    highlight: str | None = None,
) -> None:
    """One line per ``(name, values, intervals [ranks, 2])`` against the rank groups, with
    95% error bars; the line named ``highlight`` drawn thick and black."""
    require_extra("matplotlib", "research", "the move-matching plot")
    # matplotlib: an optional extra (research), imported only to draw
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after the backend is chosen

    fig, ax = plt.subplots(figsize=(8, 4))
    x = np.arange(len(table.ranks))
    for name, values, ci in lines:
        special = name == highlight
        ax.errorbar(
            x,
            values,
            yerr=np.abs(ci.T - values),
            marker="o",
            capsize=3,
            label=name,
            color="black" if special else None,
            linewidth=2.5 if special else None,
        )
    ax.set_xticks(x, table.ranks)
    ax.set_xlabel("rank group (strongest first)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{table.game}: {title} (95% CI)")
    ax.legend(fontsize=7 if highlight else None)
    fig.tight_layout()
    atomic_savefig(fig, png)
    plt.close(fig)


def _plot(table: MatchTable, png: Path) -> None:
    ranks = range(len(table.ranks))
    lines = [
        (
            res.name,
            100 * np.array([res.share(r) for r in ranks]),
            100 * np.array([res.interval(r) for r in ranks]),
        )
        for res in table.results
    ]
    _rank_plot(table, lines, "move match %", "human move matching", png)


def _plot_loss(table: MatchTable, png: Path) -> None:
    ranks = range(len(table.ranks))
    lines = [
        (name, np.array(loss.mean), np.array([loss.interval(r) for r in ranks]))
        for name, loss in _loss_columns(table)
    ]
    _rank_plot(table, lines, "mean centipawn loss", "move quality by rank", png, HUMAN_MOVES)


__all__ = [
    "MatchTable",
    "MoveJudge",
    "MoveProgram",
    "PairedComparison",
    "PlayerProgram",
    "PolicyProgram",
    "ProgramResult",
    "match_markdown",
    "paired_comparisons",
    "parse_program",
    "run_match",
    "write_match",
]
