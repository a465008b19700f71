"""Apply each of the search layer's five mutations (docs/development/architecture.md) in turn,
run the suite's relevant tests, restore.

Usage: ``.venv/bin/python scripts/mutation_check.py`` from the repository root.  Prints, per
mutation, the tests that failed; exits 1 if any mutation leaves every test passing.  The
source file is restored after each run (also on Ctrl-C).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]


class Mutation(NamedTuple):
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTATIONS = (
    Mutation(
        "PUCT Eq. 8: / (1 + N(s,a)) -> / (2 + N(s,a))",
        "src/sparring/search/puct.py",
        "sqrt_n / (1.0 + n)",
        "sqrt_n / (2.0 + n)",
        ("tests/test_search_formulas.py", "tests/test_puct.py"),
    ),
    Mutation(
        "PUCT Eq. 8: sqrt(N(s)) -> sqrt(N(s) + 1)",
        "src/sparring/search/puct.py",
        "sqrt_n = math.sqrt(node_i[node, N_VISITS] + node_i[node, N_VIRTUAL])",
        "sqrt_n = math.sqrt(node_i[node, N_VISITS] + node_i[node, N_VIRTUAL] + 1)",
        ("tests/test_search_formulas.py", "tests/test_puct.py"),
    ),
    Mutation(
        "UCT Eq. 12: ln(N_p + 1) -> ln(N_p + 2)",
        "src/sparring/search/uct.py",
        "math.log(stats[node, _VISITS] + 1.0)",
        "math.log(stats[node, _VISITS] + 2.0)",
        ("tests/test_search_formulas.py", "tests/test_uct.py", "tests/test_search_python_rules.py"),
    ),
    Mutation(
        "isotonic fit never merges the first two blocks",
        "src/sparring/strength/target.py",
        "while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:",
        "while len(blocks) > 2 and blocks[-2][0] > blocks[-1][0]:",
        ("tests/test_strength_calibration.py", "tests/test_shipped_models.py"),
    ),
    Mutation(
        "SA floor plays random moves only when q > 0.5",
        "src/sparring/players/strength.py",
        "if q > 0.0 and self.rng.random() < q:",
        "if q > 0.5 and self.rng.random() < q:",
        ("tests/test_sa_floor.py", "tests/test_strength_selection.py"),
    ),
)


def run(mutation: Mutation) -> list[str]:
    """The tests that fail under ``mutation``."""
    path = ROOT / mutation.path
    original = path.read_text()
    if original.count(mutation.old) != 1:
        raise SystemExit(f"{mutation.path}: the code to mutate is not there: {mutation.old!r}")
    try:
        path.write_text(original.replace(mutation.old, mutation.new))
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *mutation.tests],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    finally:
        path.write_text(original)
    return [line.split(" ")[1] for line in result.stdout.splitlines() if line.startswith("FAILED")]


def main() -> int:
    survived = 0
    for mutation in MUTATIONS:
        failed = run(mutation)
        print(f"## {mutation.name} ({mutation.path})")
        print("\n".join(f"  caught by {name}" for name in failed) or "  NOT CAUGHT")
        survived += not failed
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
