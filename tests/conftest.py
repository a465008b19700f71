"""Test setup: register every built-in player kind (the composition root :mod:`sparring.kinds`,
which the command line imports too)."""

import sparring.kinds  # noqa: F401
