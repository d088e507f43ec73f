"""Turns: blocks that run one at a time, in the order they were entered (first come, first
served), whichever threads enter them. A session's steps, saves and loads take turns."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Turns"]


class Turns:
    """Tickets handed out in order, each served after the one before it."""

    def __init__(self) -> None:
        self._turns = threading.Condition()
        self._next_ticket = 0
        self._serving = 0

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Run the block after every block entered before it."""
        with self._turns:
            ticket = self._next_ticket
            self._next_ticket += 1
            self._turns.wait_for(lambda: self._serving == ticket)
        try:
            yield
        finally:
            with self._turns:
                self._serving += 1
                self._turns.notify_all()
