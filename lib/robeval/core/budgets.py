"""How much one call may compute or allocate: a typo in a count (``n=10**12`` draws, an array of terabytes) is
refused with the size, the time it would take and the fix, before any work starts, instead of running for months or
failing in the allocator (or swapping the machine for hours).

* :func:`check_draw_budget`: at most :data:`MAX_DRAWS` model evaluations in one call, unless ``allow_large``;
* :func:`check_allocation`: at most :data:`MAX_ARRAY_BYTES` in one array a sampler allocates.
"""

from __future__ import annotations

import numpy as np

#: Largest number of noise draws (inputs x draws per input) one call makes without ``allow_large=True``: 1e9 draws
#: of a model are minutes to hours on an accelerator; a typo (n=10**12) would be months.
MAX_DRAWS = 10**9


def check_draw_budget(draws: int, *, what: str, seconds_per_draw: float | None = None, allow_large=False) -> None:
    """ValueError when one call would make ``draws`` model evaluations, more than :data:`MAX_DRAWS`, unless
    ``allow_large``: the message gives the time estimate (``seconds_per_draw``, measured by the caller) and the fix.
    ``what`` names the arguments that set the number, e.g. ``"len(x) * (n0 + n)"``."""
    if not isinstance(allow_large, (bool, np.bool_)):
        raise TypeError(f"allow_large must be True or False, got {allow_large!r}.")
    if draws <= MAX_DRAWS or allow_large:
        return
    when = ""
    if not np.isfinite(draws):  # a budget beyond float64 (n = 1e308 for two inputs): no time to give
        raise ValueError(
            f"this call would make more noise draws than a float64 holds ({what}), far more than MAX_DRAWS = "
            f"{MAX_DRAWS:.0e}. Check the number of draws (Cohen et al. use n0=100, n=100000 per input)."
        )
    if seconds_per_draw is not None and seconds_per_draw > 0:
        seconds = seconds_per_draw * draws
        days = seconds / 86400
        when = (
            f"; classifying them alone would take about {days:.3g} days"
            if days >= 1
            else f"; classifying them alone would take about {seconds / 3600:.3g} hours"
        ) + " at this model's measured speed"
    raise ValueError(
        f"this call would make {draws:.3g} noise draws ({what}), more than MAX_DRAWS = {MAX_DRAWS:.0e}{when}. Check "
        "the number of draws (Cohen et al. use n0=100, n=100000 per input), or pass allow_large=True to run it."
    )


#: Largest array one call of a sampler allocates (bytes); more is refused with the size and how to chunk.
MAX_ARRAY_BYTES = 2**33


def check_allocation(shape, itemsize: int, *, what: str, fix: str) -> None:
    """ValueError when an array of ``shape`` and ``itemsize`` bytes per value would exceed :data:`MAX_ARRAY_BYTES`
    (8 GiB): the message gives its size, what sets it (``what``) and the fix (``fix``), instead of an allocator's
    failure or a machine swapping for hours."""
    nbytes = float(np.prod([float(v) for v in shape])) * itemsize
    if nbytes > MAX_ARRAY_BYTES:
        raise ValueError(
            f"this call would allocate {nbytes / 2**30:.3g} GiB ({what} = {' x '.join(map(str, shape))} values of "
            f"{itemsize} bytes), more than {MAX_ARRAY_BYTES / 2**30:.0f} GiB; {fix}"
        )
