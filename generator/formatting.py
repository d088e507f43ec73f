"""Formatting rendered Python with the pinned black: its output is part of the snapshots.

Black is the authority on format: ``check``, the snapshot tests and ``nox -s lint`` run it over
every text. The templates already lay Python out as black does, so ``generate`` gives black only
the top-level statements that came out longer than the line length, where black is needed (see
:func:`format_long_lines`): black over every text would change nothing and cost most of the run.
A :class:`FormatCache` remembers, by content hash, the texts that black left unchanged: a text
found there is black's output already and is used as it is, without importing black. The cache
is keyed by black's version and the mode's options (a new black or a new mode starts a new cache
file), it lives outside the project (the user's cache folder, see :func:`default_cache_dir`), and
deleting it only makes the next run format everything again. A text that black would change is
never cached: black formats it every time.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import black

LINE_LENGTH = 100
TARGET_VERSIONS = ("PY311",)
"""Black's mode: these options and black's defaults for the rest (see :func:`black_mode`)."""

CACHE_ENV = "TOGETHER_RL_CODEGEN_CACHE"
"""The environment variable naming the cache folder; empty turns the caches off."""

_DIGEST = re.compile(r"[0-9a-f]{64}")
_MAX_ENTRIES = 20_000  # beyond this the file is rewritten with the entries of the current run
_WORTH_A_PROCESS = 200_000  # characters: less is formatted faster than a worker process starts


@functools.cache
def black_mode() -> black.Mode:
    import black
    from black.mode import TargetVersion

    return black.Mode(
        target_versions={TargetVersion[name] for name in TARGET_VERSIONS},
        line_length=LINE_LENGTH,
    )


def black_version() -> str:
    """The installed black's version, without importing black itself (slow to import)."""
    try:
        module = importlib.import_module("_black_version")  # written by black's build; tiny
        return str(module.version)
    except ImportError:  # pragma: no cover - another way of installing black
        from importlib import metadata

        return metadata.version("black")


