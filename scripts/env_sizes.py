"""The size of a core install of sparring and of one with every user extra, and what the
core pulls in (BENCHMARKS.md, "Install size").

Builds the wheel, creates fresh virtual environments under a temporary folder (outside the
repository), installs the wheel there with ``pip`` (the core; then with ``serve,train,research,
ray``), and prints each environment's size (``du -sh``) and the core's packages as resolved by
``pip install --dry-run --report``, checking that no web, database, Ray or training package
(PyTorch, onnx) is among them.

    python scripts/env_sizes.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FORBIDDEN = {"fastapi", "uvicorn", "starlette", "httptools", "uvloop", "sqlalchemy", "psycopg",
             "ray", "locust"}  # fmt: skip
"""Packages a core install must not pull in (web, database, Ray).  Not pydantic: typer, a core
dependency, requires it in its recent releases."""
TRAINING = {"torch", "onnx"}
"""Packages of the ``train`` and ``research`` extras the core plays without (the engines run
the networks' ONNX files with ONNX Runtime)."""


def run(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def size(path: Path) -> str:
    return run("du", "-sh", str(path)).split()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="Folder for the environments (kept).")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="sparring-envs-"))
    root.mkdir(parents=True, exist_ok=True)
    dist = root / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
        "-w", str(dist), str(REPO))  # fmt: skip
    (wheel,) = dist.glob("sparring-*.whl")
    print(f"wheel {wheel.name}: {size(wheel)}")
    for name, extras in (("core", ""), ("full", "[serve,train,research,ray]")):
        env = root / name
        venv.EnvBuilder(with_pip=True).create(env)
        pip = [str(env / "bin" / "python"), "-m", "pip"]
        if name == "core":
            report = json.loads(
                run(*pip, "install", "--dry-run", "--quiet", "--report", "-", str(wheel))
            )
            names = sorted(item["metadata"]["name"].lower() for item in report["install"])
            print(f"core resolves to {len(names)} packages: {', '.join(names)}")
            pulled = sorted(FORBIDDEN & set(names))
            print(f"web, database or Ray packages in the core: {pulled or 'none'}")
            training = sorted(TRAINING & set(names))
            print(f"training packages (PyTorch, onnx) in the core: {training or 'none'}")
        run(*pip, "install", "--quiet", f"{wheel}{extras}")
        print(f"{name} environment (sparring{extras or ''}): {size(env)}")
        heavy = run(
            "sh", "-c", f"du -s {env}/lib/python3*/site-packages/* | sort -rn | head -5"
        ).split("\n")
        print("  largest:", "; ".join(
            f"{Path(p).name} {int(k) // 1024} MB" for k, p in (r.split("\t") for r in heavy if r)
        ))  # fmt: skip


if __name__ == "__main__":
    main()
