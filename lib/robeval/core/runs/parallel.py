"""Chunked process parallelism whose output does not depend on the number of processes.

The CPU-side preparation of the MSD notebooks (corrupting test sets, drawing corruption instances for the
transform features, calibrating CIFAR-10-C-bar) is a map over images whose random streams are keyed by the
image's index (or by a seed drawn in the parent), never by the process that computes it. :func:`imap` runs such
a map as ordered tasks in worker processes (joblib's loky backend, one BLAS / OpenMP / torch thread each) and
:func:`parallel_map_images` cuts ``range(n)`` into chunks, so the concatenated result is bit-identical whatever
``n_jobs`` and the chunk size are; with ``n_jobs = 1`` nothing is started and the work runs in this process.

The workers inherit this process's environment, including the CPU pins of
:func:`robeval.core.env.pin_cpu_kernels`. A worker whose numpy runs other SIMD code paths than this process (the
pins set after numpy was imported here) could round differently, so :func:`imap` first compares the two and, if
they differ, warns and runs serially (:func:`workers_match`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from numbers import Integral

import numpy as np

ALL = "all"  # n_jobs value meaning every core of the machine (os.cpu_count())


def resolve_jobs(n_jobs) -> int:
    """The number of worker processes ``n_jobs`` asks for: ``None`` or 1 → 1 (this process), an int >= 1 → itself,
    ``"all"``, 0 or a negative int → :func:`os.cpu_count` (joblib's -1 convention: -1 = all cores)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, str):
        if n_jobs.strip().lower() != ALL:
            raise ValueError(f"n_jobs must be an int or {ALL!r}, got {n_jobs!r}.")
        return max(1, os.cpu_count() or 1)
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, Integral):
        raise TypeError(f"n_jobs must be an int or {ALL!r}, got {type(n_jobs).__name__}.")
    n_jobs = int(n_jobs)
    return n_jobs if n_jobs >= 1 else max(1, os.cpu_count() or 1)


