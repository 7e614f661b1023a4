"""Probe L on core.profiles, core.env and core.ledger's is_scaled: tracebacks of L11 (describe to a file name,
is_scaled of a number), the os error of L14 (temporary_env with a number) and the Minor list's unknown profiles
(profile_pins, notebook_cost) refused by name."""

import io
import os

import pytest

from robeval.core import env, profiles
from robeval.core.ledger import is_scaled


def test_describe_to_a_file_name_says_to_open_it():
    # L11: AttributeError: 'str' object has no attribute 'write' (profiles.py:289)
    settings = profiles.resolve("mscr_2d", "smoke")
    with pytest.raises(TypeError, match=r"^file must be an open text file \(or None for standard output\), got str"):
        profiles.describe(settings, file="out.txt")
    out = io.StringIO()
    profiles.describe(settings, file=out)
    assert "profile 'smoke'" in out.getvalue()


def test_is_scaled_names_a_scaled_down_that_is_not_text():
    # L11: AttributeError: 'int' object has no attribute 'strip' (vocab.py:465)
    with pytest.raises(TypeError, match=r"^scaled_down must be the settings' text .* \(or None\), got int 5\."):
        is_scaled("paper", 5)
    assert is_scaled("paper", None) and not is_scaled("paper", "nothing") and is_scaled("default", "")


def test_temporary_env_refuses_a_number_before_setting_anything(monkeypatch):
    # L14: os's "str expected, not int"
    monkeypatch.delenv("ROBEVAL_PROBE_L_A", raising=False)
    with pytest.raises(
        TypeError, match=r"^values must map variable names \(text\) to text, got 'FOO': 1 \(int\); .*str\(1\)"
    ):
        with env.temporary_env({"ROBEVAL_PROBE_L_A": "x", "FOO": 1}):
            pass
    assert "ROBEVAL_PROBE_L_A" not in os.environ
    with env.temporary_env({"ROBEVAL_PROBE_L_A": "x"}):
        assert os.environ["ROBEVAL_PROBE_L_A"] == "x"
    assert "ROBEVAL_PROBE_L_A" not in os.environ


def test_an_unknown_profile_is_refused():
    # Minor: profile_pins('prod') returned pins, notebook_cost('mscr_2d', 'prod') returned ''
    with pytest.raises(ValueError, match=r"^Unknown profile 'prod'\. Use one of smoke, default, long, gpu, paper"):
        env.profile_pins("prod")
    with pytest.raises(ValueError, match=r"^Unknown profile 'prod'\. Use one of smoke, default, long, gpu, paper"):
        profiles.notebook_cost("mscr_2d", "prod")
    assert env.profile_pins("default") == env.PINNED_CPU_ENV
    assert set(env.profile_pins("long")) == set(env.PINNED_CPU_ENV) - set(env.TORCH_PINS)


def test_torch_device_names_an_unknown_device():
    # L11: torch's RuntimeError "Expected one of cpu, cuda, ipu, xpu, ... device type at start of device string: tpu"
    with pytest.raises(ValueError, match=r"^prefer='tpu' is not a torch device name; pass one such as 'cpu'"):
        env.torch_device("tpu")
    assert str(env.torch_device("cpu")) == "cpu"


def test_resolve_takes_numpy_numbers():
    # L14: "setting 'seed' must be of type int (like 0), got np.int64(3)"
    import numpy as np

    got = profiles.resolve("mscr_2d", "smoke", seed=np.int64(3))["seed"]
    assert got == 3 and type(got) is int
    with pytest.raises(ValueError, match=r"setting 'seed' must be of type int \(like 0\), got 3\.5 of type float"):
        profiles.resolve("mscr_2d", "smoke", seed=np.float64(3.5))
