"""Probe N (N3, N1): a numpy boolean is refused wherever a Python bool is refused as a number, so every such guard
in lib/ of a module that imports numpy tests ``(bool, np.bool_)`` (np.True_ is no int, but np.isfinite, int() and
np.isreal read it as 1: run_seeds(3, np.True_) ran one run); and grid cells' torch thread counts from a config go
through the threads check (check_config_threads), naming ``config['<key>']``."""

import re
from pathlib import Path

import numpy as np
import pytest

from robeval.core.nn.training import check_config_threads

LIB = Path(__file__).resolve().parents[2] / "lib" / "robeval"
GUARD = re.compile(r"isinstance\([^()]*,\s*(bool|\((?:[^()]*,\s*)?bool\b[^()]*\))\)")
FLAG = re.compile(r"if not isinstance\([^()]*, bool\):")  # a yes/no option that must be a Python bool
KEPT = {
    # returns booleans unchanged (np.True_ is rounded like a number, as before)
    ("core/ledger/vocab.py", "if isinstance(x, bool) or x is None:"),
    # np.bool_ is no np.integer, so the next test refuses it (the line is at the length limit)
    (
        "transforms/augmentations.py",
        "if isinstance(patch_width, bool) or not isinstance(patch_width, (int, np.integer))",
    ),
}


def test_every_bool_guard_of_a_numpy_module_also_names_numpy_booleans():
    missing = []
    for path in sorted(LIB.rglob("*.py")):
        text = path.read_text()
        if not re.search(r"^import numpy as np$", text, re.M):
            continue  # no numpy value reaches these (JSON, TOML, CLI text); their int/float tests refuse np.True_
        rel = path.relative_to(LIB).as_posix()
        for k, line in enumerate(text.splitlines(), 1):
            if GUARD.search(line) and "np.bool_" not in line and not FLAG.search(line):
                if not any(rel == f and line.strip().startswith(s) for f, s in KEPT):
                    missing.append(f"{rel}:{k}: {line.strip()}")
    assert not missing, "guards refusing bool but not np.bool_:\n" + "\n".join(missing)


@pytest.mark.parametrize(
    ("bad", "kind"),
    [
        (2.7, TypeError),
        ("3", TypeError),
        (True, TypeError),
        (np.True_, TypeError),
        (-1, ValueError),
        (10**6, ValueError),
    ],
)
def test_check_config_threads_names_the_config_entry(bad, kind):
    with pytest.raises(kind, match=r"^config\['torch_threads'\] must be (an integer >= 1|at most 1024)"):
        check_config_threads({"torch_threads": bad}, "torch_threads")


def test_check_config_threads_reads_zero_or_absent_as_torchs_own_count():
    assert check_config_threads({}, "threads") is None
    assert check_config_threads({"threads": None}, "threads") is None
    assert check_config_threads({"threads": 0}, "threads") is None
    assert check_config_threads({"threads": np.int64(4)}, "threads") == 4