def default_chunk(n: int, n_jobs: int, *, per_job: int = 8, minimum: int = 8, maximum: int = 128) -> int:
    """A chunk size for ``n`` items over ``n_jobs`` processes: about ``per_job`` chunks per process (so chunks of
    unequal cost, e.g. a slow corruption's, do not leave the other processes idle at the end), at least
    ``minimum`` items (so a task outweighs its dispatch, ~1 ms) and at most ``maximum`` (a few tenths of a second
    of corruption)."""
    n, n_jobs = max(1, int(n)), max(1, int(n_jobs))
    return max(int(minimum), min(int(maximum), -(-n // (n_jobs * int(per_job)))))


def chunk_ranges(n: int, chunk: int) -> list[tuple[int, int]]:
    """``[(0, chunk), (chunk, 2 chunk), ..., (., n)]``: ``range(n)`` cut into consecutive pieces of ``chunk``."""
    if isinstance(chunk, (bool, np.bool_)) or not isinstance(chunk, Integral) or chunk < 1:
        raise ValueError(f"chunk must be a positive int, got {chunk!r}.")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, Integral) or n < 0:
        raise ValueError(f"n must be a non-negative int, got {n!r}.")
    return [(a, min(a + int(chunk), int(n))) for a in range(0, int(n), int(chunk))]


def _numpy_code_paths() -> tuple:
    """The SIMD features numpy dispatches to in this process (what NPY_DISABLE_CPU_FEATURES changes)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # pragma: no cover - other numpy layouts
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as features
        except ImportError:
            return ()
    return tuple(sorted(k for k, on in features.items() if on))


def _one_thread(fn: Callable, args: tuple):
    """Run ``fn(*args)`` in a worker with one torch thread (BLAS/OpenMP: one thread via the backend)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)
    return fn(*args)


_CHECKED: dict[int, bool] = {}


def workers_match(n_jobs: int) -> bool:
    """Whether worker processes run numpy on the same SIMD code paths as this process (checked once per
    ``n_jobs``); they differ only when the CPU pins were set in this process after numpy was imported."""
    if n_jobs not in _CHECKED:
        from joblib import Parallel, delayed, parallel_config

        with parallel_config(backend="loky", inner_max_num_threads=1):
            theirs = Parallel(n_jobs=n_jobs)(delayed(_numpy_code_paths)() for _ in range(1))
        _CHECKED[n_jobs] = theirs[0] == _numpy_code_paths()
    return _CHECKED[n_jobs]


def imap(fn: Callable, tasks: Iterable[Sequence], *, n_jobs=1) -> Iterator:
    """``fn(*task)`` for every task, yielded in the tasks' order.

    With ``n_jobs`` (see :func:`resolve_jobs`) above 1 and more than one task, the tasks run in ``n_jobs`` worker
    processes (joblib's loky backend, reused between calls; one thread each), at most ``2 n_jobs`` dispatched
    ahead of the results; else lazily in this process. ``fn`` must be picklable (a module-level function) and
    should not depend on which process runs it: the results are then the same for every ``n_jobs``. Falls back
    to this process, with a warning, when the workers' numpy would take other code paths (:func:`workers_match`).
    """
    tasks = [tuple(t) for t in tasks]
    n_jobs = min(resolve_jobs(n_jobs), len(tasks))
    if n_jobs > 1 and not workers_match(n_jobs):
        warnings.warn(
            "robeval.core.runs.parallel: the worker processes' numpy would use other SIMD code paths than this process "
            "(the CPU pins were set after numpy was imported), so their results could differ in the last bits; "
            "running serially. Start Python with the pins (robeval run, or the 'Python (robeval)' kernel).",
            RuntimeWarning,
            stacklevel=2,
        )
        n_jobs = 1
    if n_jobs <= 1:
        return (fn(*t) for t in tasks)
    from joblib import Parallel, delayed, parallel_config

    def run():
        with parallel_config(backend="loky", inner_max_num_threads=1):
            # max_nbytes=None: arrays travel pickled; joblib would hand larger ones to the tasks as read-only
            # np.memmap, whose Python-level indexing slows the per-image loops of the corruptions ~2x
            parallel = Parallel(n_jobs=n_jobs, return_as="generator", pre_dispatch="2*n_jobs", max_nbytes=None)
            yield from parallel(delayed(_one_thread)(fn, t) for t in tasks)

    return run()


def parallel_map_images(
    fn: Callable,
    n: int,
    *,
    n_jobs=1,
    chunk: int | None = None,
    sliced: Sequence = (),
    args: Sequence = (),
) -> np.ndarray:
    """``fn`` over ``range(n)`` in chunks, concatenated along the first axis.

    Every chunk ``[a, b)`` is computed as ``fn(a, b, *[s[a:b] for s in sliced], *args)`` and must return ``b - a``
    items along its first axis, depending only on the indices ``a .. b-1`` it holds (e.g. per-image random
    streams keyed by the image index). Then the result is bit-identical for every ``n_jobs`` and ``chunk``.

    Parameters
    ----------
    fn : picklable callable (a module-level function)
    n : number of items (images)
    n_jobs : worker processes (:func:`resolve_jobs`); 1 runs ``fn(0, n, *sliced, *args)`` in this process
    chunk : items per task (default :func:`default_chunk`)
    sliced : arrays cut like the items (only each task's slice travels to its worker)
    args : further arguments passed whole to every task

    Returns
    -------
    numpy array, the chunks' results concatenated
    """
    n_jobs = resolve_jobs(n_jobs)
    n = int(n)
    if n_jobs == 1 and chunk is None:
        return np.asarray(fn(0, n, *sliced, *args))
    chunk = default_chunk(n, n_jobs) if chunk is None else chunk
    tasks = [(a, b, *[s[a:b] for s in sliced], *args) for a, b in chunk_ranges(n, chunk)]
    parts = list(imap(fn, tasks, n_jobs=n_jobs))
    return np.concatenate(parts) if parts else np.asarray(fn(0, 0, *[s[:0] for s in sliced], *args))
