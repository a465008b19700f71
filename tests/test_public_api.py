"""The public Python API: ``import sparring`` is light, its names load on first use, and the
README's example runs as written."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _readme_example() -> str:
    text = README.read_text()
    match = re.search(r"<!-- api-example -->\n```python\n(.*?)```", text, re.S)
    assert match, "README has no '<!-- api-example -->' python block"
    return match.group(1)


def test_import_sparring_is_light() -> None:
    code = "import sys, sparring; print('torch' in sys.modules, 'sparring.session' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_api_names_load_lazily_and_match_all() -> None:
    import sparring
    import sparring.api

    for name in sparring.api.__all__:
        assert getattr(sparring, name) is getattr(sparring.api, name)
    assert set(sparring.api.__all__) <= set(dir(sparring))
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        _ = sparring.nosuch  # type: ignore[attr-defined]


def test_readme_example_runs() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_readme_example(), str(README), "exec"), {"__name__": "__readme__"})
    text = out.getvalue()
    assert re.search(r"^AI plays \d = move number \d$", text, re.M)
    assert "1500.0" in text  # the Elo the SA player played, from its analysis record
    assert "# game: connect4" in text and "# result:" in text


def test_errors_say_what_a_server_answers() -> None:
    import sparring

    game = sparring.get_game("connect4")
    with pytest.raises(sparring.BadValueError) as bad:
        sparring.settings_from_json({"kind": "uct", "sims": 0})
    assert bad.value.http_status == 422 and bad.value.key == "sims"
    with pytest.raises(sparring.UnknownNameError) as unknown:
        sparring.settings_from_json({"kind": "uct", "nosuch": 1})
    assert unknown.value.http_status == 404 and unknown.value.key == "nosuch"
    session = sparring.GameSession(game)
    with pytest.raises(sparring.IllegalMoveError):
        for _ in range(7):
            session.play(0)
