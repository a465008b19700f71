#!/usr/bin/env bash
# The baseline round robins of docs/research/baselines.md: Random, MCTS1-4, Minimax1/2 on each game.
# Resumable: re-running continues in runs/baselines.sqlite.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES_PER_PAIR=${GAMES_PER_PAIR:-200}
WORKERS=${WORKERS:-2}
mkdir -p runs docs/results
for game in connect4 othello6 othello; do
  .venv/bin/sparring tournament "$game" random mcts1 mcts2 mcts3 mcts4 minimax1 minimax2 \
    --games-per-pair "$GAMES_PER_PAIR" --workers "$WORKERS" --seed 2026 \
    --store runs/baselines.sqlite --first-move-advantage \
    --markdown "docs/results/baselines-$game.md" --plot "docs/results/baselines-$game.png" \
    --json "src/sparring/models/ladders/baselines-$game.json" \
    --no-progress
done
