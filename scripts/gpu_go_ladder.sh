#!/usr/bin/env bash
# One device call that tunes and confirms the Go 19x19 handicap ladder (docs/strength/go-ladder.md)
# on a machine with one CUDA GPU and 16 CPU cores, within BUDGET seconds of play (default 390):
#
#   bash scripts/gpu_go_ladder.sh OUT_DIR [BUDGET]
#
# The batched runner (scripts/go_ladder.py run) needs numpy, torch and numba only.  The GNU Go
# anchor games, played on 8 CPU processes beside it, also need python-chess and sgfmill (pure
# Python: SITE, default .gpu/site, is put on PYTHONPATH) and a gnugo program: on the PATH, or
# carried as .gnugo/gnugo (a wrapper that runs .gnugo/gnugo.bin with the libraries beside it);
# without them the anchors are skipped and the log says so.  OUT_DIR receives games.jsonl.gz,
# ladder.jsonl, ladder.json, anchors.jsonl, log.txt, run.out and gpu.csv (7 files).
set -uo pipefail
out=$1 budget=${2:-390}
mkdir -p "$out"
site=${SITE:-.gpu/site}
export PYTHONPATH="src:$site" PYTHONUNBUFFERED=1
[ -x .gnugo/gnugo ] && export PATH="$PWD/.gnugo:$PATH"
(while true; do
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader >> "$out/gpu.csv" 2>/dev/null
  sleep 15
done) &
sampler=$!
# The run stops starting games at its budget; the timeout is a guard against a hang only.
timeout $((budget + 60)) python3 scripts/go_ladder.py run "$out" --device cuda --precision tf32 \
  --budget "$budget" --rungs 12 --top 9d@0.5 --schedule follow --grid 12 --grid-low 0.6 \
  --grid-high 2.5 --tune-games 96 --min-tune-games 32 --confirm-games 400 --confirm-chunk 400 \
  --confirm-reserve 120 --finish-margin 25 --batch 2048 --numba-threads 6 \
  --anchor-workers 8 --anchor-games 12 --anchor-levels 10 --anchor-handicaps 2 4 \
  --anchor-margin 100 2>&1 | tee "$out/run.out"
status=$?
kill "$sampler" 2>/dev/null
[ -f "$out/games.jsonl" ] && gzip -f "$out/games.jsonl"
python3 scripts/go_ladder.py summary "$out/games.jsonl.gz" "$out/ladder.jsonl" "$out/anchors.jsonl" \
  --phase confirm 2>&1 | tee -a "$out/run.out"
ls -l "$out"
exit "$status"
