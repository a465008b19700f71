#!/usr/bin/env bash
# One device call that tunes and confirms the Go 19x19 handicap ladder (docs/strength/go-ladder.md)
# on a machine with one CUDA GPU and 16 CPU cores:
#
#   bash research/gpu_go_ladder.sh OUT_DIR [BUDGET]
#
# First a short CUDA bench (about a minute, most of it compiling the kernels, which the run then
# finds compiled): seconds a ply at batch 1024, into OUT_DIR/bench.out; if it fails, the run
# uses one lane (no overlap of the CPU's work with the GPU's).  Then the run, which stops
# starting games BUDGET seconds (default 360) after it starts and writes as it goes.
#
# The batched runner needs numpy, torch and numba only.  The GNU Go anchor games, on 8 CPU
# processes beside it, also need python-chess and sgfmill (pure Python: SITE, default
# .gpu/site, goes on PYTHONPATH) and a gnugo program: on the PATH, or carried as .gnugo/gnugo
# (a wrapper that runs .gnugo/gnugo.bin with the libraries beside it); without them the
# anchors are skipped and the log says so.  OUT_DIR receives bench.out, games.jsonl.gz,
# ladder.jsonl, ladder.json, anchors.jsonl, log.txt, run.out and gpu.csv (8 files).
set -uo pipefail
out=$1 budget=${2:-360}
mkdir -p "$out"
site=${SITE:-.gpu/site}
export PYTHONPATH="src:$site" PYTHONUNBUFFERED=1
[ -x .gnugo/gnugo ] && export PATH="$PWD/.gnugo:$PATH"
(while true; do
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader >> "$out/gpu.csv" 2>/dev/null
  sleep 15
done) &
sampler=$!
lanes=()
if ! timeout 150 python3 research/go_ladder.py bench --device cuda --precision tf32 --batch 1024 \
    --plies 6 > "$out/bench.out" 2>&1; then
  echo "the CUDA bench failed (bench.out): the run uses one lane" | tee -a "$out/bench.out"
  lanes=(--lanes 1)
fi
cat "$out/bench.out"
# The run stops starting games at its budget; the timeout is a guard against a hang only.
timeout $((budget + 90)) python3 research/go_ladder.py run "$out" --device cuda --precision tf32 \
  --budget "$budget" --rungs 12 --top 9d@0.5 --schedule follow --grid 12 --grid-low 0.6 \
  --grid-high 2.5 --tune-games 96 --min-tune-games 32 --confirm-games 400 --confirm-chunk 400 \
  --confirm-reserve 110 --finish-margin 25 --batch 2048 --numba-threads 6 \
  --anchor-workers 8 --anchor-games 12 --anchor-levels 10 --anchor-handicaps 2 4 \
  --anchor-margin 100 "${lanes[@]}" 2>&1 | tee "$out/run.out"
status=$?
kill "$sampler" 2>/dev/null
[ -f "$out/games.jsonl" ] && gzip -f "$out/games.jsonl"
python3 research/go_ladder.py summary "$out/games.jsonl.gz" "$out/ladder.jsonl" "$out/anchors.jsonl" \
  --phase confirm 2>&1 | tee -a "$out/run.out"
ls -l "$out"
exit "$status"
