"""Build the sdist and wheel of generated packages, reproducibly, leaving generated/ untouched.

Building the same package tree twice gives byte-identical artifacts, wherever the tree sits:

- every timestamp is the package's date at 00:00 UTC: a revision's package its revision's date
  (``SPEC_DATE`` in ``together_rl/_revision.py``, which the generator writes from
  ``spec/revisions.yaml``), the runtime the date of its release (``RELEASE_DATE`` in
  ``together_rl_runtime/_version.py``), or 1980-01-01 00:00 UTC (the earliest time a zip entry
  can hold) where the date is unknown; it is passed to the build backend as
  ``SOURCE_DATE_EPOCH``, which setuptools' wheel writer honours;
- the build runs from a scratch copy whose files are 0644 and folders 0755, all dated so, under
  umask 022 (the modes of the files the backend writes itself);
- setuptools writes the sdist with the files' owners and times and a gzip header holding the
  build's clock and the archive's name, so the sdist is rewritten: entries sorted by name, owned
  by 0/0 with no user or group names, dated as above, in the pax format, compressed with gzip at
  level 9 with no file name and the same date in its header.

The bytes also depend on the build backend (the project pins setuptools exactly in its
``release`` extra) and on zlib's compression, so other machines match with the same pins.
"""

from __future__ import annotations

import ast
import calendar
import datetime
import gzip
import io
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..errors import GeneratorError

UNKNOWN_DATE_EPOCH = 315532800
"""1980-01-01T00:00:00Z: the timestamp of packages whose revision date is unknown."""

DATED = (("_revision.py", "SPEC_DATE"), ("_version.py", "RELEASE_DATE"))
"""Where a package says its date: a revision's package the revision's date, the runtime the
date of its release."""


class BuildError(GeneratorError):
    """Building a package failed."""


def build_packages(packages: Iterable[Path], out: Path, *, wheel_only: bool = False) -> list[Path]:
    """Build each package folder into ``out``; return the artifacts, sorted.

    Each package is copied to a temporary folder first, since building writes ``*.egg-info`` and
    ``build/`` beside the sources, and generated/ must hold only what the generator renders. The
    build runs without isolation: the current environment provides setuptools. Artifacts already
    in ``out`` under the same names are replaced.
    """
    out.mkdir(parents=True, exist_ok=True)
    artifacts: list[Path] = []
    for package in packages:
        epoch = source_date_epoch(package)
        with tempfile.TemporaryDirectory() as scratch:
            source = Path(scratch) / "source"
            shutil.copytree(package, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            normalise_tree(source, epoch)
            built = Path(scratch) / "dist"
            _run_build(package, source, built, epoch, wheel_only=wheel_only)
            for artifact in sorted(built.iterdir()):
                if artifact.name.endswith(".tar.gz"):
                    normalise_sdist(artifact, epoch)
                target = out / artifact.name
                shutil.copyfile(artifact, target)
                artifacts.append(target)
    return sorted(artifacts)


def source_date_epoch(package: Path) -> int:
    """The timestamp of every file in ``package``'s artifacts, in seconds since 1970 (UTC)."""
    for module_name, constant in DATED:
        found = sorted(package.glob(f"*/{module_name}"))
        if found:
            return _date_epoch(found[0], constant)
    raise BuildError(
        f"{package}: no {' or '.join(m for m, _ in DATED)} says the date of the package"
    )


def _date_epoch(module: Path, constant: str) -> int:
    """``constant`` of ``module`` (an ISO date string, or None for unknown) as a timestamp."""
    try:
        tree = ast.parse(module.read_text(encoding="utf-8"), filename=str(module))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise BuildError(f"{module}: cannot read the date: {exc}") from None
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign):
            targets = [statement.target]
        else:
            continue
        if not any(isinstance(target, ast.Name) and target.id == constant for target in targets):
            continue
        if not isinstance(statement.value, ast.Constant):
            break
        value = statement.value.value
        if value is None:
            return UNKNOWN_DATE_EPOCH
        if isinstance(value, str):
            try:
                date = datetime.date.fromisoformat(value)
            except ValueError:
                break
            return max(calendar.timegm(date.timetuple()), UNKNOWN_DATE_EPOCH)
        break
    raise BuildError(f"{module}: expected {constant} = an ISO date string or None")


def normalise_tree(root: Path, epoch: int) -> None:
    """Give every file under ``root`` mode 0644 (0755 if executable), folders 0755, and ``epoch``
    as their access and modification time."""
    for folder, _, files in os.walk(root, topdown=False):
        for name in files:
            path = Path(folder, name)
            executable = path.stat().st_mode & stat.S_IXUSR
            path.chmod(0o755 if executable else 0o644)
            os.utime(path, (epoch, epoch))
        Path(folder).chmod(0o755)
        os.utime(folder, (epoch, epoch))


def normalise_sdist(path: Path, epoch: int) -> None:
    """Rewrite the sdist at ``path`` so that its bytes depend only on its files' names, modes and
    contents, and on ``epoch``."""
    buffer = io.BytesIO()
    try:
        with tarfile.open(path, "r:gz") as source:
            members = sorted(source.getmembers(), key=lambda member: member.name)
            with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as target:
                for member in members:
                    if not (member.isfile() or member.isdir()):
                        raise BuildError(f"{path}: {member.name} is neither a file nor a folder")
                    info = tarfile.TarInfo(member.name)
                    info.type = member.type
                    info.mode = 0o755 if member.isdir() or member.mode & stat.S_IXUSR else 0o644
                    info.mtime = epoch
                    info.uid = info.gid = 0
                    info.uname = info.gname = ""
                    info.size = member.size if member.isfile() else 0
                    target.addfile(info, source.extractfile(member) if member.isfile() else None)
    except (OSError, tarfile.TarError) as exc:
        raise BuildError(f"{path}: cannot read the sdist: {exc}") from None
    with path.open("wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=epoch) as gz:
            gz.write(buffer.getvalue())


def _run_build(package: Path, source: Path, out: Path, epoch: int, *, wheel_only: bool) -> None:
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out)]
    if wheel_only:
        command.append("--wheel")
    environment = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch)}
    result = subprocess.run(
        [*command, str(source)], capture_output=True, text=True, env=environment, umask=0o022
    )
    if result.returncode != 0:
        raise BuildError(
            f"building {package} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )
