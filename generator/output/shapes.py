"""Texts that differ only in the letters of their names, formatted once.

Black lays a text out by its tokens' kinds and widths: a name is a name, whatever its letters,
as long as it is not a keyword (black compares names, to keep overloads together, only in its
``.pyi`` mode, which the generator does not use). Of a large document's pieces many differ only so (a reader's
``put(_, strict_enum(Model))`` for a thousand models, a method's ``_build_request`` for each
path): each name of a text that is neither a keyword nor a soft keyword nor a dunder is replaced
by as many ``x`` as it has letters, giving its shape, and black formats each shape once.

Its names are then put back in their order. Black adds and removes brackets, commas and
whitespace but never reorders, adds or drops a name; :func:`restored` checks that the names of
black's text of the shape are the shape's names, in order, and gives ``None`` otherwise, so that
the caller formats the text itself. Strings (their prefixes too), comments and numbers are kept
as they are, so that black's normalisation of them is the same; a text with a character outside
ASCII is its own shape (a wide character counts two columns, and a name may hold one).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence

from .statements import STRING

_TOKEN = re.compile(
    rf"""
        (?P<comment>\#[^\n]*)
      | (?P<string>[A-Za-z]{{0,2}}(?:{STRING.pattern}))
      | (?P<number>\.?[0-9][0-9A-Za-z_.]*)
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<unclosed>['"])
    """,
    re.VERBOSE | re.DOTALL,
)
"""The tokens whose text a shape keeps (comments, strings with their prefixes, as the
statements lexer reads them, and numbers), the names it may replace, and a quote no string
closes (which makes the text its own shape, see :func:`shape`)."""

_KEPT = frozenset([*keyword.kwlist, *keyword.softkwlist, "type", "lazy", "print", "exec"])
"""Names a shape keeps: Python's keywords and soft keywords (those of later Pythons too, which
black's grammars know), and the names black has read as statements in other grammars."""


def _replaceable(name: str) -> bool:
    return name not in _KEPT and not (name.startswith("__") and name.endswith("__"))


def shape(text: str) -> tuple[str, tuple[str, ...]]:
    """The shape of ``text`` and the names it replaced, in order; ``text`` itself and no names
    where it cannot be read so (a character outside ASCII, a quote no string closes)."""
    if not text.isascii():
        return text, ()
    names: list[str] = []
    unclosed = False

    def replaced(found: re.Match[str]) -> str:
        nonlocal unclosed
        unclosed = unclosed or found.group("unclosed") is not None
        name = found.group("name")
        if name is None or not _replaceable(name):
            return found.group()
        names.append(name)
        return "x" * len(name)

    shaped = _TOKEN.sub(replaced, text)
    return (text, ()) if unclosed else (shaped, tuple(names))


def restored(formatted: str, names: Sequence[str]) -> str | None:
    """Black's text of a shape, ``formatted``, with its ``names`` put back; ``None`` where its
    replaced names are not the shape's in their order."""
    if not names:
        return formatted
    pending = iter(names)
    wrong = False

    def put_back(found: re.Match[str]) -> str:
        nonlocal wrong
        name = found.group("name")
        if name is None or not _replaceable(name):
            return found.group()
        original = next(pending, None)
        if original is None or name != "x" * len(original):
            wrong = True
            return name
        return original

    text = _TOKEN.sub(put_back, formatted)
    if wrong or next(pending, None) is not None:
        return None
    return text
