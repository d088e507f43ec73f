"""JSON pointers (RFC 6901), as used to name places in spec documents."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .literals import terminal_text


def escape(token: str) -> str:
    """Escape one reference token of a JSON pointer."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """Undo :func:`escape`."""
    return token.replace("~1", "/").replace("~0", "~")


def join(pointer: str, *tokens: str | int) -> str:
    """Append reference tokens to a pointer: ``join("/paths", "/a/{b}")`` is ``/paths/~1a~1{b}``."""
    return pointer + "".join("/" + escape(str(token)) for token in tokens)


def split(pointer: str) -> list[str]:
    """The unescaped reference tokens of a pointer (``""`` is the whole document)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [unescape(token) for token in pointer[1:].split("/")]


def in_file(pointer: str) -> tuple[str, str]:
    """The file a place is in (``""`` for the root document) and its JSON pointer there: the
    parser names a place in another file ``other.yaml#/components/...``, relative to the root
    document's folder."""
    if pointer == "" or pointer.startswith("/"):
        return "", pointer
    file, _, fragment = pointer.partition("#")
    return file, fragment


def locate(source: str, pointer: str) -> str:
    """``source#pointer``, for a place in the root document ``source``; for a place in another
    file, that file (beside the root document) and its pointer."""
    file, fragment = in_file(pointer)
    if not file:
        return f"{source}#{shown(pointer)}"
    folder = source.rpartition("/")[0]
    return f"{folder}/{file}#{shown(fragment)}" if folder else f"{file}#{shown(fragment)}"


def shown(pointer: str) -> str:
    """``pointer`` as a message shows it: a character that is not printable (a line break, a
    terminal's escape, a bidirectional override) as its Python escape, so that the tokens a
    document chose cannot break the message's line or disguise it."""
    return terminal_text(pointer, lines=False)


def references(node: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Every string ``$ref`` inside ``node``, wherever it is (openapi-spec-validator follows a
    ``$ref`` in a ``default`` too), with the JSON pointer of the ``$ref`` (below ``pointer``,
    the place of ``node``)."""
    stack = [(node, pointer)]
    while stack:
        current, at = stack.pop()
        entries: Iterable[tuple[Any, Any]]
        if isinstance(current, Mapping):
            ref = current.get("$ref")
            if isinstance(ref, str):
                yield ref, join(at, "$ref")
            entries = current.items()
        elif isinstance(current, list):
            entries = enumerate(current)
        else:
            continue
        stack.extend(
            (child, join(at, key)) for key, child in entries if isinstance(child, (Mapping, list))
        )
