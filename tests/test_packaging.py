"""Packaging: a light core install (the web and database stack is the ``serve`` extra, PyTorch
the ``train`` and ``research`` extras), and a wheel that plays outside the repository without
PyTorch (its package data: the networks' ONNX files, calibrations, level tables, ladders),
through ``sparring play``, ``sparring uci`` and ``sparring gtp``."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from sparring.players.external import find_program

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SERVE_STACK = ("fastapi", "uvicorn", "sqlalchemy", "pydantic", "psycopg", "httptools", "uvloop")
"""Packages only ``sparring serve`` needs."""


def _names(requirements: list[str]) -> set[str]:
    out = set()
    for req in requirements:
        name = req.split(";")[0].strip()
        for stop in "[<>=!~ ":
            name = name.split(stop)[0]
        out.add(name.lower())
    return out


def test_the_core_install_pulls_no_web_database_ray_or_training_package() -> None:
    core = _names(PYPROJECT["project"]["dependencies"])
    assert not core & {*SERVE_STACK, "ray", "locust", "torch", "onnx"}, core
    assert "onnxruntime" in core  # runs the shipped networks' ONNX files
    extras = PYPROJECT["project"]["optional-dependencies"]
    for extra in ("train", "research"):  # the pin and the exporter where PyTorch is needed
        assert "torch==2.13.0" in extras[extra] and "onnx" in _names(extras[extra])
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(SERVE_STACK) <= _names(extras["serve"])
    assert "ray" in _names(extras["ray"])
    assert "sparring[serve,train,research,ray]" in extras["dev"]  # the tests run them all
    assert "matplotlib" not in core and "matplotlib" in _names(extras["research"])
    assert "matplotlib" in _names(extras["train"]) and "bitbully" in _names(extras["research"])


def test_a_plot_without_matplotlib_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"  # as if it were not installed
        "from sparring.cli import main\n"
        "sys.argv = ['sparring', 'match', 'connect4', 'random', 'random', '--games', '2', "
        f"'--store', {str(tmp_path / 'g.db')!r}, '--plot', {str(tmp_path / 'p.png')!r}]\n"
        "main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "error: --plot needs matplotlib, which is not installed: pip install 'sparring[research]'"
    )


def test_serve_without_its_extra_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['fastapi'] = None\n"  # as if fastapi were not installed
        "from sparring.cli import main; sys.argv = ['sparring', 'serve']; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "error: sparring serve needs the web and database packages (fastapi is missing): "
        "pip install 'sparring[serve]'"
    )


def test_a_training_command_without_torch_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"  # as if PyTorch were not installed
        "from sparring.cli import main\n"
        f"sys.argv = ['sparring', 'train', 'connect4', '--out', {str(tmp_path / 'run')!r}]\n"
        "main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "error: this command needs PyTorch, which is not installed: pip install 'sparring[train]'"
    )


NO_TORCH = (
    "import sys\n"
    "sys.modules['torch'] = None  # the core runs without PyTorch\n"
    "sys.modules['onnx'] = None\n"
)
"""A ``sitecustomize.py`` that makes PyTorch (and onnx) unimportable in the wheel's
environment, whose dependencies are this environment's (PyTorch among them)."""


@pytest.mark.slow
def test_a_wheel_plays_outside_the_repository(tmp_path: Path) -> None:
    """Build the wheel, install it (without dependencies: those of this environment serve)
    into a fresh virtual environment outside the repository with PyTorch made unimportable,
    and play from there: Connect Four at an Elo (the az network), chess over UCI at an Elo
    (the human-like network, with Stockfish), 19x19 Go over GTP at a rank (the play
    network)."""
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "-w", str(dist), str(REPO)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = dist.glob("sparring-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = [
            line.split(":", 1)[1].strip()
            for line in archive.read(metadata).decode().splitlines()
            if line.startswith("Requires-Dist:")
        ]
    # what pip resolves for `pip install sparring` (no extra): no PyTorch, no onnx
    core = _names([r for r in requires if "extra ==" not in r])
    assert "onnxruntime" in core and not core & {"torch", "onnx"}, core
    assert "torch" in _names([r for r in requires if 'extra == "train"' in r])
    assert "sparring/models/connect4.onnx" in names and "sparring/models/go9.onnx" in names
    assert "sparring/models/estimators/go-se.head.onnx" in names
    assert "sparring/models/ladders/baselines-connect4.json" in names
    assert not [n for n in names if n.endswith(".pt")], "the wheel ships the ONNX files only"
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    target = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--target", target, str(wheel)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-2000:]
    # the dependencies: this environment's packages, after the wheel's (a path line of a
    # .pth file; this environment's own editable sparring is not loaded from there)
    (Path(target) / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    (Path(target) / "sitecustomize.py").write_text(NO_TORCH)
    work = tmp_path / "elsewhere"
    work.mkdir()
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}

    def sparring(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), "-m", "sparring", *args], input=stdin, capture_output=True,
            text=True, timeout=300, cwd=work, env=environ, check=False,
        )  # fmt: skip

    where = sparring("--version", stdin="")
    assert where.returncode == 0 and where.stdout.startswith("sparring ")
    origin = subprocess.run(
        [str(python), "-c", "import sparring; print(sparring.__file__)"],
        capture_output=True, text=True, cwd=work, env=environ, check=True,
    ).stdout  # fmt: skip
    assert origin.startswith(target), origin  # the wheel's package, not the repository's
    blocked = subprocess.run(
        [str(python), "-c", "import torch"], capture_output=True, text=True, cwd=work,
        env=environ, check=False,
    )  # fmt: skip
    assert blocked.returncode == 1 and "ModuleNotFoundError" in blocked.stderr  # no PyTorch
    played = sparring("play", "connect4", "--elo", "1200", "--seed", "1", stdin="4\n4\nquit\n")
    assert played.returncode == 0, played.stderr
    assert "Level: Elo 1200 (the Connect Four baseline ladder)" in played.stdout
    assert played.stdout.count("your move>") == 3  # two moves played, each answered
    if find_program("stockfish") is not None:  # the chess levels search with its values
        uci = sparring("uci", "--elo", "1500", stdin="uci\nisready\nposition startpos\n"
                       "go movetime 500\nquit\n")  # fmt: skip
        assert uci.returncode == 0 and "bestmove " in uci.stdout, uci.stderr
        assert "player human-mcts:sf_elo=1500" in uci.stdout  # the network's level
    gtp = sparring("gtp", "--rank", "12k", stdin="boardsize 19\nclear_board\ngenmove b\nquit\n")
    assert gtp.returncode == 0, gtp.stderr
    answers = [line for line in gtp.stdout.splitlines() if line.startswith("=")]
    assert len(answers) == 4 and len(answers[2]) > 2, gtp.stdout  # "= Q16"-like move
    # the rating commands find their shipped ladder in the installed package
    ladder = subprocess.run(
        [str(python), "-c", "from sparring.cli.common import default_ladder; "
         "print(default_ladder('connect4'))"],
        capture_output=True, text=True, cwd=work, env=environ, check=True,
    ).stdout.strip()  # fmt: skip
    assert ladder.startswith(target) and ladder.endswith("ladders/baselines-connect4.json")
