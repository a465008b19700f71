"""Network evaluators: a policy/value network answering the search's evaluator protocol.

The protocol itself (:class:`~sparring.search.evaluator.Evaluator`: batched priors and values
of leaves, AlphaDDA app. 1.2) and the network-free evaluators (uniform, rollout, cached) live
in :mod:`sparring.search.evaluator`; they are re-exported here for old import paths.

* :class:`TorchEvaluator`: a :class:`~sparring.nn.model.PolicyValueNet` run by PyTorch
  (eval mode, ``inference_mode``); the only one that supports the heads' dropout at play time
  (AlphaDDA2).
* :class:`OnnxEvaluator`: the network run by ONNX Runtime, several times faster on CPU at
  small batches (see :func:`sparring.search.bench.benchmark_network`): a shipped network's
  ONNX file (:class:`~sparring.nn.onnx_runtime.OnnxPolicyValueNet`, no PyTorch) or a PyTorch
  network exported in memory; networks with dropout ``> 0`` are refused (use the torch path).

PyTorch and ONNX Runtime are imported only when a network evaluator is built, so the search
and the stub evaluators work without them; an ONNX file's evaluator needs no PyTorch at all.
"""

from __future__ import annotations

import io
import logging
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from sparring.nn.onnx_runtime import OnnxPolicyValueNet, inference_session, run_policy_value
from sparring.search.evaluator import (
    CachedEvaluator,
    Evaluator,
    LegalBatch,
    PlanesBatch,
    Priors,
    RolloutEvaluator,
    StateBatch,
    UniformEvaluator,
    Values,
    masked_softmax,
    uniform_priors,
)

if TYPE_CHECKING:  # PyTorch's module, imported when a PyTorch network is given
    from sparring.nn.model import PolicyValueNet


class TorchEvaluator:
    """A :class:`~sparring.nn.model.PolicyValueNet` run by PyTorch, on the CPU or on
    ``device`` (e.g. ``"cuda"``: the model is moved there; None: where the model is);
    batches go there and back.

    The network is put in evaluation mode (batch norm uses its running statistics) and run
    under :func:`torch.inference_mode`.  Its head dropout stays active while its probability
    is positive (AlphaDDA2; see :meth:`~sparring.nn.model.PolicyValueNet.set_dropout`).

    ``threads``: if not None, :func:`torch.set_num_threads` is called with it.  This is a
    process-wide PyTorch setting.
    """

    def __init__(
        self, model: PolicyValueNet, threads: int | None = 1, device: str | None = None
    ) -> None:
        # torch: imported when a network evaluator is built, not with this module
        import torch

        if threads is not None:
            torch.set_num_threads(int(threads))
        self._torch = torch
        if device is None:  # where the model is
            self.device = next(model.parameters()).device
        else:
            self.device = torch.device(device)
            model = model.to(self.device)
        self.model = model.eval()

    def forward(self, planes: PlanesBatch) -> tuple[npt.NDArray[np.float32], Values]:
        """Raw network outputs: policy logits ``[B, A]`` and values ``[B]`` (computed on
        ``device``, returned as CPU arrays)."""
        torch = self._torch
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(planes)).to(self.device)
            logits, values = self.model(x)
        return logits.float().cpu().numpy(), values.float().cpu().numpy()

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        logits, values = self.forward(planes)
        return masked_softmax(logits, legal), values.copy()


def export_onnx(model: PolicyValueNet) -> bytes:
    """The network as an ONNX model (dynamic batch size), exported in memory.

    Input ``planes`` float32 ``[B, C, H, W]``; outputs ``logits`` ``[B, A]`` and ``value``
    ``[B]``.  The head dropout must be 0 (it is not exported).
    """
    # torch: imported when a network is exported, not with this module
    import torch

    if model.dropout > 0.0:
        raise ValueError("cannot export a network with dropout > 0 to ONNX; use TorchEvaluator")
    config = model.config
    example = torch.zeros((1, config.input_planes, *config.board_shape), dtype=torch.float32)
    buffer = io.BytesIO()
    was_training = model.training
    model.eval()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model,
                (example,),
                buffer,  # type: ignore[arg-type]
                input_names=["planes"],
                output_names=["logits", "value"],
                dynamic_axes={name: {0: "batch"} for name in ("planes", "logits", "value")},
                dynamo=False,
            )
    finally:
        model.train(was_training)
    return buffer.getvalue()


