"""robeval.core.runs.parallel: chunked maps whose output does not depend on the number of processes."""

from __future__ import annotations

import os

import numpy as np
import pytest

from robeval.core.runs import parallel


def test_resolve_jobs_and_chunks():
    assert parallel.resolve_jobs(None) == 1 and parallel.resolve_jobs(3) == 3
    assert parallel.resolve_jobs("all") == parallel.resolve_jobs(-1) == (os.cpu_count() or 1)
    with pytest.raises(ValueError, match="n_jobs"):
        parallel.resolve_jobs("many")
    with pytest.raises(TypeError, match="n_jobs"):
        parallel.resolve_jobs(2.0)
    assert parallel.chunk_ranges(7, 3) == [(0, 3), (3, 6), (6, 7)] and parallel.chunk_ranges(0, 3) == []
    with pytest.raises(ValueError, match="chunk"):
        parallel.chunk_ranges(7, 0)
    assert parallel.default_chunk(1000, 2) == 63 and parallel.default_chunk(10, 4) == 8
    assert parallel.default_chunk(15000, 16) == 118 and parallel.default_chunk(10**6, 2) == 128


def test_parallel_map_images_is_the_same_for_every_n_jobs_and_chunk():
    def noisy(start, stop, images, seed):  # image i draws from its own stream keyed by i
        out = [
            np.random.default_rng([seed, i]).integers(0, 9, img.shape) + img
            for i, img in zip(range(start, stop), images)
        ]
        return np.stack(out) if out else np.empty((0,) + images.shape[1:], dtype=np.int64)

    x = np.arange(23 * 4).reshape(23, 4)
    serial = parallel.parallel_map_images(noisy, len(x), n_jobs=1, sliced=(x,), args=(5,))
    assert serial.shape == x.shape
    for n_jobs, chunk in ((1, 4), (2, 5), (2, None), (2, 30)):
        got = parallel.parallel_map_images(noisy, len(x), n_jobs=n_jobs, chunk=chunk, sliced=(x,), args=(5,))
        np.testing.assert_array_equal(got, serial)
    # ordered results; a single task runs here
    assert list(parallel.imap(divmod, [(7, 2), (9, 4), (1, 1)], n_jobs=2)) == [(3, 1), (2, 1), (1, 0)]
    assert list(parallel.imap(os.getpid, [()], n_jobs=2)) == [os.getpid()]
    assert parallel.workers_match(2)


def test_imap_runs_serially_when_the_workers_would_round_differently(monkeypatch):
    monkeypatch.setitem(parallel._CHECKED, 3, False)  # as if the CPU pins were set after numpy was imported here
    with pytest.warns(RuntimeWarning, match="serially"):
        pids = list(parallel.imap(os.getpid, [(), (), ()], n_jobs=3))
    assert pids == [os.getpid()] * 3
