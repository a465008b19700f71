"""The search layer's boundaries: search/ imports only games/ and rng (never nn/ or players/),
and the old import paths of the moved names still work."""

from __future__ import annotations

import ast
from pathlib import Path

import sparring.search

ALLOWED = {"sparring.games", "sparring.rng", "sparring.errors", "sparring.search"}


def _sparring_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found.update(n for n in names if n.startswith("sparring"))
    return found


def test_search_imports_only_games_and_rng() -> None:
    root = Path(sparring.search.__file__).parent
    files = sorted(root.glob("*.py"))
    assert {f.name for f in files} >= {"kernels.py", "evaluator.py", "puct.py", "uct.py"}
    for path in files:
        for module in _sparring_imports(path):
            package = ".".join(module.split(".")[:2])
            assert package in ALLOWED, f"{path.name} imports {module}"


def test_old_import_paths_still_work() -> None:
    from sparring.nn.evaluators import Evaluator, UniformEvaluator
    from sparring.search.evaluator import Evaluator as SearchEvaluator
    from sparring.search.puct import SearchResult
    from sparring.search.stats import RootStats
    from sparring.search.uct import UCTResult

    assert Evaluator is SearchEvaluator and isinstance(UniformEvaluator(), SearchEvaluator)
    assert SearchResult is RootStats and UCTResult is RootStats
