"""Probe N on robeval.acr (N1): run_variant checks config['threads'] (an integer 1 .. 1024, or 0 / absent for torch's
count) before anything is computed; it went to torch.set_num_threads(int(...)) unchecked (2.7 truncated, '3' read,
10**6 a crash of the interpreter)."""

import numpy as np
import pytest

from robeval.acr import training

FIX = r"^config\['threads'\] must be an integer >= 1, got .*; pass e\.g\. config\['threads'\]=2\.$"


class Reached(Exception):
    pass


@pytest.fixture
def no_run(monkeypatch):
    def reached(*a, **k):
        raise Reached

    monkeypatch.setattr(training, "rs_config", reached)


@pytest.mark.parametrize(
    ("bad", "kind", "match"),
    [
        (2.7, TypeError, FIX),
        ("3", TypeError, FIX),
        (True, TypeError, FIX),
        (np.True_, TypeError, FIX),
        (-1, ValueError, FIX),
        (10**6, ValueError, r"^config\['threads'\] must be at most 1024 .* got 1,000,000; pass the thread count"),
    ],
)
def test_run_variant_refuses_a_bad_thread_count_before_computing(bad, kind, match, no_run):
    import torch

    before = torch.get_num_threads()
    with pytest.raises(kind, match=match):
        training.run_variant({"variant": "gaussian", "sigma": 0.25, "seed": 0}, {"threads": bad})
    assert torch.get_num_threads() == before


@pytest.mark.parametrize("fine", [None, 0, 2])
def test_run_variant_takes_a_whole_thread_count_or_zero(fine, no_run):
    with pytest.raises(Reached):
        training.run_variant({"variant": "gaussian", "sigma": 0.25, "seed": 0}, {"threads": fine})
