"""The shipped networks run by ONNX Runtime, without PyTorch.

Every network a shipped player plays with comes as an ONNX file beside its PyTorch original
(``NAME.onnx`` next to ``NAME.pt``; written by ``scripts/export_onnx.py``, which needs
PyTorch): the engines, ``sparring play``, matches and the service read the ``.onnx`` and
run it with ONNX Runtime; feature encoding, symmetries and batching are numpy.  PyTorch is
needed only to train or export a network (the ``train`` and ``research`` extras).

An exported file carries, as ONNX metadata, what the ``.pt`` carries beside its weights:

* ``sparring.format``: ``sparring-policy-value-net`` (an AlphaZero network,
  :class:`OnnxPolicyValueNet`) or ``sparring-strength-net`` (a strength estimator or play
  network, :class:`OnnxStrengthNet`);
* ``sparring.config``: the network's configuration as JSON
  (:class:`~sparring.nn.config.NetworkConfig`, :class:`~sparring.nn.config.StrengthNetConfig`);
* ``sparring.metadata``: a strength network's metadata (reference scores, evaluation);
* ``sparring.source_sha256``: the SHA-256 of the ``.pt`` it was exported from, which the
  calibrations name (``model_sha256``).

The weights are the ``.pt``'s own, stored in the same precision under the same names (a
network stored in float16 keeps float16 initializers, cast to float32 when the session
starts), and BatchNorm is left to ONNX Runtime to fold into the convolutions, so an ``.onnx``
is a lossless copy of its ``.pt``: :func:`sparring.nn.onnx_export.state_dict_from_onnx`
rebuilds the PyTorch module from it.

A strength estimator (kinds ``se``, ``se_inf``, ``sl``) takes two files: ``NAME.onnx``, the
trunk with its policy and value heads, which also outputs the trunk's features, and
``NAME.head.onnx``, the strength head, fed the features, the move's planes
(:func:`~sparring.nn.config.action_planes`) and the policy's log-probability of the move, so
that SE-MCTS scores a leaf's edge from its parent's cached features without running the
trunk again.  A play network (kind ``play``) is one file, its input the state's planes
followed by the rank's one-hot planes (:func:`~sparring.nn.config.rank_planes`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from sparring.errors import MissingResourceError
from sparring.nn.config import NetworkConfig, StrengthNetConfig, action_planes, rank_planes

POLICY_VALUE_FORMAT = "sparring-policy-value-net"
"""``sparring.format`` of an AlphaZero network (as :func:`sparring.nn.model.save_model`)."""
STRENGTH_FORMAT = "sparring-strength-net"
"""``sparring.format`` of a strength network (as :mod:`sparring.nn.strength_net`)."""
FORMAT_KEY = "sparring.format"
CONFIG_KEY = "sparring.config"
METADATA_KEY = "sparring.metadata"
SOURCE_KEY = "sparring.source_sha256"
TORCH_INSTALL = "pip install 'sparring[train]'"
"""What installs PyTorch (the ``train`` extra; ``research`` has it too)."""
HEAD_SUFFIX = ".head.onnx"
"""A strength estimator's head file: ``NAME.head.onnx`` beside ``NAME.onnx``."""

Floats = npt.NDArray[np.float32]


def head_file(path: str | Path) -> Path:
    """The strength head's file of the network file ``path`` (``NAME.onnx`` ->
    ``NAME.head.onnx``)."""
    file = Path(path)
    return file.with_name(file.name.removesuffix(".onnx") + HEAD_SUFFIX)


def inference_session(model: bytes | str | Path, threads: int = 1) -> Any:
    """An ONNX Runtime session on the CPU: sequential execution with ``threads`` intra-op
    threads, every graph optimisation (BatchNorm folded into the convolutions)."""
    # onnxruntime: imported when a network is loaded, not with this module
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = int(threads)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    source = model if isinstance(model, bytes) else str(model)
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


def _open(path: Path, threads: int) -> tuple[Any, dict[str, str]]:
    """The session of the ONNX file ``path`` and its metadata; ValueError when it is not an
    ONNX model."""
    try:
        session = inference_session(path, threads)
    except Exception as exc:  # ONNX Runtime's own classes (Exception's), varying by version
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{path}: not an ONNX network ({first})") from None
    return session, dict(session.get_modelmeta().custom_metadata_map)


