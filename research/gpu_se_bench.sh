#!/usr/bin/env bash
# Seconds a step of the chess play network's GPU config under three trainers (BENCHMARKS.md,
# "Chess play networks on a GPU"), run on a GPU machine from the repository root with:
#   .gpu/cache     a copy of the chess cache folder (runs/se-cache/chess-1ebd8e130728)
#   .gpu/site      python-chess and sgfmill (pure Python; the machine lacks them)
#   .gpu/old/src   the package at commit 539bc38 (git archive 539bc38 src/sparring | tar -x -C .gpu/old)
#   .gpu/bf16.toml configs/se-chess-play-gpu.toml with precision = "bf16"
export PYTHONUNBUFFERED=1
run() { name=$1; src=$2; cfg=$3; PYTHONPATH=$src:.gpu/site python3 -m sparring se-train chess -c $cfg --steps 150 --data-folder .gpu/cache --out /tmp/$name --no-progress > /tmp/$name.out 2>&1 || tail -5 /tmp/$name.out; }
sps() { python3 -c "import json,sys; r={x['step']:x for x in map(json.loads, open('/tmp/$1/log.jsonl'))}; print('$1', 's/step', round((r[150]['seconds']-r[50]['seconds'])/100, 4))"; }
run old-fp32 .gpu/old/src configs/se-chess-play-gpu.toml; sps old-fp32
run new-fp32 src configs/se-chess-play-gpu.toml; sps new-fp32
run new-bf16 src .gpu/bf16.toml; sps new-bf16
nvidia-smi --query-gpu=name --format=csv,noheader
