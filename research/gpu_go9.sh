#!/usr/bin/env bash
# One device call that continues the go9 self-play run on a GPU machine.
#
#   bash research/gpu_go9.sh RUN_DIR MINUTES WORKERS OUT_DIR
#
# RUN_DIR is a copy of the run folder (checkpoint, replay queue, log, config) carried to the
# machine; its packages are in .gpu/site (pydantic for Python 3.12, python-chess, sgfmill: the
# machine's image lacks them).  The run goes on with configs/go9-gpu.toml (self-play in WORKERS
# int8 processes on the CPU cores, learning on the GPU) through research/gpu_train.sh, which
# packs RUN_DIR with its queue into OUT_DIR/run.tgz.NN.  If the int8 network cannot be built
# there (ONNX export or quantization failing on the machine's versions), self-play moves to
# the GPU instead (selfplay_device = "cuda") so that the call is not lost; the output says so.
# The GPU's use is sampled every 20 s into OUT_DIR/gpu.csv.
set -uo pipefail
run=$1 minutes=$2 workers=$3 out=$4
mkdir -p "$out"
site=${SITE:-.gpu/site}
export PYTHONPATH="src:$site" PYTHONUNBUFFERED=1
config=configs/go9-gpu.toml
if ! python3 - <<'EOF'
from sparring.games import get_game
from sparring.nn.model import NetworkConfig, build_model
from sparring.training.selfplay import selfplay_evaluator

game = get_game("go9")
model = build_model(NetworkConfig.for_game(game, blocks=1, channels=8), seed=0).eval()
selfplay_evaluator(game, model, "onnx-int8", 1, "cpu")
print("int8 self-play network: built")
EOF
then
  echo "int8 self-play network failed here: self-play on the GPU instead"
  sed 's/^selfplay_device *=.*/selfplay_device = "cuda"/' "$config" > "$out/go9-gpu-fallback.toml"
  config="$out/go9-gpu-fallback.toml"
fi
(while true; do
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader >> "$out/gpu.csv" 2>/dev/null
  sleep 20
done) &
sampler=$!
KEEP_REPLAY=1 PY=python3 EXTRA_PATH="$site" bash research/gpu_train.sh go9 "$config" "$run" "$minutes" "$workers" "$out"
status=$?
kill "$sampler" 2>/dev/null
exit "$status"
