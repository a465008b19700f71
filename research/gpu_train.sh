#!/usr/bin/env bash
# Train on a GPU machine for a fixed time and pack the run folder for the trip back.
#
#   bash research/gpu_train.sh GAME CONFIG RUN_DIR MINUTES WORKERS OUT_DIR
#
# What it does (one device call, see docs/research/training.md "8x8 Othello"):
#   1. checks that PyTorch sees a GPU; without one it trains on the CPU instead (the config's
#      device line rewritten to "cpu"), so the call is not lost;
#   2. compiles the numba kernels once in this process (a two-game self-play), so the worker
#      processes load them from numba's cache instead of each compiling them;
#   3. `sparring train GAME --config CONFIG --out RUN_DIR --selfplay-workers WORKERS
#      --minutes MINUTES` (stops after the first iteration that ends MINUTES after the start,
#      checkpointed: the run resumes anywhere with the same command);
#   4. packs RUN_DIR without its replay queue (hundreds of MB; a resumed run refills it) into
#      OUT_DIR/run.tgz.NN pieces of 15 MiB; with KEEP_REPLAY=1 the queue comes too (a small
#      one, such as 9x9 Go's, that the run resumed on the CPU should keep learning from).
# Python: $PY (default python3); packages missing there can come in $EXTRA_PATH.  With
# $TRAIN_TIMEOUT (seconds) the training is killed after that long whatever it is doing (it
# resumes from its last checkpoint), so that the packing still fits the device call.
set -uo pipefail
game=$1 config=$2 run=$3 minutes=$4 workers=$5 out=$6
PY=${PY:-python3}
export PYTHONPATH="src${EXTRA_PATH:+:$EXTRA_PATH}${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
mkdir -p "$out"
if "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  "$PY" -c "import torch; print('gpu:', torch.cuda.get_device_name(0), 'torch', torch.__version__)"
else
  echo "no GPU seen by PyTorch: training on the CPU"
  sed 's/^device *=.*/device = "cpu"/' "$config" > "$out/config-cpu.toml"
  config="$out/config-cpu.toml"
fi
start=$(date +%s)
"$PY" - "$game" "$config" <<'EOF'
import sys
from pathlib import Path

import numpy as np

from sparring.games import get_game
from sparring.training.config import TrainConfig
from sparring.training.selfplay import SelfPlaySettings, play_games
from sparring.nn.model import NetworkConfig, build_model
from sparring.training.selfplay import selfplay_evaluator

game = get_game(sys.argv[1])
config = TrainConfig.from_toml(Path(sys.argv[2]), sys.argv[1])
small = TrainConfig.from_mapping(
    config.to_mapping() | {"simulations": 8, "fast_simulations": 2, "parallel_games": 2}
)
model = build_model(NetworkConfig.for_game(game, blocks=1, channels=8), seed=0)
evaluator = selfplay_evaluator(game, model.eval(), config.backend, 1, config.play_device)
play_games(game, evaluator, SelfPlaySettings.from_config(small), 2, np.random.default_rng(0))
print("numba kernels compiled")
EOF
echo "warm-up: $(( $(date +%s) - start )) s"
${TRAIN_TIMEOUT:+timeout -k 5 "$TRAIN_TIMEOUT"} "$PY" -m sparring train "$game" --config "$config" --out "$run" \
  --selfplay-workers "$workers" --minutes "$minutes" 2>&1 | tr '\r' '\n' | grep -v '^\s*$' \
  | grep -E 'iteration|model:|error|Error|Traceback|resuming' | tail -40
status=${PIPESTATUS[0]}
echo "train exit $status after $(( $(date +%s) - start )) s"
tail -n 3 "$run/log.jsonl" 2>/dev/null | cut -c1-400
cp "$run/log.jsonl" "$out/" 2>/dev/null
if [ "${KEEP_REPLAY:-0}" = 1 ]; then skip=(); else skip=(--exclude=replay.npz --exclude=replay.next.npz); fi
tar -czf - "${skip[@]}" "$run" | split -b 15M -d - "$out/run.tgz."
ls -la "$out"
exit "$status"
