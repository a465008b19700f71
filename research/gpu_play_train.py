"""Train play networks on a GPU machine inside a fixed time budget.

The GPU machine has neither the source games nor the installed package, so each run trains
from a copied cache folder (``SETrainer(data_folder=...)``, ``se-train --data-folder``) with
``PYTHONPATH=src``.  The configs train side by side on the one GPU:

1. a probe: ``PROBE_STEPS`` steps of every config at once, timed from each run's log
   (the seconds between its first and last log record, so CUDA's start-up is left out);
2. the plan: each run's total steps fill what is left of ``--budget`` (times ``--margin``),
   with the learning rate cut by the config's ``lr_decay_factor`` at ``--decays`` of them;
3. the runs resume to those steps (``steps`` and ``lr_decay_steps`` are resumable
   changes), all at once; a run still going at the deadline is stopped, and its last
   checkpoint (every ``checkpoint_every`` steps) is what it leaves.

Each run's ``model.pt``, ``log.jsonl`` and ``config.json`` and the plan (``plan.json``) are
copied to ``--out`` (a run's plot can be drawn again from its log).  The optimiser's state is
not: a run is not resumed elsewhere, it is run again (the probe and the plan take under a
minute).  Usage, on the GPU machine::

    PYTHONPATH=src python3 research/gpu_play_train.py chess CACHE_FOLDER \\
        configs/se-chess-play-gpu.toml configs/se-chess-play-gpu-s.toml \\
        --runs /tmp/runs --out "$OUT" --budget 470

and ``python3 research/gpu_play_train.py ... --budget 60 --device cpu`` tries it here on the
CPU (the steps it plans are then few).

With ``--data-root ROOT`` the cache is built on the machine first, inside the budget: the
first config's data settings, the games read from ``ROOT/strength/GAME`` (the layout of
``../shared/data``), ``--workers`` extraction processes, the folder made under ``CACHE``
(then a cache directory, not a cache folder).  The first Go GPU run did so: Go's every-move
cache (3.2 M pairs, 6.6 times those of the CPU config's 32 MB cache) does not travel, while its
SGF files fit as a 5 MB archive::

    tar -xJf .gpu/go-data.tar.xz -C /tmp/data
    PYTHONPATH=src:.gpu/site python3 research/gpu_play_train.py go /tmp/cache \
        configs/se-go-play-gpu.toml --data-root /tmp/data --workers 14 \
        --runs /tmp/runs --out "$OUT" --budget 515

What travels to the machine is at most 64 MiB: the tracked tree (60.5 MiB before the Go play network
grew, 65.4 MiB since the 10 x 128 ``go-play`` was shipped, over the limit by itself) and the carried
paths together.  The first chess GPU run put the cache folder (30 MB) and pure-Python python-chess
and sgfmill in ``.gpu/`` (listed in ``.git/info/exclude``, carried with ``carry=[".gpu"]``), moved
``docs/`` and ``checkpoints/`` out of the checkout for the call and back after it, and ran
``PYTHONPATH=src:.gpu/site``.

The continued Go run resumed the network from its shipped weights (``configs/se-go-play-gpu2.toml``,
``init_from``) on an H200 at the H100's rate, 0.173 s a step; ``research/bench_play_step.py``
then timed the device's share of a step at 0.121 s in the default layout and 0.047 s with
``channels_last = true`` (a config option since), and the batch's work on the CPU (about
0.05 s) can overlap the device's with ``prefetch = 2``: set both in the next GPU run's config.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

PROBE_STEPS = 150
"""Steps of the probe; the log's records at 50 and 150 time 100 steps."""


def train(
    game: str, config: Path, run: Path, data: Path, steps: int, decays: str, device: str
) -> None:
    """One run, in this process: ``steps`` steps with the decay steps ``decays`` (comma list)
    on ``device``."""
    from sparring.estimation.train import SEConfig, SETrainer

    mapping = SEConfig.from_toml(config, game).to_mapping()
    mapping["steps"] = steps
    mapping["lr_decay_steps"] = [int(x) for x in decays.split(",") if x]
    mapping["device"] = device
    trainer = SETrainer(SEConfig.from_mapping(mapping), run, show_progress=False, data_folder=data)
    t0 = time.perf_counter()
    trainer.run()
    print(f"{run.name}: step {trainer.state.step} in {time.perf_counter() - t0:.1f} s", flush=True)


