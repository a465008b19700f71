"""The package-level import graph: the layers of the README's architecture section.

Every ``import`` in ``src/sparring`` (function-local ones included) is read with :mod:`ast`
and mapped to an edge ``sparring.X -> sparring.Y`` between top-level subpackages (or
top-level modules such as ``sparring.errors``).  The strength core that players use must not
reach the evaluation machinery, and the experiment layer sits above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import sparring

ROOT = Path(sparring.__file__).resolve().parent


def _unit(module: str) -> str | None:
    """``sparring.evaluation.match`` -> ``evaluation``; None outside sparring."""
    parts = module.split(".")
    if parts[0] != "sparring" or len(parts) < 2:
        return None
    return parts[1]


def import_graph() -> dict[str, set[str]]:
    """Top-level unit -> units it imports (self-edges left out)."""
    graph: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        here = rel.parts[0]
        package = ["sparring", *rel.parts[:-1]]  # the package a relative import starts from
        edges = graph.setdefault(here, set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
                module = ".".join(p for p in (base, node.module or "") if p)
                # ``from sparring import errors`` / ``from . import x`` name modules.
                bare = module == "sparring" or (node.level and node.module is None)
                targets = [f"{module}.{a.name}" for a in node.names] if bare else [module]
            for target in targets:
                unit = _unit(target)
                if unit is not None and unit != here:
                    edges.add(unit)
    return graph


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        unit = todo.pop()
        if unit not in seen:
            seen.add(unit)
            todo.extend(graph.get(unit, ()))
    return seen


def test_graph_is_read() -> None:
    graph = import_graph()
    assert "evaluation" in graph["experiments"] and "strength" in graph["players"]


def test_strength_core_imports_only_errors() -> None:
    assert import_graph()["strength"] <= {"errors", "elo"}


def test_evaluation_and_players_do_not_import_experiments() -> None:
    graph = import_graph()
    assert "experiments" not in _reachable(graph, "evaluation")
    assert "experiments" not in _reachable(graph, "players")
    assert "experiments" not in _reachable(graph, "strength")


def test_no_cycle_through_strength_or_experiments() -> None:
    graph = import_graph()
    for unit in ("strength", "experiments"):
        assert unit not in _reachable(graph, unit), f"{unit} imports itself through others"


LAYERS: dict[str, int] = {
    # foundations, importable from anywhere
    "__init__": 0,
    "__version__": 0,
    "errors": 0,
    "elo": 0,
    "rng": 0,
    "configfile": 0,
    "rundir": 0,
    # rules
    "games": 1,
    # on the rules alone: records, the search (the network is a callback), strength steps
    "records": 2,
    "search": 2,
    "strength": 2,
    # the network: evaluators the search calls back
    "nn": 3,
    # players compose search, network and strength
    "players": 4,
    # a game in progress with its players
    "session": 5,
    # matches, series, ratings, stores; strength estimation
    "evaluation": 6,
    "estimation": 6,
    # training and experiments on top of evaluation
    "training": 7,
    "experiments": 7,
    # interfaces
    "bench": 8,
    "cli": 9,
    "__main__": 10,
}
"""The layer of every top-level part of the package (README, "Architecture"): a part imports
only parts of lower layers; layer-0 parts are importable from anywhere."""


def test_every_part_has_a_layer() -> None:
    graph = import_graph()
    parts = set(graph) | {unit for edges in graph.values() for unit in edges}
    parts -= {"models"}  # data only: shipped networks, calibrations, estimators
    missing = sorted(parts - set(LAYERS))
    assert not missing, f"parts without a layer (add them to LAYERS and the README): {missing}"


def test_imports_go_down_the_layers() -> None:
    graph = import_graph()
    upward = sorted(
        f"{unit} (layer {LAYERS[unit]}) imports {other} (layer {LAYERS[other]})"
        for unit, edges in graph.items()
        for other in edges
        if LAYERS[other] > 0 and LAYERS[other] >= LAYERS[unit]
    )
    assert not upward, "imports against the layering:\n" + "\n".join(upward)


def test_no_import_cycle_between_parts() -> None:
    graph = import_graph()
    cyclic = sorted(unit for unit in graph if unit in _reachable(graph, unit))
    assert not cyclic, f"parts that import themselves through others: {cyclic}"
