"""The Jinja environment the templates render in, and the filters that lay Python out as black
does (so that black, which is the authority on format, has nothing to change)."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache

from ..literals import (
    LINE_LENGTH,
    docstring,
    http_text,
    markdown_block,
    markdown_cell,
    markdown_code,
    markdown_inline,
    oneline,
    pyrepr,
    toml_string,
    yaml_string,
)


def call_literal(items: Any, function: str, indent: int, column: int) -> str:
    """``function({items...})`` laid out as black lays it out, starting at ``column`` of a line
    indented by ``indent``: on one line where it fits, else the set on its own line, else one
    item a line. (Black still formats the file; matching it saves black a second pass.)"""
    values = [pyrepr(v) for v in items]
    if not values:
        return f"{function}()"
    inline = "{" + ", ".join(values) + "}"
    if column + len(function) + len(inline) + 2 <= LINE_LENGTH:
        return f"{function}({inline})"
    inner = " " * (indent + 4)
    if len(inner) + len(inline) <= LINE_LENGTH:
        return f"{function}(\n{inner}{inline}\n{' ' * indent})"
    lines = "".join(f"{inner}    {v},\n" for v in values)
    return f"{function}(\n{inner}{{\n{lines}{inner}}}\n{' ' * indent})"


def call(function: str, arguments: Sequence[str], indent: int, after: str) -> str:
    """``function(arguments)`` at ``indent``, followed by ``after``, laid out as black does: on one
    line where it fits, else the arguments on one line of their own, else one a line."""
    joined = ", ".join(arguments)
    if indent + len(function) + len(joined) + 2 + len(after) <= LINE_LENGTH:
        return f"{function}({joined}){after}"
    pad, inner = " " * indent, " " * (indent + 4)
    if len(inner) + len(joined) <= LINE_LENGTH:
        return f"{function}(\n{inner}{joined}\n{pad}){after}"
    lines = "".join(f"{inner}{_alone(argument, indent + 4)},\n" for argument in arguments)
    return f"{function}(\n{lines}{pad}){after}"


_CALL_OF_A_NAME = re.compile(r"([\w.]+)\(([\w.]+)\)")
"""A call with one argument, each a name or a dotted name (``check(Model)``)."""


def _alone(argument: str, indent: int) -> str:
    """An argument alone on its line at ``indent``, with its comma, laid out as black does: a
    call of one name (:data:`_CALL_OF_A_NAME`) that does not fit the line with its argument on a
    line of its own (however long that is: black splits no name); any other as it is."""
    found = _CALL_OF_A_NAME.fullmatch(argument)
    if found is None or indent + len(argument) + 1 <= LINE_LENGTH:
        return argument
    name, inside = found.groups()
    pad = " " * indent
    return f"{name}(\n{pad}    {inside}\n{pad})"


def tuple_literal(items: Sequence[str], indent: int, column: int) -> str:
    """A tuple of the Python texts ``items`` starting at ``column`` of a line indented by
    ``indent``, followed by a comma, laid out as black does: one item a line with its comma (a
    magic trailing comma keeps them so), but a single item on the line where it fits (the comma
    of a one-tuple is not magic)."""
    if len(items) == 1 and column + len(items[0]) + 4 <= LINE_LENGTH:
        return f"({items[0]},)"
    inner = " " * (indent + 4)
    return "(\n" + "".join(f"{inner}{item},\n" for item in items) + " " * indent + ")"


def string(text: str, indent: int, column: int) -> str:
    """A string literal starting at ``column`` of a line indented by ``indent``, followed by a
    comma: on that line where it fits, else as words wrapped into a parenthesized implicit
    concatenation (which black keeps as it is)."""
    literal = pyrepr(text)
    if column + len(literal) + 1 <= LINE_LENGTH:
        return literal
    inner = " " * (indent + 4)
    width = LINE_LENGTH - len(inner) - 2
    chunks = [""]
    for word in re.findall(r"\S+\s*|\s+", text):  # each word with the spaces after it
        if chunks[-1] and len(chunks[-1]) + len(word) > width:
            chunks.append("")
        chunks[-1] += word
    lines = "".join(f"{inner}{pyrepr(chunk)}\n" for chunk in chunks)
    return f"(\n{lines}{' ' * indent})"


def constructor(value: Any) -> str:
    """A dataclass instance as the call that makes it: its fields without defaults positional,
    the others by keyword where they differ from the default (``Sets(("clip",), fallback=True)``);
    a field that is itself a dataclass instance written the same way."""
    arguments = []
    for item in dataclasses.fields(value):
        given = getattr(value, item.name)
        text = constructor(given) if dataclasses.is_dataclass(given) else pyrepr(given)
        if item.default is dataclasses.MISSING:
            arguments.append(text)
        elif given != item.default:
            arguments.append(f"{item.name}={text}")
    return f"{type(value).__name__}({', '.join(arguments)})"


def exploded(value: Any, indent: int) -> str:
    """A dict literal with one item a line and trailing commas, nested dicts likewise (the layout
    black keeps for a collection with a trailing comma)."""
    if not isinstance(value, dict) or not value:
        return pyrepr(value)
    inner = " " * (indent + 4)
    items = "".join(f"{inner}{pyrepr(k)}: {exploded(v, indent + 4)},\n" for k, v in value.items())
    return "{\n" + items + " " * indent + "}"


_OPTIONS: dict[str, Any] = {
    "undefined": jinja2.StrictUndefined,
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "autoescape": False,
    # Jinja's optimizer folds the constant expressions of a template as it compiles it: these
    # templates have few, and a cold start compiles each of them in a fifth less without it
    # (the same text rendered)
    "optimized": False,
}


class _BytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's compiled templates on disk (checked against each template's source by Jinja), in
    a folder of their own per Jinja version, Python version and environment options, since the
    compiled code depends on them. A cache that cannot be written is no cache, not an error."""

    def __init__(self, folder: Path) -> None:
        options = repr(sorted((k, getattr(v, "__name__", v)) for k, v in _OPTIONS.items()))
        key = f"{jinja2.__version__}|{sys.implementation.cache_tag}|{options}"
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        directory = folder / f"jinja-{jinja2.__version__}-{digest}"
        super().__init__(str(directory))
        self._folder = directory

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            self._folder.mkdir(parents=True, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def environment(templates: Path, cache_dir: Path | None = None) -> jinja2.Environment:
    """The templates' environment; with ``cache_dir``, compiled templates are kept there and a
    template is compiled again only when its source changed."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        bytecode_cache=_BytecodeCache(cache_dir) if cache_dir is not None else None,
        **_OPTIONS,
    )
    env.filters["docstring"] = docstring
    env.filters["pyrepr"] = pyrepr
    env.filters["call_literal"] = call_literal
    env.filters["call"] = call
    env.filters["exploded"] = exploded
    env.filters["tuple_literal"] = tuple_literal
    env.filters["constructor"] = constructor
    env.filters["string"] = string
    env.filters["http_text"] = http_text
    env.filters["toml"] = toml_string
    env.filters["yaml"] = yaml_string
    env.filters["oneline"] = oneline
    env.filters["md"] = markdown_inline
    env.filters["md_block"] = markdown_block
    env.filters["md_cell"] = markdown_cell
    env.filters["md_code"] = markdown_code
    return env
