"""How compiled searches call a game's kernels: fixed numba function types and addresses.

A game's rules reach the compiled searches (:mod:`sparring.search.puct`,
:mod:`sparring.search.uct`, the minimax player) as its :class:`~sparring.games.base.Kernels`:
numba-compiled functions over ``uint64[:]`` positions.  One compiled, disk-cached search
serves every game because the kernels are passed as *first-class function values of fixed
types* (the ``*_TYPE`` constants below), never as plain dispatcher arguments (whose types are
not stable across processes, so numba's cache would miss and every game would recompile in
every process).

Two ways of passing a kernel exist:

* as a first-class function argument of one of the :data:`KERNEL_TYPES` (the UCT and minimax
  searches): numba unboxes it by calling back into Python (about 8 microseconds per kernel per
  call), negligible for one long search;
* as the integer address of its compiled code (:class:`KernelAddress`), turned back into a
  function value inside the compiled code by an intrinsic (``legal_moves_at(address)`` ...):
  an int unboxes in nanoseconds, which matters for the PUCT search, called once per batch of
  leaves.  :func:`kernel_addresses` gives a game's kernels in this form (cached).

The PUCT selection's score hook (:mod:`sparring.search.hooks`) is passed the same way, as an
address of a function of :data:`SCORE_HOOK_TYPE`.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numba as nb
import numpy as np
from numba.core import cgutils
from numba.core.extending import intrinsic

from sparring.games.base import Kernels, State

STATE_TYPE = nb.types.Array(nb.types.uint64, 1, "C")
"""A position: every compiled game stores positions as ``uint64[:]``."""
STATES_TYPE = nb.types.Array(nb.types.uint64, 2, "C")
"""Positions, one per row."""
MOVES_TYPE = nb.types.Array(nb.types.int64, 1, "C")
PLANES_TYPE = nb.types.Array(nb.types.float32, 3, "C")
PARAMS_TYPE = nb.types.Array(nb.types.float64, 1, "C")
"""A float parameter (or context) vector passed to a compiled callback."""
LEGAL_MOVES_TYPE = nb.types.FunctionType(nb.types.int64(STATE_TYPE, MOVES_TYPE))
PLAY_TYPE = nb.types.FunctionType(nb.types.none(STATE_TYPE, nb.types.int64))
STATUS_TYPE = nb.types.FunctionType(nb.types.int64(STATE_TYPE))
TO_MOVE_TYPE = nb.types.FunctionType(nb.types.int64(STATE_TYPE))
RANDOM_PLAYOUT_TYPE = nb.types.FunctionType(nb.types.int64(STATE_TYPE, STATE_TYPE))
ENCODE_TYPE = nb.types.FunctionType(nb.types.none(STATE_TYPE, PLANES_TYPE))
KERNEL_TYPES = (LEGAL_MOVES_TYPE, PLAY_TYPE, STATUS_TYPE, TO_MOVE_TYPE, RANDOM_PLAYOUT_TYPE)
"""The types of the first five :class:`~sparring.games.base.Kernels`, in their order."""

_F64 = nb.types.float64
SCORE_HOOK_TYPE = nb.types.FunctionType(
    _F64(
        _F64, _F64, _F64, _F64, _F64, _F64, _F64, _F64,
        nb.types.int64, nb.types.int64, PARAMS_TYPE, PARAMS_TYPE,
    )
)  # fmt: skip
"""The PUCT selection's per-edge score hook (see :mod:`sparring.search.hooks` for the meaning
of the arguments): ``(score, n, w, prior, parent_n, aux, node_value, child_value, mover,
move, params, context) -> score``."""


def _function_at(function_type: nb.types.FunctionType) -> Any:
    """A numba intrinsic turning a compiled function's address (an int) into a first-class
    function value of ``function_type``.

    The compiled search takes the kernels as plain integer addresses (see
    :class:`KernelAddress`): numba unboxes an int in nanoseconds, whereas unboxing a
    first-class function argument calls back into Python (about 8 microseconds per kernel
    per call, which dominated a batch-1 search step).
    """

    @intrinsic
    def function_at(typingctx: Any, address: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            value = cgutils.create_struct_proxy(function_type)(context, builder)
            value.c_addr = builder.inttoptr(args[0], cgutils.voidptr_t)
            value.py_addr = cgutils.get_null_value(cgutils.voidptr_t)
            value.jit_addr = cgutils.get_null_value(cgutils.voidptr_t)
            return value._getvalue()

        return function_type(nb.types.int64), codegen

    return function_at


legal_moves_at = _function_at(LEGAL_MOVES_TYPE)
play_at = _function_at(PLAY_TYPE)
status_at = _function_at(STATUS_TYPE)
to_move_at = _function_at(TO_MOVE_TYPE)
random_playout_at = _function_at(RANDOM_PLAYOUT_TYPE)
encode_at = _function_at(ENCODE_TYPE)
score_hook_at = _function_at(SCORE_HOOK_TYPE)


class KernelAddress:
    """A compiled function, compiled for a fixed numba function type, and its address.

    The compiled search receives kernels as integer addresses and turns them back into
    first-class functions of the fixed types (``LEGAL_MOVES_TYPE``, ...), so one compiled
    (and disk-cached) search serves every game and a call costs no per-kernel typing.  This
    object keeps the compiled code alive.  It also implements numba's wrapper address
    protocol (``__wrapper_address__``, ``signature`` and a ready ``_numba_type_``), so it can
    be passed where a first-class function argument is expected.
    """

    def __init__(self, dispatcher: Any, function_type: nb.types.FunctionType) -> None:
        if not isinstance(dispatcher, nb.core.registry.CPUDispatcher):
            raise TypeError("compiled searches need numba-compiled functions (njit)")
        self._numba_type_ = function_type
        self._signature = function_type.signature
        result: Any = dispatcher.get_compile_result(self._signature)  # compiles if needed
        wrapper = result.fndesc.llvm_cfunc_wrapper_name
        self.address = int(result.library.get_pointer_to_function(wrapper))
        """Address of the function's C-callable wrapper."""
        self._dispatcher = dispatcher  # keeps the compiled code alive

    def __wrapper_address__(self) -> int:
        return self.address

    def signature(self) -> Any:
        return self._signature


