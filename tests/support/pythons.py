"""The interpreters of other Python versions on this machine, wherever they are installed (on
PATH, or by pyenv, whose shims run only the versions it has selected)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def interpreter(version: str) -> Path | None:
    """An interpreter of ``version`` (``3.10``) that runs, or ``None`` where there is none."""
    candidates = [shutil.which(f"python{version}")]
    if shutil.which("pyenv"):
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip()
        installed = subprocess.run(
            ["pyenv", "versions", "--bare"], capture_output=True, text=True
        ).stdout.split()
        candidates += [
            str(Path(root, "versions", v, "bin", f"python{version}"))
            for v in installed
            if v == version or v.startswith(f"{version}.")
        ]
    for candidate in filter(None, candidates):
        probe = [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]
        ran = subprocess.run(probe, capture_output=True, text=True)
        if ran.returncode == 0 and ran.stdout.strip() == version:
            return Path(candidate)
    return None
