"""A FIFO for tests of readers that must never open one, made so that a reader that does open it fails, not hangs."""

from __future__ import annotations

import contextlib
import os
import threading
import time


@contextlib.contextmanager
def fifo(path):
    """Make the FIFO ``path`` for the block. While it lasts a thread opens its writing end and closes it again
    whenever a reader waits (a non-blocking open succeeds only then), so code that opens it to read gets an empty
    file at once: a test of code that reads it fails with a wrong message instead of blocking for ever."""
    os.mkfifo(path)
    stop = threading.Event()

    def feed():
        while not stop.is_set():
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # no reader waiting (ENXIO), or the FIFO is gone
                time.sleep(0.05)
                continue
            os.close(fd)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        stop.set()
        thread.join()