def build(game: str, config: Path, root: Path, cache_dir: Path, workers: int) -> Path:
    """Build ``config``'s data cache from the games under ``root`` in ``workers`` processes,
    in a folder under ``cache_dir``; the folder."""
    from sparring.estimation.extra import build_with_extra
    from sparring.estimation.train import SEConfig

    mapping = SEConfig.from_toml(config, game).to_mapping()
    mapping["data_root"] = str(root)
    mapping["cache_dir"] = str(cache_dir)
    data = SEConfig.from_mapping(mapping).data_config()
    return build_with_extra(data, show_progress=False, workers=workers)


def seconds_per_step(log: Path) -> float:
    """Seconds a step between the first and the last record of a run's log."""
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    if len(rows) < 2:
        raise SystemExit(f"{log}: the probe logged {len(rows)} record(s) by the deadline, not 2")
    first, last = rows[0], rows[-1]
    return (last["seconds"] - first["seconds"]) / max(last["step"] - first["step"], 1)


def launch(
    args: argparse.Namespace, config: Path, steps: int, decays: list[int]
) -> subprocess.Popen[bytes]:
    """Start one run (:func:`train`) in a new process, its output to ``RUNS/CONFIG.out``."""
    run = args.runs / config.stem
    cmd = [
        sys.executable,
        __file__,
        "--train",
        args.game,
        str(args.cache),
        str(config),
        "--runs",
        str(run),
        "--steps",
        str(steps),
        "--decay-list",
        ",".join(str(d) for d in decays),
        "--device",
        args.device,
    ]
    log = (args.runs / f"{config.stem}.out").open("ab")
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)


def wait_all(procs: list[subprocess.Popen[bytes]], deadline: float) -> None:
    """Wait for every process; stop those still running at ``deadline``."""
    for p in procs:
        left = deadline - time.monotonic()
        try:
            p.wait(timeout=max(left, 0.1))
        except subprocess.TimeoutExpired:
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("game", choices=("go", "chess"))
    ap.add_argument(
        "cache", type=Path, help="the copied cache folder (with --data-root: where to build it)"
    )
    ap.add_argument("configs", type=Path, nargs="+")
    ap.add_argument("--runs", type=Path, required=True, help="where the runs' folders go")
    ap.add_argument("--out", type=Path, help="where the results are copied")
    ap.add_argument("--budget", type=float, default=470.0, help="seconds for probe and runs")
    ap.add_argument("--margin", type=float, default=0.85, help="share of the time left planned")
    ap.add_argument("--decays", default="0.6,0.85", help="decay points as shares of the steps")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--data-root", type=Path, help="build the cache here from ROOT's games first")
    ap.add_argument("--workers", type=int, default=1, help="extraction processes (--data-root)")
    ap.add_argument("--train", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--steps", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--decay-list", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.train:
        train(
            args.game,
            args.configs[0],
            args.runs,
            args.cache,
            args.steps,
            args.decay_list,
            args.device,
        )
        return 0
    start = time.monotonic()
    deadline = start + args.budget
    args.runs.mkdir(parents=True, exist_ok=True)
    built = None
    if args.data_root is not None:
        args.cache = build(args.game, args.configs[0], args.data_root, args.cache, args.workers)
        built = round(time.monotonic() - start, 1)
        print(f"cache {args.cache} built in {built} s", flush=True)
    placeholder = [10**9]
    wait_all([launch(args, c, PROBE_STEPS, placeholder) for c in args.configs], deadline)
    left = (deadline - time.monotonic()) * args.margin
    shares = [float(x) for x in args.decays.split(",") if x]
    rate = {c.stem: seconds_per_step(args.runs / c.stem / "log.jsonl") for c in args.configs}
    steps = {name: PROBE_STEPS + max(1, int(left / sps)) for name, sps in rate.items()}
    decays = {name: [int(n * s) for s in shares] for name, n in steps.items()}
    plan = {
        name: {
            "build_seconds": built,
            "probe_seconds_per_step": rate[name],
            "steps": steps[name],
            "lr_decay_steps": decays[name],
        }
        for name in rate
    }
    print(json.dumps(plan, indent=1), flush=True)
    procs = [launch(args, c, steps[c.stem], decays[c.stem]) for c in args.configs]
    wait_all(procs, deadline)
    print(f"done in {time.monotonic() - start:.1f} s", flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "plan.json").write_text(json.dumps(plan, indent=1))
        for c in args.configs:
            run = args.runs / c.stem
            stem = re.sub(r"[^A-Za-z0-9_.-]", "_", c.stem)  # names $OUT brings back
            for name in ("model.pt", "log.jsonl", "config.json"):
                if (run / name).exists():
                    shutil.copy(run / name, args.out / f"{stem}.{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
