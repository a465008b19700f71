"""Exporting a network file to the ONNX file(s) the engines run (:mod:`sparring.nn.onnx_runtime`).

Needs PyTorch and the ``onnx`` package (the ``train`` extra); ``scripts/export_onnx.py``
exports every shipped network with :func:`export_network_file`.

The export is PyTorch's TorchScript exporter at a fixed opset, without constant folding, so
that every weight stays an initializer under its ``state_dict`` name and BatchNorm stays a
node (ONNX Runtime folds it into the convolution when a session starts); a network whose
``.pt`` stores float16 weights keeps them in float16, each cast to float32 by a ``Cast`` node,
so the file is no larger than the ``.pt`` and holds exactly its numbers.  The same network
exported twice gives the same bytes (with the same PyTorch and ``onnx``).
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper
from torch import nn

from sparring.nn.model import PolicyValueNet, load_model
from sparring.nn.onnx_runtime import (
    CONFIG_KEY,
    FORMAT_KEY,
    METADATA_KEY,
    POLICY_VALUE_FORMAT,
    SOURCE_KEY,
    STRENGTH_FORMAT,
    head_file,
)
from sparring.nn.strength_net import StrengthNet, load_strength_model, strength_head

OPSET = 17
"""The ONNX opset of the exported files (ONNX Runtime 1.14 and later run it)."""


class _Trunk(nn.Module):
    """A strength estimator's trunk: planes -> features, logits, value."""

    def __init__(self, net: StrengthNet) -> None:
        super().__init__()
        self.az = net.az

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.az.forward_features(planes)


class _Play(nn.Module):
    """A play network: planes with the rank's planes -> logits, value."""

    def __init__(self, net: StrengthNet) -> None:
        super().__init__()
        self.az = net.az

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out: tuple[torch.Tensor, torch.Tensor] = self.az(planes)
        return out


class _Head(nn.Module):
    """A strength estimator's head: features, move planes (, log prior) -> scores."""

    def __init__(self, net: StrengthNet) -> None:
        super().__init__()
        self.head_conv = net.head_conv
        self.head_fc = net.head_fc
        self.prior_input = net.config.prior_input

    def forward(
        self, features: torch.Tensor, moves: torch.Tensor, *prior: torch.Tensor
    ) -> torch.Tensor:
        log_prior = prior[0] if prior else None
        return strength_head(self.head_conv, self.head_fc, features, moves, log_prior)


def _export(
    module: nn.Module,
    example: tuple[torch.Tensor, ...],
    inputs: Sequence[str],
    outputs: Sequence[str],
) -> onnx.ModelProto:
    buffer = io.BytesIO()
    module.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            example,
            buffer,  # type: ignore[arg-type]
            input_names=list(inputs),
            output_names=list(outputs),
            dynamic_axes={name: {0: "batch"} for name in (*inputs, *outputs)},
            opset_version=OPSET,
            do_constant_folding=False,
            dynamo=False,
        )
    return onnx.load_from_string(buffer.getvalue())


def _store_half(model: onnx.ModelProto) -> None:
    """Store every float32 initializer in float16 (each must be exactly a float16 number,
    as the weights of a ``.pt`` saved in float16 are), under its own name, and cast it back
    to float32 by a ``Cast`` node at the graph's start, whose output the graph reads instead."""
    graph = model.graph
    casts = []
    renamed = {}
    for init in graph.initializer:
        if init.data_type != onnx.TensorProto.FLOAT:
            continue
        values = numpy_helper.to_array(init)
        half = values.astype(np.float16)
        if not np.array_equal(half.astype(np.float32), values):
            raise ValueError(f"weight {init.name!r} is not float16: it cannot be stored so")
        init.CopyFrom(numpy_helper.from_array(half, init.name))
        renamed[init.name] = init.name + ":float32"
        casts.append(
            helper.make_node("Cast", [init.name], [renamed[init.name]], to=onnx.TensorProto.FLOAT)
        )
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name in renamed:
                node.input[i] = renamed[name]
    nodes = [*casts, *graph.node]
    del graph.node[:]
    graph.node.extend(nodes)


def _finish(model: onnx.ModelProto, props: Mapping[str, str], half: bool) -> bytes:
    if half:
        _store_half(model)
    helper.set_model_props(model, dict(props))
    onnx.checker.check_model(model)
    data: bytes = model.SerializeToString()
    return data


