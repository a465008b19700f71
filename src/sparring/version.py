"""The version of sparring (a foundation module: importable from every layer)."""

__version__ = "0.1.0"
