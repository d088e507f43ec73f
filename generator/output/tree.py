"""Writing, reading and comparing trees of generated files.

:func:`write_tree` replaces the output folder (or some of its package folders) so that a failure
at any point leaves either the old or the new tree in place: everything is written to a staging
folder first and then swapped in with one rename. It refuses an output folder that holds anything
but generated packages, so that a mistyped ``--out`` can never delete the project or a user's
files, and a later run cleans up what an interrupted one left behind.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import difflib
import fnmatch
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from ..errors import GeneratorError

PACKAGE_MARKER = "together_rl/_revision.py"
"""A folder holding this file (and a pyproject.toml) is a package the generator wrote."""

# What the project's .gitignore ignores under generated/, for folders outside a git work tree.
_IGNORED_BY_DEFAULT = (
    "__pycache__",
    "*.pyc",
    "*.egg-info",
    "build",
    "dist",
    ".mypy_cache",
    ".pytest_cache",
    ".hypothesis",
)
_STAGING_PREFIX = ".{name}-staging-"
_OLD_SUFFIX = ".old"


class UnsafeOutputError(GeneratorError):
    """The output folder holds files the generator did not write."""


# -- reading and comparing ---------------------------------------------------------------------------


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` that git would not ignore, by relative path with ``/``."""
    if not root.is_dir():
        return {}
    paths = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*")) if p.is_file()]
    ignored = ignored_paths(root, paths)
    return {path: (root / path).read_bytes() for path in paths if path not in ignored}


def ignored_paths(root: Path, paths: Sequence[str]) -> set[str]:
    """Those of ``paths`` (relative to ``root``) that git ignores; outside a git work tree, or
    where git ignores ``root`` itself (a copy under an ignored build folder, where git's rules say
    nothing about which of its files are outputs), those matching the patterns the project's
    .gitignore has for build outputs and caches."""
    if not paths:
        return set()
    try:
        result = subprocess.run(
            ["git", "check-ignore", "-z", "--stdin"],
            cwd=root,
            input="\0".join([".", *paths]).encode(),
            capture_output=True,
        )
    except OSError:  # no git on this machine
        result = None
    if result is not None and result.returncode in (0, 1):  # 1: nothing is ignored
        ignored = {p for p in result.stdout.decode().split("\0") if p}
        if "." not in ignored:
            return ignored
    return {path for path in paths if _ignored_by_default(path)}


def _ignored_by_default(path: str) -> bool:
    return any(
        fnmatch.fnmatch(part, pattern)
        for part in path.split("/")
        for pattern in _IGNORED_BY_DEFAULT
    )


def tree_differences(
    expected: dict[str, bytes], actual: dict[str, bytes], *, label: str
) -> Iterator[str]:
    """Unified diffs, ``actual`` (on disk) against ``expected`` (what the generator renders)."""
    for path in sorted(expected.keys() | actual.keys()):
        want, have = expected.get(path), actual.get(path)
        if want == have:
            continue
        if have is None:
            yield f"missing: {label}/{path}\n"
        elif want is None:
            yield f"extra: {label}/{path} (the generator does not render it)\n"
        else:
            yield "".join(
                difflib.unified_diff(
                    have.decode(errors="replace").splitlines(keepends=True),
                    want.decode(errors="replace").splitlines(keepends=True),
                    fromfile=f"{label}/{path} (on disk)",
                    tofile=f"{label}/{path} (rendered)",
                )
            )


# -- writing ------------------------------------------------------------------------------------------


def write_tree(
    files: dict[str, bytes],
    out: Path,
    *,
    only: Sequence[str] | None = None,
    package: str | None = None,
    verify: Callable[[Path], None] | None = None,
) -> None:
    """Write ``files`` (by path relative to ``out``) and swap them in: the whole of ``out``, or
    only its ``only`` folders. ``out`` must be missing, empty, or a tree of generated packages
    (with ``package``, one generated package of that import name). ``verify(staging)`` runs on
    the written files before they are swapped in; an exception there writes nothing."""
    out = out.resolve()
    recover(out)
    check_output_folder(out, package)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX.format(name=out.name), dir=out.parent))
    try:
        for path, content in files.items():
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        if verify is not None:
            verify(staging)
        if only is None:
            _swap(staging, out)
        else:
            out.mkdir(exist_ok=True)
            for name in only:
                _swap(staging / name, out / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def check_output_folder(out: Path, package: str | None = None) -> None:
    """Refuse an output folder that holds anything but generated packages (and what git ignores);
    with ``package``, anything but one generated package of that import name."""
    if not out.exists():
        return
    if not out.is_dir():
        raise UnsafeOutputError(f"{out} is not a folder")
    entries = sorted(p.name for p in out.iterdir())
    if package is not None:
        if not entries or _is_package(out, f"{package}/_revision.py"):
            return
        raise UnsafeOutputError(
            f"{out} is neither empty nor a package the generator wrote; generation replaces the "
            "whole folder: choose another --out, or move its files away"
        )
    if _is_package(out):
        raise UnsafeOutputError(
            f"{out} is the folder of one generated package; --out names the folder that holds "
            f"the packages (such as {out.parent}): to render one revision, pass --revision "
            f"{out.name}"
        )
    ignored = ignored_paths(out, entries)
    foreign = [name for name in entries if name not in ignored and not _is_package(out / name)]
    if foreign:
        shown = ", ".join(foreign[:5]) + (
            f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        )
        raise UnsafeOutputError(
            f"{out} holds {shown}, which the generator did not write; generation replaces the "
            "whole folder, so it only writes into a folder that is missing, empty, or holds "
            "generated packages alone: choose another --out, or move those files away"
        )


def _is_package(folder: Path, marker: str = PACKAGE_MARKER) -> bool:
    return (folder / "pyproject.toml").is_file() and (folder / marker).is_file()


def recover(out: Path) -> None:
    """Undo what an interrupted run left: staging folders beside ``out``, and a tree moved aside
    (``.<name>.old``) that was not swapped back, which is put back where its new tree is missing."""
    for leftover in out.parent.glob(_STAGING_PREFIX.format(name=out.name) + "*"):
        shutil.rmtree(leftover, ignore_errors=True)
    for folder in _swap_targets(out):
        old = _old(folder)
        if old.exists():
            if folder.exists():
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(old, folder)


def _swap_targets(out: Path) -> Iterable[Path]:
    """Folders a swap may have moved aside: ``out`` itself, and its package folders."""
    yield out
    if out.is_dir():
        for entry in out.iterdir():
            if entry.name.startswith(".") and entry.name.endswith(_OLD_SUFFIX):
                yield out / entry.name[1 : -len(_OLD_SUFFIX)]


def _old(folder: Path) -> Path:
    return folder.with_name(f".{folder.name}{_OLD_SUFFIX}")


def _swap(new: Path, target: Path) -> None:
    """Put ``new`` where ``target`` is. With an atomic exchange (Linux's renameat2) the target is
    never missing; elsewhere the old tree is moved aside first, and :func:`recover` puts it back
    if the process dies between the two renames."""
    if not target.exists():
        os.replace(new, target)
        return
    if _exchange(new, target):
        shutil.rmtree(new, ignore_errors=True)  # it now holds the old tree
        return
    old = _old(target)
    shutil.rmtree(old, ignore_errors=True)
    os.replace(target, old)
    os.replace(new, target)
    shutil.rmtree(old, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths; False where the system cannot."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    status = renameat2(
        _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), ctypes.c_uint(_RENAME_EXCHANGE)
    )
    return bool(status == 0)