class OnnxPolicyValueNet:
    """An AlphaZero network's ONNX file (``planes [B, C, H, W] -> logits [B, A], value
    [B]``) in an ONNX Runtime session."""

    def __init__(
        self,
        session: Any,
        config: NetworkConfig,
        source_sha256: str | None,
        path: Path,
        threads: int = 1,
    ) -> None:
        self.session = session
        self.config = config
        self.path = path
        """The ONNX file."""
        self.threads = threads
        """The session's intra-op threads."""
        self.source_sha256 = source_sha256
        """SHA-256 of the ``.pt`` the file was exported from (None: not recorded)."""

    def forward(self, planes: Floats) -> tuple[Floats, Floats]:
        """Policy logits ``[B, A]`` and values ``[B]``."""
        return run_policy_value(self.session, planes)


def run_policy_value(session: Any, planes: Floats) -> tuple[Floats, Floats]:
    """Policy logits ``[B, A]`` and values ``[B]`` of an AlphaZero network's ONNX Runtime
    ``session`` (the shipped file's or an in-memory export's)."""
    logits, values = session.run(None, {"planes": np.ascontiguousarray(planes, dtype=np.float32)})
    return np.asarray(logits, np.float32), np.asarray(values, np.float32).reshape(-1)


class StrengthNetwork(Protocol):
    """A strength network on numpy arrays: :class:`OnnxStrengthNet`, or a PyTorch
    :class:`~sparring.nn.strength_net.StrengthNet` behind
    :class:`~sparring.nn.strength_net.TorchStrengthRunner`."""

    config: StrengthNetConfig

    def trunk(self, planes: Floats) -> tuple[Floats, Floats, Floats]:
        """The trunk's features ``[B, channels, H, W]``, policy logits ``[B, A]`` and values
        ``[B]`` (an estimator, not a play network)."""
        ...

    def strength(self, features: Floats, logits: Floats, actions: npt.NDArray[np.int64]) -> Floats:
        """Scores ``[B, outputs]`` of the moves ``actions`` in the states of ``features``
        (with their policy ``logits``)."""
        ...

    def play(self, planes: Floats, ranks: npt.NDArray[np.int64]) -> tuple[Floats, Floats]:
        """A play network's logits ``[B, A]`` and values ``[B]`` for players of ``ranks``
        (rank indices, 0 = strongest)."""
        ...


def log_prob_of(logits: Floats, actions: npt.NDArray[np.int64]) -> Floats:
    """``log softmax(logits)[b, actions[b]]`` as ``[B, 1]`` (the strength head's prior input),
    computed in float64 and rounded."""
    z = logits.astype(np.float64)
    z -= z.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(z).sum(axis=1, keepdims=True))
    picked = np.take_along_axis(z, actions.reshape(-1, 1), axis=1)
    return (picked - log_norm).astype(np.float32)


class OnnxStrengthNet:
    """A strength network's ONNX file(s) in ONNX Runtime sessions (a
    :class:`StrengthNetwork`): the trunk (with the policy and value heads) and, for an
    estimator, the strength head."""

    def __init__(
        self,
        trunk: Any,
        head: Any | None,
        config: StrengthNetConfig,
        metadata: Mapping[str, Any],
        source_sha256: str | None,
    ) -> None:
        self.session = trunk
        self.head = head
        self.config = config
        self.metadata = dict(metadata)
        """The network file's metadata (reference scores, evaluation)."""
        self.source_sha256 = source_sha256

    def trunk(self, planes: Floats) -> tuple[Floats, Floats, Floats]:
        if self.config.kind == "play":
            raise MissingResourceError("a play network's input includes the rank: use play()")
        features, logits, values = self.session.run(
            None, {"planes": np.ascontiguousarray(planes, dtype=np.float32)}
        )
        return (
            np.asarray(features, np.float32),
            np.asarray(logits, np.float32),
            np.asarray(values, np.float32).reshape(-1),
        )

    def strength(self, features: Floats, logits: Floats, actions: npt.NDArray[np.int64]) -> Floats:
        if self.head is None:
            raise MissingResourceError(f"a {self.config.kind} network has no strength head")
        moves = np.asarray(actions, dtype=np.int64).reshape(-1)
        feeds = {
            "features": np.ascontiguousarray(features, dtype=np.float32),
            "moves": action_planes(self.config.game, moves),
        }
        if self.config.prior_input:
            feeds["log_prior"] = log_prob_of(np.asarray(logits, np.float32), moves)
        (scores,) = self.head.run(None, feeds)
        return np.asarray(scores, np.float32)

    def play(self, planes: Floats, ranks: npt.NDArray[np.int64]) -> tuple[Floats, Floats]:
        if self.config.kind != "play":
            raise MissingResourceError(f"a {self.config.kind} network has no rank input")
        x = rank_planes(np.asarray(planes, np.float32), ranks, len(self.config.ranks))
        logits, values = self.session.run(None, {"planes": x})
        return np.asarray(logits, np.float32), np.asarray(values, np.float32).reshape(-1)

    def forward(
        self, planes: Floats, actions: npt.NDArray[np.int64]
    ) -> tuple[Floats, Floats, Floats]:
        """Policy logits, values and scores of the pairs ``(planes[b], actions[b])`` (as
        :meth:`sparring.nn.strength_net.StrengthNet.forward`)."""
        features, logits, values = self.trunk(planes)
        return logits, values, self.strength(features, logits, actions)


