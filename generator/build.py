"""Build the sdist and wheel of generated packages, leaving generated/ untouched."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .errors import GeneratorError


class BuildError(GeneratorError):
    """Building a package failed."""


def build_packages(packages: Iterable[Path], out: Path, *, wheel_only: bool = False) -> list[Path]:
    """Build each package folder into ``out``; return the artifacts, sorted.

    Each package is copied to a temporary folder first, since building writes ``*.egg-info`` and
    ``build/`` beside the sources, and generated/ must hold only what the generator renders. The
    build runs without isolation: the current environment provides setuptools.
    """
    out.mkdir(parents=True, exist_ok=True)
    before = set(out.iterdir())
    for package in packages:
        with tempfile.TemporaryDirectory() as scratch:
            source = Path(scratch) / package.name
            shutil.copytree(package, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            command = [
                sys.executable,
                "-m",
                "build",
                "--no-isolation",
                "--outdir",
                str(out.resolve()),
            ]
            if wheel_only:
                command.append("--wheel")
            result = subprocess.run([*command, str(source)], capture_output=True, text=True)
            if result.returncode != 0:
                raise BuildError(
                    f"building {package} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
                )
    return sorted(set(out.iterdir()) - before)
