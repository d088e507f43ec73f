"""The state folder as a whole: one server at a time holds it, what a server that stopped in
the middle of a write left behind is removed when the next one starts, and a new file or a
rename in one of its folders is made durable (:func:`sync_folder`).

Two servers on one folder would each append their own steps to the same journals (each
acknowledging a step under the same number) and leave them unreadable; so a server takes an
exclusive lock (``flock``) on :data:`LOCK` in the folder when it starts, with its process id
written in the file, and holds it until it exits (the system releases it when the process ends,
however it ends). Another server on the folder refuses to start, naming the holder's pid.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # not a POSIX system: the folder is not locked there
    fcntl = None  # type: ignore[assignment]

__all__ = ["FORMAT", "LOCK", "StateDirInUse", "StateDirLock", "remove_leftovers", "sync_folder"]

FORMAT = 2
"""The format of a session's folder: of its description (``session.json``) and its snapshots."""

LOCK = "server.lock"
"""The lock file in the state folder; it holds the process id of the server holding it."""

LEFTOVERS = (".snapshot-*.pt.tmp", ".session.json.tmp")
"""Temporary files a session's folder holds while a snapshot or its description is written,
before they are renamed into place."""

logger = logging.getLogger("together_rl_runtime.reference")


class StateDirInUse(Exception):
    """Another server holds the state folder."""


class StateDirLock:
    """The exclusive lock of a state folder, taken when made (StateDirInUse where another
    process holds it), held until :meth:`release`."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / LOCK
        self._fd: int | None = os.open(
            self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644
        )
        if fcntl is None:
            return
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(self._fd)
            os.close(self._fd)
            self._fd = None
            raise StateDirInUse(
                f"the state folder {state_dir} is in use by another server ({holder}): "
                "one server per state folder"
            ) from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)
        os.fsync(self._fd)

    def release(self) -> None:
        """Give the folder up (closing the file releases the lock)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _holder(fd: int) -> str:
    """Who holds the lock, as its file says."""
    text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
    return f"pid {text}" if text.isdigit() else "its process id not written yet"


def sync_folder(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (where the system allows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_leftovers(state_dir: Path) -> int:
    """Remove the temporary files in the session folders of ``state_dir`` (call it while holding
    the folder's lock, so that no other server is writing them); how many there were."""
    removed = 0
    for folder in state_dir.iterdir():
        if not folder.is_dir():
            continue
        for pattern in LEFTOVERS:
            for leftover in folder.glob(pattern):
                leftover.unlink(missing_ok=True)
                removed += 1
    if removed:
        logger.warning(
            "removed %d temporary file%s a server left while writing",
            removed,
            "" if removed == 1 else "s",
        )
    return removed