@nb.njit(nb.types.none(STATE_TYPE, PLANES_TYPE), cache=True)
def _no_encode(state: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - placeholder
    """Placeholder for games without a compiled encoder (planes are written from Python)."""


class KernelAddresses(NamedTuple):
    """The kernels a search calls, as :class:`KernelAddress` values (:func:`kernel_addresses`)."""

    legal_moves: KernelAddress
    play: KernelAddress
    status: KernelAddress
    to_move: KernelAddress
    random_playout: KernelAddress
    encode: KernelAddress
    """The game's compiled encoder, or a placeholder if it has none (see ``has_encode``)."""
    has_encode: bool
    """Whether the game has a compiled encoder (else planes are written by ``Game.encode``)."""


@functools.cache
def kernel_addresses(kernels: Kernels) -> KernelAddresses:
    """The game's kernels as first-class function values for the compiled search (cached).

    Raises :class:`TypeError` if a kernel is not numba-compiled.
    """
    has_encode = kernels.encode is not None
    return KernelAddresses(
        KernelAddress(kernels.legal_moves, LEGAL_MOVES_TYPE),
        KernelAddress(kernels.play, PLAY_TYPE),
        KernelAddress(kernels.status, STATUS_TYPE),
        KernelAddress(kernels.to_move, TO_MOVE_TYPE),
        KernelAddress(kernels.random_playout, RANDOM_PLAYOUT_TYPE),
        KernelAddress(kernels.encode if has_encode else _no_encode, ENCODE_TYPE),
        has_encode,
    )


def is_compiled(kernels: Kernels) -> bool:
    """Whether the first five kernels are numba-compiled (so compiled searches can take them)."""
    return all(isinstance(k, nb.core.registry.CPUDispatcher) for k in kernels[:5])


def check_compiled(kernels: Kernels, what: str) -> None:
    """:class:`TypeError` unless the kernels are numba-compiled (compiled searches need them)."""
    if not is_compiled(kernels):
        raise TypeError(f"{what} needs numba-compiled game kernels; this game has Python ones")


def as_state(state: State) -> State:
    """``state`` as the contiguous ``uint64`` array the compiled searches take (no copy when
    it already is one); :class:`TypeError` for a position of another dtype."""
    if state.dtype != np.uint64 or state.ndim != 1:
        raise TypeError(f"compiled searches need 1-d uint64 positions, not {state.dtype}")
    return np.ascontiguousarray(state)


__all__ = [
    "ENCODE_TYPE",
    "KERNEL_TYPES",
    "LEGAL_MOVES_TYPE",
    "MOVES_TYPE",
    "PARAMS_TYPE",
    "PLANES_TYPE",
    "PLAY_TYPE",
    "RANDOM_PLAYOUT_TYPE",
    "SCORE_HOOK_TYPE",
    "STATES_TYPE",
    "STATE_TYPE",
    "STATUS_TYPE",
    "TO_MOVE_TYPE",
    "KernelAddress",
    "KernelAddresses",
    "as_state",
    "check_compiled",
    "encode_at",
    "is_compiled",
    "kernel_addresses",
    "legal_moves_at",
    "play_at",
    "random_playout_at",
    "score_hook_at",
    "status_at",
    "to_move_at",
]