def load_onnx_network(path: str | Path, threads: int = 1) -> OnnxPolicyValueNet | OnnxStrengthNet:
    """The network of the ONNX file ``path`` (and, for a strength estimator, its head file
    :func:`head_file`), ready to run.  :class:`~sparring.errors.MissingResourceError` when
    a file is missing or not a sparring network, saying which."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise MissingResourceError(f"network file {str(file)!r} not found")
    try:
        session, meta = _open(file, threads)
    except ValueError as exc:
        raise MissingResourceError(str(exc)) from None
    kind = meta.get(FORMAT_KEY)
    try:
        if kind == POLICY_VALUE_FORMAT:
            config = NetworkConfig.from_json(meta[CONFIG_KEY])
            return OnnxPolicyValueNet(session, config, meta.get(SOURCE_KEY), file, threads)
        if kind == STRENGTH_FORMAT:
            strength = StrengthNetConfig.from_json(meta[CONFIG_KEY])
            metadata = json.loads(meta.get(METADATA_KEY, "{}"))
    except (KeyError, ValueError) as exc:
        raise MissingResourceError(
            f"{file}: a sparring network with a bad config ({exc})"
        ) from None
    if kind != STRENGTH_FORMAT:
        raise MissingResourceError(f"{file}: not a sparring network (no {FORMAT_KEY} metadata)")
    head = None
    if strength.kind != "play":
        head_path = head_file(file)
        if not head_path.is_file():
            raise MissingResourceError(f"{file}: its strength head {str(head_path)!r} is missing")
        try:
            head = _open(head_path, threads)[0]
        except ValueError as exc:
            raise MissingResourceError(str(exc)) from None
    return OnnxStrengthNet(session, head, strength, metadata, meta.get(SOURCE_KEY))


def read_onnx_weights(path: str | Path) -> tuple[dict[str, str], dict[str, npt.NDArray[Any]]]:
    """The metadata and the weights (initializers, by name, in their stored dtype) of the
    ONNX file ``path`` and, when there is one, of its strength head (:func:`head_file`): what
    PyTorch needs to rebuild the module (:func:`sparring.nn.model.load_model`,
    :func:`sparring.nn.strength_net.load_strength_model`).  Needs the ``onnx`` package (the
    ``train`` and ``research`` extras).  ValueError when a file is not an ONNX model."""
    # onnx: reads the initializers; only PyTorch's loaders need it (the train extra)
    import onnx
    from onnx import numpy_helper

    meta: dict[str, str] = {}
    weights: dict[str, npt.NDArray[Any]] = {}
    file = Path(path)
    for part in (file, head_file(file)):
        if part != file and not part.is_file():
            continue
        try:
            model = onnx.load(str(part))
        except Exception as exc:  # protobuf's decode errors, varying by version
            raise ValueError(f"{part}: not an ONNX network ({type(exc).__name__})") from None
        if part == file:
            meta = {p.key: p.value for p in model.metadata_props}
        weights.update({t.name: numpy_helper.to_array(t) for t in model.graph.initializer})
    return meta, weights


def onnx_source_sha256(path: str | Path) -> str | None:
    """The SHA-256 of the ``.pt`` the ONNX file ``path`` was exported from, as the file
    records it (None when it does not, or is not an ONNX model)."""
    # onnxruntime: reads the file's metadata, imported when asked
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception:  # ONNX Runtime's own classes (Exception's): not a model
        return None
    return dict(session.get_modelmeta().custom_metadata_map).get(SOURCE_KEY)


__all__ = [
    "CONFIG_KEY",
    "FORMAT_KEY",
    "HEAD_SUFFIX",
    "METADATA_KEY",
    "POLICY_VALUE_FORMAT",
    "SOURCE_KEY",
    "STRENGTH_FORMAT",
    "TORCH_INSTALL",
    "OnnxPolicyValueNet",
    "OnnxStrengthNet",
    "StrengthNetwork",
    "head_file",
    "inference_session",
    "load_onnx_network",
    "log_prob_of",
    "onnx_source_sha256",
    "read_onnx_weights",
    "run_policy_value",
]
