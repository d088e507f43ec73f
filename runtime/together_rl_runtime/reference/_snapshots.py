"""A saved session's snapshots: its tensors (parameters, optimizer state, step counter) after a
record of its journal, in the files ``snapshot-<seq>.pt`` of its folder (see ``_store``).

A snapshot is written to a temporary file, flushed and renamed into place, so that it is whole
or absent, then the older ones are removed.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from ._statedir import FORMAT, sync_folder

__all__ = ["PREFIX", "save_snapshot", "snapshots", "write_snapshot"]

PREFIX = "snapshot-"
"""The start of a snapshot's file name (``snapshot-<seq>.pt``)."""

logger = logging.getLogger("together_rl_runtime.reference")


def snapshots(folder: Path) -> list[tuple[int, Path]]:
    """The snapshots in ``folder``, newest first."""
    found = []
    for path in folder.glob(f"{PREFIX}*.pt"):
        try:
            found.append((int(path.stem.removeprefix(PREFIX)), path))
        except ValueError:
            continue
    return sorted(found, reverse=True)


def write_snapshot(folder: Path, seq: int, state: Mapping[str, Any]) -> None:
    """Write the tensors of a session after record ``seq``, atomically and durably; then remove
    the older snapshots."""
    path = folder / f"{PREFIX}{seq:012d}.pt"
    if path.exists():
        return
    temporary = folder / f".{path.name}.tmp"
    try:
        with open(temporary, "wb") as file:
            torch.save({"format": FORMAT, "seq": seq, "state": dict(state)}, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    sync_folder(folder)
    for older, old in snapshots(folder):
        if older < seq:
            old.unlink(missing_ok=True)


def save_snapshot(
    folder: Path, seq: int, state: Mapping[str, Any], *, lock: threading.Lock
) -> None:
    """:func:`write_snapshot`, holding ``lock`` (one writer or reader of a session's snapshots
    at a time); a snapshot that cannot be written is logged and skipped, as the session's
    journal has every step."""
    try:
        with lock:
            write_snapshot(folder, seq, state)
    except OSError as exc:
        logger.warning("snapshot of %s failed (%s); its journal has every step", folder, exc)
