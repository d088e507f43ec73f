"""Results the generator can take again rather than compute: kept by the content hash of what
they were computed from, in the user's cache folder (see :func:`default_cache_dir`).

A cache only ever saves time. Each kind of result lives in a folder of its own, named after what
the result depends on besides the input (a tool's version, an option): a new version starts a
new folder. An entry is written whole or not at all (a file renamed into place), an entry that
cannot be read is a miss, and a cache that cannot be written is no cache: never an error.
Deleting the folder only makes the next run compute everything again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

CACHE_ENV = "TOGETHER_RL_CODEGEN_CACHE"
"""The environment variable naming the cache folder; empty turns the caches off."""

_MAX_ENTRIES = 2_000  # per store; beyond it, the entries least recently written go


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


def digest(*parts: bytes | str) -> str:
    """The sha256 of ``parts``, each length-prefixed (so that no two lists of parts collide)."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()


class Store:
    """Bytes by key (a content hash), one file an entry, in ``folder/<kind>-<hash of depends>``.

    ``depends`` is everything besides the input that the results depend on (versions, options):
    results computed under other ``depends`` are in another folder and never seen."""

    def __init__(self, folder: Path, kind: str, depends: Mapping[str, object]) -> None:
        key = digest(json.dumps(depends, sort_keys=True))[:16]
        self.path = folder / f"{kind}-{key}"
        self._written = 0

    def get(self, key: str) -> bytes | None:
        try:
            return (self.path / key).read_bytes()
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: bytes) -> None:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            scratch = self.path / f".{key}.{os.getpid()}.tmp"
            scratch.write_bytes(value)
            os.replace(scratch, self.path / key)
            self._written += 1
            if self._written == 1:
                self._trim()
        except (OSError, ValueError):
            pass  # a cache that cannot be written is no cache, not an error

    def _trim(self) -> None:
        """Keep the store to its size: the entries least recently written go first."""
        entries = [e for e in os.scandir(self.path) if e.is_file() and not e.name.startswith(".")]
        if len(entries) <= _MAX_ENTRIES:
            return
        entries.sort(key=lambda e: e.stat().st_mtime)
        for entry in entries[: len(entries) - _MAX_ENTRIES // 2]:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
