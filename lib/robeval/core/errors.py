"""Errors shared by the library: those of its long computations and of its input checks (a module of its own: it
is part of the code identity of every grid whose cell function reaches it, so it changes rarely)."""

from __future__ import annotations

__all__ = ["FloatRangeError", "IncompleteResult"]


class IncompleteResult(RuntimeError):
    """Long work failed part way; what it finished is kept, and the message says how much and how to resume.

    ``partial``: the finished part (a DataFrame) when it is returned in memory, None when it is kept on disk (a
    grid's cell files); ``done`` and ``total``: finished and requested units (images, cells); the original error is
    the ``__cause__``.
    """

    def __init__(self, message: str, *, partial=None, done: int = 0, total: int = 0):
        super().__init__(message)
        self.partial, self.done, self.total = partial, int(done), int(total)


class FloatRangeError(ValueError, OverflowError):
    """A number beyond float64 range (a Python int or fraction beyond about ±1.8e308, which ``float()`` refuses with
    a bare OverflowError naming nothing), refused by an input check that names the argument, the bound and the
    fix (:func:`robeval.core.validation.check_float_range`). Both a ValueError (a value of the right kind out of
    range: the library's convention) and an OverflowError (what ``float()`` raises for it)."""
