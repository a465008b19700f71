"""Compiled bit tricks shared by the bitboard games."""

from __future__ import annotations

import numba as nb
import numpy as np

from sparring.rng import RngState, random_below

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)


@nb.njit(cache=True, inline="always")
def popcount(x: np.uint64) -> int:
    """Number of set bits of a 64-bit word."""
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return int((x * _H01) >> np.uint64(56))


@nb.njit(cache=True, inline="always")
def lowest_bit_index(x: np.uint64) -> int:
    """Index of the lowest set bit of a non-zero word."""
    return popcount((x & (~x + _ONE)) - _ONE)


@nb.njit(cache=True, inline="always")
def random_set_bit(x: np.uint64, rng: RngState) -> np.uint64:
    """A uniformly chosen set bit of a non-zero word, as a one-bit word."""
    k = random_below(rng, popcount(x))
    for _ in range(k):
        x &= x - _ONE
    return x & (~x + _ONE)
