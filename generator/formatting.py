"""Formatting rendered Python with the pinned black: its output is part of the snapshots."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Sequence

import black
from black.mode import TargetVersion
from black.parsing import InvalidInput

LINE_LENGTH = 100
BLACK_MODE = black.Mode(target_versions={TargetVersion.PY311}, line_length=LINE_LENGTH)


def format_sources(sources: Sequence[str]) -> list[tuple[bool, str]]:
    """``(True, formatted)`` or ``(False, black's error)`` for each source, using every core."""
    workers = min(os.cpu_count() or 1, len(sources))
    if workers < 2:
        return [_format(source) for source in sources]
    with concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork")
    ) as pool:
        return list(pool.map(_format, sources))


def _format(source: str) -> tuple[bool, str]:
    try:
        return True, black.format_str(source, mode=BLACK_MODE)
    except InvalidInput as exc:
        return False, str(exc)
