"""What this process did inside a block, as Python's audit hooks tell it (files opened,
connections asked for, processes started): one hook for the whole test process, which records
only inside :func:`watched`."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

Event = tuple[str, tuple[Any, ...]]

_watching: list[list[Event]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _watching:
        _watching[-1].append((event, args))


sys.addaudithook(_audit)  # a hook stays for the process; it records only inside `watched()`


@contextlib.contextmanager
def watched() -> Iterator[list[Event]]:
    """Every audit event of this process inside the block, in order."""
    events: list[Event] = []
    _watching.append(events)
    try:
        yield events
    finally:
        _watching.remove(events)
