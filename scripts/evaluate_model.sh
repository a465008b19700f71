#!/usr/bin/env bash
# Measure an AlphaZero network the way its model card reports it:
#   scripts/evaluate_model.sh GAME        (GAME: connect4, othello6, ...)
# wins and Elo against the game's baseline ladder (src/sparring/models/ladders/baselines-GAME.json), 200 games
# against MCTS1 and Minimax1, and for Connect4 also move quality against the exact solver
# BitBully on 1,000 fixed positions.  Resumable: games are kept in runs/model-eval-GAME.sqlite.
# Environment: MODEL (network name or file; default GAME), GAMES, WORKERS, OUT, STORE.
set -euo pipefail
cd "$(dirname "$0")/.."
GAME=${1:?usage: scripts/evaluate_model.sh GAME}
MODEL=${MODEL:-$GAME}
GAMES=${GAMES:-200}
WORKERS=${WORKERS:-1}
OUT=${OUT:-docs/models}
STORE=${STORE:-runs/model-eval-$GAME.sqlite}
mkdir -p "$OUT" runs
if [ "$GAME" = connect4 ]; then
  .venv/bin/sparring oracle "az:model=$MODEL" mcts1 minimax1 \
    --positions 1000 --seed 0 --markdown "$OUT/connect4-oracle.md"
fi
.venv/bin/sparring study "$GAME" sims 200 --model "$MODEL" \
  --ladder "src/sparring/models/ladders/baselines-$GAME.json" --opponents mcts1,minimax1 \
  --games "$GAMES" --workers "$WORKERS" --seed 1 --store "$STORE" \
  --markdown "$OUT/$GAME-ladder.md"
