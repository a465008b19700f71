"""Packaging: a light core install (the web and database stack is the ``serve`` extra), and a
wheel that plays outside the repository (its package data: networks, calibrations, level
tables), through ``sparring play``, ``sparring uci`` and ``sparring gtp``."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

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


def test_the_core_install_pulls_no_web_database_or_ray_package() -> None:
    core = _names(PYPROJECT["project"]["dependencies"])
    assert not core & {*SERVE_STACK, "ray", "locust"}, core
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


@pytest.mark.slow
def test_a_wheel_plays_outside_the_repository(tmp_path: Path) -> None:
    """Build the wheel, install it (without dependencies: those of this environment serve)
    into a fresh virtual environment outside the repository, and play from there."""
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "-w", str(dist), str(REPO)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = dist.glob("sparring-*.whl")
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
    played = sparring("play", "connect4", "--elo", "1200", "--seed", "1", stdin="4\n4\nquit\n")
    assert played.returncode == 0, played.stderr
    assert "Level: Elo 1200 (the Connect Four baseline ladder)" in played.stdout
    uci = sparring("uci", "--player", "uct:sims=20", stdin="uci\nisready\nposition startpos\n"
                   "go movetime 200\nquit\n")  # fmt: skip
    assert uci.returncode == 0 and "bestmove " in uci.stdout, uci.stderr
    gtp = sparring("gtp", "--game", "go9", "--player", "uct:sims=20",
                   stdin="boardsize 9\nclear_board\ngenmove b\nquit\n")  # fmt: skip
    assert gtp.returncode == 0, gtp.stderr
    answers = [line for line in gtp.stdout.splitlines() if line.startswith("=")]
    assert len(answers) == 4 and len(answers[2]) > 2, gtp.stdout  # "= C3"-like move
