"""The package-level import graph around strength adjustment (issue 13, item 5).

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
    assert import_graph()["strength"] <= {"errors"}


def test_evaluation_and_players_do_not_import_experiments() -> None:
    graph = import_graph()
    assert "experiments" not in _reachable(graph, "evaluation")
    assert "experiments" not in _reachable(graph, "players")
    assert "experiments" not in _reachable(graph, "strength")


def test_no_cycle_through_strength_or_experiments() -> None:
    graph = import_graph()
    for unit in ("strength", "experiments"):
        assert unit not in _reachable(graph, unit), f"{unit} imports itself through others"
