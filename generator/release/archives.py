"""What a built artifact, a wheel or an sdist, says and holds: the project and version its file
name says, the sha256 of each file it took from the package folder (by its path there), and its
core metadata.

An sdist holds its package folder under one folder named as the artifact (``together_rl-1.0.0/``),
beside what the build writes itself: ``PKG-INFO``, ``setup.cfg`` and ``*.egg-info/``. A wheel
holds the folder's Python packages, beside its ``*.dist-info/``. Nothing is extracted: each file
is read as a stream and hashed.
"""

from __future__ import annotations

import hashlib
import re
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import GeneratorError

SDIST_SUFFIXES = (".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tar")
SDIST_WRITTEN = ("PKG-INFO", "setup.cfg")
"""The files the build writes at the top of an sdist (beside its ``*.egg-info/``)."""


class ArchiveError(GeneratorError):
    """An artifact cannot be read, or holds something no build writes."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Contents:
    """What an artifact holds."""

    files: dict[str, str]
    """The sha256 of each file taken from the package folder, by its path in that folder."""
    metadata: bytes | None
    """The core metadata (an sdist's ``PKG-INFO``, a wheel's ``METADATA``), where it has one."""


def is_wheel(filename: str) -> bool:
    return filename.endswith(".whl")


def parse_filename(filename: str) -> tuple[str, str] | None:
    """``(normalised project, version)`` of a wheel or sdist file name; None for other names."""
    if is_wheel(filename):
        parts = filename[: -len(".whl")].split("-")
        if len(parts) not in (5, 6):
            return None
        name, version = parts[0], parts[1]
    else:
        suffix = next((s for s in SDIST_SUFFIXES if filename.endswith(s)), None)
        if suffix is None or "-" not in filename:
            return None
        name, version = filename[: -len(suffix)].rsplit("-", 1)
    if not name or not version:
        return None
    return normalise_project(name), version.lower()


def normalise_project(name: str) -> str:
    """The project name as the simple API writes it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_contents(path: Path) -> Contents:
    """What the wheel or sdist at ``path`` holds (ArchiveError, naming it, where it cannot be
    read, holds a link or another special file, or holds one path twice)."""
    files: dict[str, str] = {}
    metadata: bytes | None = None
    wheel = is_wheel(path.name)
    top = _sdist_folder(path.name)
    try:
        for name, stream in _members(path):
            if name in files:
                raise ArchiveError(path, f"holds {name} twice")
            if wheel:
                folder, _, inner = name.partition("/")
                if folder.endswith(".dist-info"):
                    if inner == "METADATA":
                        metadata = stream.read()
                    continue
                files[name] = sha256_of(stream)
                continue
            if not name.startswith(f"{top}/"):
                raise ArchiveError(path, f"holds {name}, outside its folder {top}/")
            inner = name[len(top) + 1 :]
            if inner == "PKG-INFO":
                metadata = stream.read()
            if inner in SDIST_WRITTEN or inner.partition("/")[0].endswith(".egg-info"):
                continue
            files[inner] = sha256_of(stream)
    except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile) as exc:
        raise ArchiveError(path, f"cannot read it: {exc}") from None
    return Contents(files, metadata)


def _sdist_folder(filename: str) -> str:
    """The folder an sdist's files are in: its file name without the suffix."""
    suffix = next((s for s in SDIST_SUFFIXES if filename.endswith(s)), "")
    return filename[: len(filename) - len(suffix)]


def _members(path: Path) -> Iterator[tuple[str, IO[bytes]]]:
    """Each file of the archive at ``path``, by name, with a stream of its bytes (folders are
    left out; anything else is an ArchiveError)."""
    if path.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    with archive.open(info) as entry:
                        yield info.filename, entry
        return
    with tarfile.open(path, "r:*") as archive:
        for member in archive:
            if member.isdir():
                continue
            if not member.isfile():
                raise ArchiveError(path, f"{member.name} is neither a file nor a folder")
            stream = archive.extractfile(member)
            if stream is None:  # never for a regular file; tarfile's signature allows it
                raise ArchiveError(path, f"cannot read {member.name}")
            with stream:
                yield member.name, stream


def sha256_of(stream: IO[bytes]) -> str:
    """The sha256 of what ``stream`` holds, read in chunks."""
    digest = hashlib.sha256()
    for chunk in iter(lambda: stream.read(1 << 16), b""):
        digest.update(chunk)
    return digest.hexdigest()
