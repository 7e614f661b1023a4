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
