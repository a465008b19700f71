"""Milliseconds per Stockfish leaf value (``sf_nodes``), with and without ``ucinewgame``.

``StockfishValue`` starts every analysis with ``ucinewgame`` so that a value depends on the
position alone; this measures what that costs against the analysis itself, on the positions
of one random game (seeded), for a few node counts:

    .venv/bin/python research/bench_leaf.py --positions 60 --nodes 1000,3000,10000
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from sparring.games.chess import Chess
from sparring.players.engine_value import StockfishValue
from sparring.players.external import find_program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--nodes", default="1000,3000,10000")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    program = find_program("stockfish")
    if program is None:
        raise SystemExit("stockfish is not installed")
    game, rng = Chess(), random.Random(args.seed)
    state, texts = game.initial_state(), []
    while len(texts) < args.positions:
        state = game.play(state, int(rng.choice(list(np.flatnonzero(game.legal_mask(state))))))
        if game.is_terminal(state):
            state = game.initial_state()
            continue
        texts.append(game.position_to_text(state))
    for nodes in (int(n) for n in args.nodes.split(",")):
        engine = StockfishValue(program)
        engine.value_of_text(texts[0], 10)  # start the process outside the timing
        began = time.perf_counter()
        for text in texts:
            engine._analyse(text, nodes)
        fresh = (time.perf_counter() - began) / len(texts)
        send = engine._send

        def without_newgame(*lines: str, send=send) -> None:  # type: ignore[no-untyped-def]
            send(*(line for line in lines if line != "ucinewgame"))

        engine._send = without_newgame  # type: ignore[method-assign]
        began = time.perf_counter()
        for text in texts:
            engine._analyse(text, nodes)
        kept = (time.perf_counter() - began) / len(texts)
        print(f"{nodes} nodes: {1000 * fresh:.2f} ms a leaf with ucinewgame, "
              f"{1000 * kept:.2f} ms without ({len(texts)} positions)")  # fmt: skip
        engine.close()


if __name__ == "__main__":
    main()
