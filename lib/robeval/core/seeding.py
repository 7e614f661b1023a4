"""Randomness contract: every random function takes a seed, never falls back to fresh OS entropy.

A *seed* is an ``int`` (>= 0), a :class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`;
:func:`as_generator` turns any of them into a Generator (a Generator is used as it is, so a caller can
share one stream across calls). Independent child streams come from :func:`spawn` (``SeedSequence.spawn``),
or, where a stream must be addressable by a key (a point index, a corruption name), from :func:`keyed`.
"""

from __future__ import annotations

import zlib
from numbers import Integral

import numpy as np


def as_generator(seed, name: str = "seed") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from an int, a SeedSequence or a Generator (returned as is).

    Raises ValueError for ``None`` or a negative int (results must be reproducible) and TypeError for any
    other type.
    """
    if seed is None:
        raise ValueError(
            f"{name} is required for reproducibility; pass an int seed (e.g. {name}=0), a "
            "numpy.random.SeedSequence or a numpy.random.Generator."
        )
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (Integral, np.random.SeedSequence)):
        raise TypeError(
            f"{name} must be an int, a numpy.random.SeedSequence or a numpy.random.Generator, "
            f"got {type(seed).__name__}."
        )
    if isinstance(seed, Integral) and seed < 0:
        raise ValueError(f"{name} must be >= 0, got {seed}.")
    return np.random.default_rng(seed if isinstance(seed, np.random.SeedSequence) else int(seed))


def as_seed_sequence(seed, name: str = "seed") -> np.random.SeedSequence:
    """A SeedSequence from an int or a SeedSequence (a Generator is not accepted: its state is not a seed)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    as_generator(seed, name)  # the same checks
    if isinstance(seed, np.random.Generator):
        raise TypeError(f"{name} must be an int or a numpy.random.SeedSequence here, not a Generator.")
    return np.random.SeedSequence(int(seed))


def spawn(seed, n: int, name: str = "seed") -> list[np.random.SeedSequence]:
    """``n`` independent child seeds of ``seed`` (``SeedSequence.spawn``), e.g. for the stages of a run; TypeError /
    ValueError unless ``n`` is a whole number >= 0 (2.7 is never truncated to 2)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (Integral, np.integer)):
        raise TypeError(f"n must be a whole number of child seeds >= 0, got {type(n).__name__} {n!r:.40}.")
    if n < 0:
        raise ValueError(f"n must be a whole number of child seeds >= 0, got {n!r}.")
    return as_seed_sequence(seed, name).spawn(int(n))


def key_of(value) -> int:
    """A stable 32-bit integer for a key (int, float or str), for :func:`keyed`. An int key must lie in
    0 .. 2**32 - 1 (ValueError otherwise): it is the key itself, and a larger or negative one would share the stream
    of its low 32 bits (2**32 that of 0, -1 that of 2**32 - 1)."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (Integral, np.integer)):
        if not 0 <= int(value) <= 0xFFFFFFFF:
            raise ValueError(
                f"a stream key int must lie in 0 .. 2**32 - 1, got {int(value)}, which would share the stream of "
                f"{int(value) & 0xFFFFFFFF}; pass keys in that range (e.g. positions in a dataset), or a str."
            )
        return int(value) & 0xFFFFFFFF
    if isinstance(value, (float, np.floating)):
        return zlib.crc32(np.float64(value).tobytes())
    if isinstance(value, str):
        return zlib.crc32(value.encode())
    raise TypeError(f"a seed key must be an int, a float or a str, got {type(value).__name__}.")


def keyed(seed, *keys) -> np.random.SeedSequence:
    """The child seed addressed by ``keys`` (ints, floats or strings): the same keys give the same stream
    whatever else is drawn, so per-item streams do not depend on batching or on the other items."""
    root = as_seed_sequence(seed)
    return np.random.SeedSequence(
        list(root.entropy if isinstance(root.entropy, (list, tuple)) else [root.entropy]) + [key_of(k) for k in keys],
        spawn_key=root.spawn_key,
    )


class _NoSeed:
    """Stands in for a Generator when no seed was given: deterministic code never touches it, random code
    fails with a clear message instead of drawing fresh OS entropy."""

    def __init__(self, what: str):
        self._what = what

    def __getattr__(self, attr):
        raise ValueError(
            f"{self._what} draws random numbers: pass seed= (an int, a numpy.random.SeedSequence or a "
            "numpy.random.Generator) so that the result is reproducible."
        )


def generator_or_guard(seed, what: str):
    """``as_generator(seed)``, or, for ``seed=None``, a stand-in that raises on first use: functions that are
    random only for some arguments (e.g. some corruptions) need no seed when they draw nothing."""
    return _NoSeed(what) if seed is None else as_generator(seed)
