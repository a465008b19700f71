"""Explicit random streams for compiled hot loops.

Compiled search and playout code never touches a global random state: it takes a one-element
``uint64`` array holding a SplitMix64 state and advances it in place.  Python code derives
such a stream from a :class:`numpy.random.Generator`, so a seeded player is reproducible.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

RngState = npt.NDArray[np.uint64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


def new_rng_state(seed: int) -> RngState:
    """A fresh SplitMix64 stream seeded with ``seed`` (any Python int)."""
    return np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)


def rng_state_from(generator: np.random.Generator) -> RngState:
    """A SplitMix64 stream whose seed is drawn from ``generator``."""
    return np.array([generator.integers(0, 2**63, dtype=np.int64)], dtype=np.uint64)


@nb.njit(cache=True, inline="always")
def next_u64(rng: RngState) -> np.uint64:
    """Advance the stream and return 64 random bits (SplitMix64)."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@nb.njit(cache=True, inline="always")
def random_below(rng: RngState, n: int) -> int:
    """A uniform integer in ``[0, n)``; ``n`` must be positive (modulo bias below 2**-50)."""
    return int(next_u64(rng) % np.uint64(n))
