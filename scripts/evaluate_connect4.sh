#!/usr/bin/env bash
# Measure a Connect4 network (default: the shipped one) the way its model card reports it:
# move quality against the exact solver BitBully on 1,000 fixed positions, and wins and Elo
# against the baseline ladder (docs/results/baselines-connect4.json).  Resumable (game store).
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${MODEL:-connect4}
GAMES=${GAMES:-200}
WORKERS=${WORKERS:-1}
OUT=${OUT:-docs/models}
mkdir -p "$OUT" runs
.venv/bin/sparring oracle "az:model=$MODEL" mcts1 minimax1 \
  --positions 1000 --seed 0 --markdown "$OUT/connect4-oracle.md"
.venv/bin/sparring study connect4 sims 200 --model "$MODEL" \
  --ladder docs/results/baselines-connect4.json --opponents mcts1,minimax1 \
  --games "$GAMES" --workers "$WORKERS" --seed 1 --store runs/model-eval.sqlite \
  --markdown "$OUT/connect4-ladder.md"