def quantize_onnx(model_bytes: bytes, calibration: npt.NDArray[np.float32]) -> bytes:
    """``model_bytes`` (from :func:`export_onnx`) with int8 weights and activations.

    ONNX Runtime's static quantization: weights int8 per output channel, activations uint8
    with ranges from running the float network on ``calibration`` (``[N, C, H, W]`` planes,
    min-max), in the QDQ format, which ONNX Runtime fuses into integer convolutions.  On a
    CPU with VNNI instructions the network runs about 3 times faster (BENCHMARKS.md, "int8
    networks"), at the price of small differences in the outputs.
    """
    # onnxruntime: an optional package, imported only to quantize
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    if calibration.ndim != 4 or len(calibration) == 0:
        raise ValueError("calibration must be a non-empty [N, C, H, W] batch of planes")

    class _Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.start = 0

        def get_next(self) -> dict[str, npt.NDArray[np.float32]] | None:
            if self.start >= len(calibration):
                return None
            batch = calibration[self.start : self.start + 64]
            self.start += 64
            return {"planes": np.ascontiguousarray(batch, dtype=np.float32)}

    with tempfile.TemporaryDirectory(prefix="sparring-int8-") as folder:
        source = Path(folder, "float.onnx")
        target = Path(folder, "int8.onnx")
        source.write_bytes(model_bytes)
        previous = logging.root.manager.disable
        logging.disable(logging.WARNING)  # its advice to pre-process, logged on the root
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                quantize_static(
                    str(source),
                    str(target),
                    _Reader(),
                    quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8,
                    per_channel=True,
                )
        finally:
            logging.disable(previous)
        return target.read_bytes()


class OnnxEvaluator:
    """An AlphaZero network run by ONNX Runtime: a shipped network's ONNX file
    (:class:`~sparring.nn.onnx_runtime.OnnxPolicyValueNet`, no PyTorch needed) or a
    :class:`~sparring.nn.model.PolicyValueNet` exported in memory.

    Sequential execution with ``threads`` intra-op threads on the CPU execution provider.
    A PyTorch network is exported once, at construction: later changes to ``model`` are not
    seen; networks with head dropout ``> 0`` are refused (dropout at play time needs
    :class:`TorchEvaluator`).  With ``calibration`` planes the network runs in int8
    (:func:`quantize_onnx`).
    """

    def __init__(
        self,
        model: PolicyValueNet | OnnxPolicyValueNet,
        threads: int = 1,
        calibration: npt.NDArray[np.float32] | None = None,
    ) -> None:
        self.config = model.config
        self.quantized = calibration is not None
        if isinstance(model, OnnxPolicyValueNet):
            if calibration is None and threads == model.threads:
                self.session = model.session  # the file's own session
                return
            exported = model.path.read_bytes()
        else:
            exported = export_onnx(model)
        if calibration is not None:
            exported = quantize_onnx(exported, calibration)
        self.session = inference_session(exported, threads)

    def forward(self, planes: PlanesBatch) -> tuple[npt.NDArray[np.float32], Values]:
        """Raw network outputs: policy logits ``[B, A]`` and values ``[B]``."""
        return run_policy_value(self.session, planes)

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        logits, values = self.forward(planes)
        return masked_softmax(logits, legal), values.reshape(-1)


def onnxruntime_available() -> bool:
    """Whether ONNX Runtime (and the ``onnx`` package the exporter needs) can be imported."""
    try:  # optional packages: whether they import is the question
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


EVALUATOR_BACKENDS = ("auto", "torch", "onnx", "onnx-int8")
"""The values of ``backend`` in :func:`make_evaluator`."""


def make_evaluator(
    model: PolicyValueNet,
    backend: str = "auto",
    threads: int = 1,
    device: str = "cpu",
    calibration: npt.NDArray[np.float32] | None = None,
) -> TorchEvaluator | OnnxEvaluator:
    """The fastest suitable evaluator for ``model``.

    ``backend``: ``"torch"``, ``"onnx"`` or ``"auto"`` (ONNX Runtime when it is installed and
    the network has no dropout, else PyTorch), or ``"onnx-int8"`` (ONNX Runtime in int8,
    quantized with ``calibration`` planes, which it needs: :func:`quantize_onnx`).
    ``device`` other than ``"cpu"`` (a GPU, ``"cuda"``): always PyTorch on that device,
    whatever ``backend`` says.
    """
    if backend not in EVALUATOR_BACKENDS:
        raise ValueError(
            f"unknown evaluator backend {backend!r}; use {', '.join(EVALUATOR_BACKENDS)}"
        )
    if device != "cpu":
        return TorchEvaluator(model, threads=threads, device=device)
    if backend == "onnx-int8":
        if calibration is None:
            raise ValueError("the onnx-int8 backend needs calibration planes")
        return OnnxEvaluator(model, threads=threads, calibration=calibration)
    if backend == "onnx" or (
        backend == "auto" and model.dropout == 0.0 and onnxruntime_available()
    ):
        return OnnxEvaluator(model, threads=threads)
    return TorchEvaluator(model, threads=threads)


__all__ = [
    "EVALUATOR_BACKENDS",
    "CachedEvaluator",
    "Evaluator",
    "OnnxEvaluator",
    "RolloutEvaluator",
    "TorchEvaluator",
    "UniformEvaluator",
    "export_onnx",
    "make_evaluator",
    "masked_softmax",
    "onnxruntime_available",
    "quantize_onnx",
    "uniform_priors",
]
