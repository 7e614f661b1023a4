"""What every command line refusal must look like, for the CLI tests: one line on stderr, starting ``robeval``,
never a traceback."""

from __future__ import annotations


def one_line_error(capsys, *needles) -> str:
    """The captured stderr, asserted to be one ``robeval...`` line holding every one of ``needles``."""
    err = capsys.readouterr().err
    assert err.startswith("robeval") and err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err
