"""How many connections the HTTP server holds at once, so that no flood of them can take the
files the server needs.

Every connection holds a file descriptor, and so do the server's own files (journals, snapshots
being written, the libraries it loaded). Past the process's file limit (``RLIMIT_NOFILE``),
accepting a connection fails (EMFILE) and so does opening a journal, for every client alike. So
the server raises its soft file limit to the hard one at start, keeps files for itself, and
bounds its connections below what is left (:class:`Budget`, ``--max-connections``): a
connection beyond the bound is answered 503 with ``Retry-After`` at once and closed, and while
too many of those are being answered, one beyond is closed without a word (:class:`Gate`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

try:
    import resource
except ImportError:  # not a POSIX system: no file limit to read
    resource = None  # type: ignore[assignment]

__all__ = ["Budget", "Gate", "RETRY_AFTER", "Verdict", "raise_file_limit"]

RESERVED_FILES = 64
"""Files kept for what every server opens: standard streams, libraries, the listening socket,
a process group's sockets."""
NO_LIMIT = 1 << 20
"""The file limit assumed where the system reports none."""
RETRY_AFTER = 1
"""Seconds a client refused for want of connections is asked to wait (``Retry-After``)."""


def raise_file_limit() -> int:
    """Raise the process's soft file limit to its hard one, where the system allows; the soft
    limit then."""
    if resource is None:
        return NO_LIMIT
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return NO_LIMIT
    target = NO_LIMIT if hard == resource.RLIM_INFINITY else hard
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):  # more than the system allows a process (macOS)
            return soft
        soft = target
    return soft


@dataclass(frozen=True)
class Budget:
    """How the file limit ``files`` is shared: ``connections`` served at once, ``refusals``
    more being answered 503 at once, and ``backlog`` connections waiting to be accepted (which
    asyncio accepts together before any is seen, so files are kept for them too)."""

    files: int
    connections: int
    refusals: int
    backlog: int

    @classmethod
    def of(
        cls, files: int, *, own_files: int, backlog: int, connections: int | None = None
    ) -> Budget:
        """The budget of a server with the file limit ``files`` that opens up to ``own_files``
        files of its own, with at most ``backlog`` connections waiting; ``connections`` served
        at once, or (``None``) three quarters of what is left. ValueError where the limit
        leaves too little, or less than ``connections`` asks."""
        spare = files - RESERVED_FILES - own_files
        backlog = max(1, min(backlog, spare // 4))
        usable = spare - backlog
        if usable < 2:
            raise ValueError(
                f"the file limit (ulimit -n) of {files} leaves no room for connections: the "
                f"server keeps {files - usable} files for itself; raise the limit (or lower "
                "--max-sessions, whose sessions each hold their journal open)"
            )
        if connections is None:
            connections = usable * 3 // 4
        elif connections > usable - 1:
            raise ValueError(
                f"--max-connections {connections} is more than the file limit (ulimit -n) of "
                f"{files} allows: at most {usable - 1}"
            )
        return cls(files, connections, usable - connections, backlog)


class Verdict(enum.Enum):
    """What becomes of a new connection."""

    SERVE = "serve"
    REFUSE = "refuse"
    """Answered 503 with Retry-After, then closed."""
    DROP = "drop"
    """Closed at once, without an answer."""


class Gate:
    """The server's count of its connections (in its event loop, so without a lock): a new one
    is served while fewer than ``budget.connections`` are, else refused while fewer than
    ``budget.refusals`` are being refused, else dropped."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self._open = {verdict: 0 for verdict in Verdict}

    def enter(self) -> Verdict:
        """The verdict on a new connection, counted until :meth:`leave`."""
        if self._open[Verdict.SERVE] < self.budget.connections:
            verdict = Verdict.SERVE
        elif self._open[Verdict.REFUSE] < self.budget.refusals:
            verdict = Verdict.REFUSE
        else:
            verdict = Verdict.DROP
        self._open[verdict] += 1
        return verdict

    def leave(self, verdict: Verdict) -> None:
        """A connection that :meth:`enter` let in has closed."""
        self._open[verdict] -= 1