def default_cache_dir() -> Path | None:
    """Where ``generate`` keeps its caches: ``$TOGETHER_RL_CODEGEN_CACHE`` if set (empty: no
    cache), else ``together-rl-codegen`` in the user's cache folder (``$XDG_CACHE_HOME`` or
    ``~/.cache``); ``None`` where there is no home folder."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return Path(base) / "together-rl-codegen"
    try:
        return Path.home() / ".cache" / "together-rl-codegen"
    except RuntimeError:  # no home folder
        return None


class FormatCache:
    """The content hashes of texts that black (this version, this mode) leaves unchanged.

    One file per black version and mode, one sha256 a line, appended to as texts are checked.
    A line that is not a sha256 is ignored; a file that cannot be read or written is no cache.
    """

    def __init__(self, folder: Path) -> None:
        options = {
            "black": black_version(),
            "target_versions": sorted(TARGET_VERSIONS),
            "line_length": LINE_LENGTH,
        }
        key = hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:16]
        self.path = folder / f"black-clean-{options['black']}-{key}.txt"
        try:
            text = self.path.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            text = ""
        self._known = {line for line in text.split("\n") if _DIGEST.fullmatch(line)}
        self._lines = len(text.split("\n"))

    @staticmethod
    def digest(source: str) -> str:
        return hashlib.sha256(source.encode()).hexdigest()

    def is_clean(self, source: str) -> bool:
        return self.digest(source) in self._known

    def add_clean(self, sources: Sequence[str], used: Sequence[str] = ()) -> None:
        """Remember ``sources`` as black-clean (those not known already). ``used`` are the other
        texts of this run: when the file grew too long it is rewritten with ``sources`` and
        those of ``used`` it knows to be clean, no others."""
        new = [d for d in dict.fromkeys(map(self.digest, sources)) if d not in self._known]
        if not new:
            return
        self._known.update(new)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self._lines + len(new) > _MAX_ENTRIES:
                keep = sorted({*new, *(d for d in map(self.digest, used) if d in self._known)})
                scratch = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
                scratch.write_text("".join(f"{d}\n" for d in keep), encoding="ascii")
                os.replace(scratch, self.path)
                self._lines = len(keep)
            else:
                # one write of whole lines in append mode: concurrent runs do not interleave
                with open(self.path, "a", encoding="ascii") as file:
                    file.write("".join(f"{d}\n" for d in new))
                self._lines += len(new)
        except OSError:
            pass  # a cache that cannot be written is no cache, not an error


def format_sources(
    sources: Sequence[str], cache: FormatCache | None = None
) -> list[tuple[bool, str]]:
    """``(True, formatted)`` or ``(False, black's error)`` for each source.

    With a ``cache``, a source it knows to be black-clean is returned as it is; black (imported
    only then) formats the others, using every core when there are several.
    """
    results: list[tuple[bool, str] | None] = [None] * len(sources)
    todo: list[int] = []
    for i, source in enumerate(sources):
        if cache is not None and cache.is_clean(source):
            results[i] = (True, source)
        else:
            todo.append(i)
    if todo:
        formatted = _format_all([sources[i] for i in todo])
        for i, result in zip(todo, formatted):
            results[i] = result
        if cache is not None:
            clean = [
                sources[i] for i, (ok, text) in zip(todo, formatted) if ok and text == sources[i]
            ]
            cache.add_clean(clean, used=sources)
    return [r for r in results if r is not None]


def format_long_lines(
    sources: Sequence[str], cache: FormatCache | None = None
) -> list[tuple[bool, str]]:
    """As :func:`format_sources`, but black formats only the top-level statements with a line
    longer than the line length; the rest is taken as the templates laid it out.

    The templates lay Python out as black does where it fits the line length (the tests of
    ``generate --spec`` hold them to it, on every document they render), so black is needed
    only where a name or a union from the document makes a line too long: on a document of
    thousands of schemas that is a few statements, where black over everything would take
    minutes. A statement is a block of lines from one that starts at the margin after a blank
    line to the next such; where black cannot read one alone (the split fell inside a string),
    it formats the whole text. With a ``cache``, a whole text it knows needs nothing is taken
    as it is, and texts found to need nothing are remembered.
    """
    known = [cache is not None and cache.is_clean(source) for source in sources]
    pieces = [[] if clean else _STATEMENT.split(s) for s, clean in zip(sources, known)]
    todo = sorted({piece for split in pieces for piece in split[::2] if _too_long(piece)}, key=len)
    formatted = dict(zip(todo, format_sources(todo, cache)))
    results: list[tuple[bool, str] | None] = []
    whole: list[int] = []
    for i, split in enumerate(pieces):
        if known[i]:
            results.append((True, sources[i]))
        elif any(not formatted[p][0] for p in split[::2] if p in formatted):
            whole.append(i)
            results.append(None)
        else:
            text = "".join(
                _in_place(p, formatted[p][1]) if n % 2 == 0 and p in formatted else p
                for n, p in enumerate(split)
            )
            results.append((True, text))
    for i, result in zip(whole, format_sources([sources[i] for i in whole], cache)):
        results[i] = result
    if cache is not None:
        # a whole text that needs nothing is known as such next time, without splitting it
        unchanged = [
            s
            for s, clean, result in zip(sources, known, results)
            if not clean and result == (True, s)
        ]
        cache.add_clean(unchanged, used=sources)
    return [r for r in results if r is not None]


_STATEMENT = re.compile(r"(\n\n+)(?=\S)")
"""A blank line, or several, before a line that starts at the margin (kept by the split)."""


def _too_long(text: str) -> bool:
    """Whether a line is longer than black allows, in columns as black counts them (a wide
    character is two)."""
    for line in text.split("\n"):
        if len(line) > LINE_LENGTH:
            return True
        if not line.isascii() and len(line) * 2 > LINE_LENGTH:
            from black.strings import str_width

            if str_width(line) > LINE_LENGTH:
                return True
    return False


def _in_place(statement: str, formatted: str) -> str:
    """Black's text of a statement, ending as the statement did (black ends it with one newline;
    the split leaves none, but at the end of the file)."""
    return formatted.rstrip("\n") + statement[len(statement.rstrip("\n")) :]


def _format_all(sources: Sequence[str]) -> list[tuple[bool, str]]:
    import black  # noqa: F401  (imported before forking, so that every worker has it)

    workers = min(os.cpu_count() or 1, len(sources))
    if workers < 2 or sum(map(len, sources)) < _WORTH_A_PROCESS:
        return [_format(source) for source in sources]
    import concurrent.futures
    import multiprocessing

    with concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork")
    ) as pool:
        return list(pool.map(_format, sources))


def _format(source: str) -> tuple[bool, str]:
    import black
    from black.parsing import InvalidInput

    try:
        return True, black.format_str(source, mode=black_mode())
    except InvalidInput as exc:
        return False, str(exc)
