"""Network-free PUCT search rates (uniform evaluator) for before/after comparisons.

Prints one line per measurement: ``TAG<TAB>what<TAB>simulations per CPU second``, each the best
of 7 searches in this process, timed with :func:`time.process_time` (CPU time of this process,
so that other jobs on a shared machine weigh less).  Run it alternately in two checkouts and
compare the best (or median) figures of each, e.g. (see BENCHMARKS.md):

    for i in 1 2 3 4 5; do
      (cd OLD && PYTHONPATH=src python ../NEW/scripts/bench_search_ab.py before)
      (cd NEW && PYTHONPATH=src python scripts/bench_search_ab.py after)
    done

With a second argument ``hook`` it also measures the search with a score hook (a
:class:`~sparring.search.hooks.PriorBonus` of 0 on no move), where the checkout has hooks;
with ``rootrand``, the search with 20% random root picks (``PUCTConfig.root_random = 0.2``).
"""

from __future__ import annotations

import sys
import time

from sparring.games import get_game
from sparring.search.bench import sample_positions
from sparring.search.puct import PUCTConfig, search_batch

try:
    from sparring.search.evaluator import UniformEvaluator
except ImportError:  # checkouts before the search layer
    from sparring.nn.evaluators import UniformEvaluator  # type: ignore[no-redef]

REPEATS = 7


def main() -> None:
    tag = sys.argv[1] if len(sys.argv) > 1 else "run"
    with_hook = len(sys.argv) > 2 and sys.argv[2] == "hook"
    with_root_random = len(sys.argv) > 2 and sys.argv[2] == "rootrand"
    for name in ("connect4", "othello"):
        game = get_game(name)
        for games, sims in ((1, 800), (64, 50)):
            positions = sample_positions(game, games, 0)
            configs = [("", PUCTConfig(simulations=sims))]
            if with_hook:
                from sparring.search.hooks import PriorBonus

                hook = PriorBonus(-1, 0.0).hook()
                configs.append((" +hook", PUCTConfig(simulations=sims, score_hook=hook)))
            if with_root_random:
                configs.append((" +rootrand", PUCTConfig(simulations=sims, root_random=0.2)))
            for label, config in configs:
                search_batch(game, positions, UniformEvaluator(), config)  # warm up
                best = 0.0
                for _ in range(REPEATS):
                    start = time.process_time()
                    results = search_batch(game, positions, UniformEvaluator(), config)
                    elapsed = time.process_time() - start
                    best = max(best, sum(r.simulations for r in results) / elapsed)
                print(f"{tag}\t{name} games={games} sims={sims}{label}\t{best:.0f}", flush=True)


if __name__ == "__main__":
    main()
