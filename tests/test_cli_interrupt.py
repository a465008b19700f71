"""Ctrl-C ends any command with exit code 130 and one line, never a traceback."""

from __future__ import annotations

import sys

import pytest
import typer

import sparring.cli as cli
from sparring.errors import is_interrupt


def _interrupted_in_compiled_code() -> None:
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:  # numba wraps an interrupt inside compiled code like this
        raise SystemError("<built-in function> returned a result with an exception set") from exc


def _interrupted_as_typer_does() -> None:
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise typer.Abort() from exc
    except typer.Abort:
        sys.exit(1)  # typer prints "Aborted!" and exits 1


def test_is_interrupt_follows_causes() -> None:
    with pytest.raises(SystemError) as info:
        _interrupted_in_compiled_code()
    assert is_interrupt(info.value)
    assert not is_interrupt(SystemError("a real bug"))
    assert is_interrupt(KeyboardInterrupt())


@pytest.mark.parametrize("raiser", ["plain", "compiled", "typer"])
def test_main_exits_130_on_ctrl_c(
    raiser: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fake_app() -> None:
        if raiser == "plain":
            raise KeyboardInterrupt
        if raiser == "typer":
            _interrupted_as_typer_does()
        _interrupted_in_compiled_code()

    monkeypatch.setattr(cli, "_app_for", lambda argv: fake_app)  # what main() runs
    monkeypatch.setattr(sys, "argv", ["sparring", "match"])
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if raiser != "typer":
        assert "interrupted" in err


def test_main_keeps_other_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_app() -> None:
        raise SystemError("a real bug")

    monkeypatch.setattr(cli, "_app_for", lambda argv: fake_app)  # what main() runs
    with pytest.raises(SystemError, match="a real bug"):
        cli.main()
