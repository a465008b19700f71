#!/bin/bash
# The two long 8x8 Othello AlphaDDA jobs, resumable across machines:
#   table    the combined adaptive table (docs/alphadda/tables/othello-combined-rule.txt, item 2)
#   grid-a1  AlphaDDA1's grid search on seed 0 (the protocol of the AlphaDDA2/3 grids; the rule
#            of the same file, item 1, decides between its pick and Table 1's row; finished on
#            2026-11-28: its pick ships and is the table's AlphaDDA1-tuned row)
#
#   bash research/alphadda_othello.sh JOB play        # play (or go on playing)
#   bash research/alphadda_othello.sh JOB pack        # its store -> checkpoints/alphadda-othello/JOB.sqlite.xz
#   bash research/alphadda_othello.sh table report ROW...   # report the finished rows of the table
#                                                    # (plays AlphaZero's row if it is missing)
#
# Every (player, opponent) pair is its own run in a store, keyed by the game, the two specs and
# the seed, so a store unpacked from its checkpoint resumes where the last machine stopped, and a
# report of some rows plays nothing that the full table would not play the same way.
# RUNS (default /work/runs/alphadda) holds the stores; PYTHON the interpreter (default .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-/work/runs/alphadda}
PYTHON=${PYTHON:-.venv/bin/python}
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"  # this checkout's code (any checkout's)
OPPONENTS='az:rootrand=0.2;mcts1;mcts2;mcts3;mcts4;minimax1;minimax2;random'
ROWS=(
  alphadda1:nh=2,asim=2.8,bsim0=-1.4,nmax=400,rootrand=0.2,name=AlphaDDA1-paper
  alphadda2:nh=4,adrop=20,pdrop0=-0.9,rootrand=0.2,name=AlphaDDA2-paper
  alphadda3:nh=5,c=0.6,rootrand=0.2,name=AlphaDDA3-paper
  alphadda1:nh=1,asim=2,bsim0=-1.2,nmax=400,rootrand=0.2,name=AlphaDDA1-tuned
  alphadda1:nh=2,asim=2.8,bsim0=-1.4,nmax=400,floor=on,fslope=0,fmax=2,fresult=0.1,rootrand=0.2,name=AlphaDDA1-floor
  alphadda2:nh=4,adrop=20,pdrop0=-0.9,floor=on,fslope=0,fmax=2,fresult=0.1,rootrand=0.2,name=AlphaDDA2-floor
  dsa:mode=inter,model=othello
  dsa:mode=intra,model=othello
  dsa:mode=elo-inter,model=othello
  dsa:mode=bayes,model=othello
)

JOB=${1:-}
case "$JOB" in
  table) OUT="$RUNS/othello-combined-rr"; STORE="$OUT/games.sqlite" ;;
  grid-a1) OUT="$RUNS/o8-grid-a1"; STORE="$RUNS/o8-grid-a1.sqlite" ;;
  *) sed -n 2,16p "$0" >&2; exit 2 ;;
esac
PACKED="checkpoints/alphadda-othello/$JOB.sqlite.xz"

unpack() {
  if [ ! -e "$STORE" ] && [ -e "$PACKED" ]; then
    mkdir -p "$(dirname "$STORE")"
    xz -dc "$PACKED" > "$STORE"
    echo "unpacked $PACKED into $STORE"
  fi
}

case "$JOB ${2:-}" in
  "table play")
    unpack
    exec "$PYTHON" -m sparring adapt othello "${ROWS[@]}" --opponents "$OPPONENTS" \
      --games 40 --repeats 1 --workers 2 --baseline-games 40 --seed 1 --out "$OUT" --no-progress
    ;;
  "grid-a1 play")
    unpack
    exec "$PYTHON" -m sparring dda-grid othello alphadda1 --halving --first-games 2 --keep 0.34 \
      --final 3 --workers 2 --seed 0 --no-progress --option rootrand=0.2 --out "$OUT" \
      --store "$STORE"
    ;;
  "table report")
    shift 2
    [ $# -gt 0 ] || { echo "give the finished rows' specs (from the list above)" >&2; exit 2; }
    unpack
    exec "$PYTHON" -m sparring adapt othello "$@" --opponents "$OPPONENTS" \
      --games 40 --repeats 1 --workers 2 --baseline-games 40 --seed 1 --store "$STORE" \
      --out "$RUNS/othello-combined-partial" --no-progress \
      --note "${NOTE:-The rows of the 8x8 combined table finished so far (the rest are being played).}"
    ;;
  "$JOB pack")
    mkdir -p "$(dirname "$PACKED")"
    "$PYTHON" - "$STORE" "$PACKED.tmp" <<'PY'
import sqlite3, sys
src = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)  # a consistent copy while the job may still be playing
dst.execute("PRAGMA journal_mode=DELETE")
dst.execute("VACUUM")
dst.close()
PY
    xz -9 -T1 -c "$PACKED.tmp" > "$PACKED"
    rm -f "$PACKED.tmp"
    ls -l "$PACKED"
    ;;
  *) sed -n 2,16p "$0" >&2; exit 2 ;;
esac
