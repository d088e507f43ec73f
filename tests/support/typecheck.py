"""``mypy --strict`` over a generated package, as its users' type checkers see it: with the
runtime it imports (this checkout's) on mypy's path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.paths import ROOT


def mypy_strict(folder: Path, *packages: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """``mypy --strict PACKAGES`` run in ``folder``; the completed process (its output says what
    failed)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *packages],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(ROOT / "runtime")},
    )
