"""Bit helpers for the kernels (int64 masks; valid compiled and interpreted)."""

from __future__ import annotations

from quintet.solver._jit import jit


@jit
def popcount(x: int) -> int:
    """Return the number of set bits of a non-negative mask."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@jit
def msb(x: int) -> int:
    """Return the index of the highest set bit of a positive mask."""
    n = 0
    if x >> 32:
        x >>= 32
        n += 32
    if x >> 16:
        x >>= 16
        n += 16
    if x >> 8:
        x >>= 8
        n += 8
    if x >> 4:
        x >>= 4
        n += 4
    if x >> 2:
        x >>= 2
        n += 2
    if x >> 1:
        n += 1
    return n


@jit
def lsb(x: int) -> int:
    """Return the index of the lowest set bit of a positive mask."""
    return msb(x & -x)
