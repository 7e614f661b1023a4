"""Errors shared by the library's long computations (a module of its own: it is part of the code identity of
every grid whose cell function imports it, so it changes rarely)."""

from __future__ import annotations

__all__ = ["IncompleteResult"]


class IncompleteResult(RuntimeError):
    """Long work failed part way; what it finished is kept, and the message says how much and how to resume.

    ``partial``: the finished part (a DataFrame) when it is returned in memory, None when it is kept on disk (a
    grid's cell files); ``done`` and ``total``: finished and requested units (images, cells); the original error is
    the ``__cause__``.
    """

    def __init__(self, message: str, *, partial=None, done: int = 0, total: int = 0):
        super().__init__(message)
        self.partial, self.done, self.total = partial, int(done), int(total)
