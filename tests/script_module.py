"""The repository's scripts (``scripts/NAME.py``, ``research/NAME.py``) as modules, for the tests
of their pieces."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
RESEARCH = SCRIPTS.parent / "research"


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` (or ``research/NAME.py``) loaded as the module ``NAME``, registered
    in ``sys.modules`` (a script's dataclasses look their module up there)."""
    path = SCRIPTS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(
        name, path if path.is_file() else RESEARCH / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
