"""The policy/value network (AlphaDDA app. 1.1) and the evaluators the PUCT search calls.

:mod:`sparring.nn.evaluators` does not need PyTorch until a PyTorch network's evaluator is
built (the shipped networks' ONNX files run without it: :mod:`sparring.nn.onnx_runtime`); the
network itself lives in :mod:`sparring.nn.model` (PyTorch), whose names are importable from
here too (loaded on first use).
"""

from __future__ import annotations

from typing import Any

from sparring.nn.evaluators import (
    Evaluator,
    OnnxEvaluator,
    RolloutEvaluator,
    TorchEvaluator,
    UniformEvaluator,
    make_evaluator,
)

_MODEL_NAMES = ("NetworkConfig", "PolicyValueNet", "build_model", "load_model", "save_model")


def __getattr__(name: str) -> Any:
    if name in _MODEL_NAMES:
        # torch: the network module is loaded on first use of one of its names
        from sparring.nn import model

        return getattr(model, name)
    raise AttributeError(f"module 'sparring.nn' has no attribute {name!r}")


__all__ = [
    "Evaluator",
    "NetworkConfig",
    "OnnxEvaluator",
    "PolicyValueNet",
    "RolloutEvaluator",
    "TorchEvaluator",
    "UniformEvaluator",
    "build_model",
    "load_model",
    "make_evaluator",
    "save_model",
]
