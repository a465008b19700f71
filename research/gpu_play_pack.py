"""Pack a device call's play-network runs for the way back.

The device tool returns at most 8 files of at most 16 MiB each, so each run's ``model.pt``
goes back in float16 as ``OUT/RUN.pt`` (what ``scripts/ship_play_network.py`` would ship;
it loads back into float32) and every run's ``log.jsonl`` and ``config.json`` with the
``EXTRA`` files (the plan, the output, ``nvidia-smi`` samples) in one ``OUT/logs.tar.gz``::

    PYTHONPATH=src python3 research/gpu_play_pack.py /tmp/runs "$OUT" /tmp/train.out
"""

from __future__ import annotations

import argparse
import tarfile
from pathlib import Path

from sparring.nn.strength_net import load_strength_model, save_strength_model


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", type=Path, help="the folder of the runs' folders")
    ap.add_argument("out", type=Path)
    ap.add_argument("extra", type=Path, nargs="*", help="more files for the archive")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(args.out / "logs.tar.gz", "w:gz") as tar:
        for run in sorted(p for p in args.runs.iterdir() if p.is_dir()):
            if (run / "model.pt").exists():
                model, metadata = load_strength_model(run / "model.pt")
                save_strength_model(args.out / f"{run.name}.pt", model, metadata, half=True)
            for name in ("log.jsonl", "config.json"):
                if (run / name).exists():
                    tar.add(run / name, arcname=f"{run.name}/{name}")
        for path in args.extra:
            if path.exists():
                tar.add(path, arcname=path.name)
    for path in sorted(args.out.iterdir()):
        print(f"{path.name} {path.stat().st_size}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
