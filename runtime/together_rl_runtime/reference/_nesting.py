"""How deep a request body nests, checked on its text before it is parsed.

No request of the API nests more than a few levels, and what reads a body (the parser, the
checks of its fields, the idempotency key's fingerprint, the journal) recurses once per level:
a body nesting deeper than :data:`MAX_DEPTH` is refused before any of them sees it, with the
JSON path of the first container too deep, so that no level of the server can run out of
stack.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate

from .._model import at

__all__ = ["MAX_DEPTH", "too_deep"]

MAX_DEPTH = 32
"""Containers (objects and arrays) inside one another, at most."""

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING, re.DOTALL)
_TOKENS = re.compile(_STRING + rb"|[\[\]{},:]", re.DOTALL)
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_LEVEL = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_KEY_SHOWN = 40


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> str | None:
    """Where ``body`` (JSON text, not yet parsed) nests more than ``limit`` containers deep, the
    message that says so, naming the JSON path of the first container too deep; else ``None``.

    Text that is not JSON is left to the parser, which refuses it."""
    brackets = _STRINGS.sub(b"", body).translate(None, _NOT_BRACKETS)
    if not brackets or max(accumulate(_LEVEL[b] for b in brackets)) <= limit:
        return None
    return (
        f"the request body nests more than {limit} objects and arrays deep, at "
        f"{_path_of_too_deep(body, limit) or '(body)'}"
    )


class _Open:
    """A container open at the scan's place: an object (with the key its value follows, and
    whether a key comes next) or an array (with the index of its item)."""

    __slots__ = ("is_object", "key", "index", "key_next")

    def __init__(self, is_object: bool) -> None:
        self.is_object = is_object
        self.key = ""
        self.index = 0
        self.key_next = is_object


def _path_of_too_deep(body: bytes, limit: int) -> str:
    """The JSON path of the first container of ``body`` at depth ``limit + 1`` (which
    :func:`too_deep` found)."""
    opened: list[_Open] = []
    for match in _TOKENS.finditer(body):
        token = match.group()
        if token in (b"{", b"["):
            if len(opened) == limit:
                return _path(opened)
            opened.append(_Open(token == b"{"))
        elif not opened:
            continue
        elif token in (b"}", b"]"):
            opened.pop()
        elif token == b",":
            if opened[-1].is_object:
                opened[-1].key_next = True
            else:
                opened[-1].index += 1
        elif token == b":":
            opened[-1].key_next = False
        elif opened[-1].key_next:  # a string where an object's key comes
            opened[-1].key = _key(token)
    raise AssertionError("the two scans of a body's nesting disagree")


def _path(opened: list[_Open]) -> str:
    path = ""
    for container in opened:
        path = at(path, container.key) if container.is_object else f"{path}[{container.index}]"
    return path


def _key(token: bytes) -> str:
    try:
        key = json.loads(token)
    except ValueError:
        key = token[1:-1].decode("utf-8", "replace")
    text = str(key)
    return text if len(text) <= _KEY_SHOWN else text[: _KEY_SHOWN - 3] + "..."