def _stores_half(path: Path) -> bool:
    """Whether the ``.pt`` file ``path`` stores its floating-point weights in float16."""
    payload = torch.load(path, map_location="cpu", weights_only=True)
    floats = [v for v in payload["state_dict"].values() if v.is_floating_point()]
    return bool(floats) and all(v.dtype == torch.float16 for v in floats)


def export_policy_value(
    model: PolicyValueNet, source_sha256: str | None = None, half: bool = False
) -> bytes:
    """An AlphaZero network as an ONNX file: input ``planes`` ``[B, C, H, W]``, outputs
    ``logits`` ``[B, A]`` and ``value`` ``[B]``; its config and ``source_sha256`` (the
    ``.pt``'s SHA-256) in the metadata.  The head dropout must be 0."""
    if model.dropout > 0.0:
        raise ValueError("cannot export a network with dropout > 0 to ONNX")
    config = model.config
    example = (torch.zeros((1, config.input_planes, *config.board_shape)),)
    graph = _export(model, example, ["planes"], ["logits", "value"])
    props = {FORMAT_KEY: POLICY_VALUE_FORMAT, CONFIG_KEY: config.to_json()}
    if source_sha256:
        props[SOURCE_KEY] = source_sha256
    return _finish(graph, props, half)


def export_strength(
    model: StrengthNet,
    metadata: Mapping[str, Any],
    source_sha256: str | None = None,
    half: bool = False,
) -> tuple[bytes, bytes | None]:
    """A strength network as ONNX files: the trunk (``planes`` -> ``features``, ``logits``,
    ``value``; a play network: ``planes`` with the rank's planes -> ``logits``, ``value``)
    with the config, ``metadata`` and ``source_sha256`` in its metadata, and for an
    estimator the head (``features``, ``moves`` and, with ``prior_input``, ``log_prior`` ->
    ``scores``; None for a play network)."""
    config = model.config
    net = config.network_config()
    planes = torch.zeros((1, net.input_planes, *net.board_shape))
    props = {
        FORMAT_KEY: STRENGTH_FORMAT,
        CONFIG_KEY: config.to_json(),
        METADATA_KEY: json.dumps(dict(metadata), sort_keys=True),
    }
    if source_sha256:
        props[SOURCE_KEY] = source_sha256
    if config.kind == "play":
        graph = _export(_Play(model), (planes,), ["planes"], ["logits", "value"])
        return _finish(graph, props, half), None
    trunk = _export(_Trunk(model), (planes,), ["planes"], ["features", "logits", "value"])
    features = torch.zeros((1, config.channels, *net.board_shape))
    moves = torch.zeros((1, model.action_planes.num_planes, *net.board_shape))
    example: tuple[torch.Tensor, ...] = (features, moves)
    names = ["features", "moves"]
    if config.prior_input:
        example, names = (*example, torch.zeros((1, 1))), [*names, "log_prior"]
    head = _export(_Head(model), example, names, ["scores"])
    head_props = {FORMAT_KEY: STRENGTH_FORMAT + "-head", CONFIG_KEY: config.to_json()}
    return _finish(trunk, props, half), _finish(head, head_props, half)


def file_sha256(path: Path) -> str:
    """SHA-256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_network_file(source: Path) -> dict[Path, bytes]:
    """The ONNX file(s) of the network file ``source`` (an AlphaZero network or a strength
    network ``.pt``), by the path each belongs at (``NAME.onnx`` beside it, and
    ``NAME.head.onnx`` for an estimator), exported in the ``.pt``'s precision."""
    digest = file_sha256(source)
    half = _stores_half(source)
    target = source.with_suffix(".onnx")
    payload = torch.load(source, map_location="cpu", weights_only=True)
    if payload.get("format") == POLICY_VALUE_FORMAT:
        return {target: export_policy_value(load_model(source), digest, half)}
    model, metadata = load_strength_model(source)
    trunk, head = export_strength(model, metadata, digest, half)
    files = {target: trunk}
    if head is not None:
        files[head_file(target)] = head
    return files


__all__ = [
    "OPSET",
    "export_network_file",
    "export_policy_value",
    "export_strength",
    "file_sha256",
]
