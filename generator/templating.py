"""The Jinja environment the templates render in, and the filters that lay Python out as black
does (so that black, which is the authority on format, has nothing to change)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache

from .formatting import LINE_LENGTH

# Characters a docstring cannot hold as they are (Python source has no NUL, UTF-8 no lone
# surrogate), as escapes; control characters that are white space are folded by the wrapping.
_UNPRINTABLE = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    for code in [*range(0x20), 0x7F, *range(0xD800, 0xE000)]
    if not chr(code).isspace()
}


@functools.lru_cache(maxsize=1024)
def docstring(text: str, indent: int) -> str:
    """A triple-quoted docstring for ``text``, wrapped to the line length at ``indent``.

    Paragraphs are separated by blank lines. A paragraph whose first line ends with a colon
    (``Args:``) is a list: each further line is one entry, wrapped with a hanging indent.
    """
    width = LINE_LENGTH - indent - 6  # room for the quotes on either side
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').translate(_UNPRINTABLE).strip()
    before_last = escaped[:-1]
    escaped_quote = (len(before_last) - len(before_last.rstrip("\\"))) % 2 == 1
    if escaped.endswith('"') and not escaped_quote:  # it would run into the closing quotes
        escaped = before_last + '\\"'
    if escaped.startswith('"'):  # and into the opening ones
        escaped = '\\"' + escaped[1:]
    blocks = []
    for paragraph in escaped.strip().split("\n\n"):
        lines = paragraph.strip().split("\n")
        if len(lines) > 1 and lines[0].endswith(":"):
            entries = [fill(" ".join(e.split()), width, "    ", "        ") for e in lines[1:]]
            blocks.append("\n".join([lines[0], *entries]))
        else:
            blocks.append(fill(" ".join(paragraph.split()), width))
    if len(blocks) == 1 and "\n" not in blocks[0]:
        return f'"""{blocks[0]}"""'
    pad = " " * indent
    body = "\n\n".join(blocks).replace("\n", "\n" + pad).replace("\n" + pad + "\n", "\n\n")
    return f'"""{body}\n{pad}"""'


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def fill(text: str, width: int, initial: str = "", subsequent: str = "") -> str:
    """``textwrap.fill(text, width, initial_indent=initial, subsequent_indent=subsequent,
    break_on_hyphens=False)`` for a text whose words are separated by single spaces, in time
    linear in the text: textwrap copies the rest of a word longer than a line for every line
    it fills, which takes minutes on a description of megabytes without a space."""
    if not text:
        return ""
    chunks: list[str] = []  # words and the spaces between them, the last first
    for word in reversed(text.split(" ")):
        chunks += (word, " ")
    chunks.pop()
    used = 0  # how much of ``chunks[-1]`` earlier lines took (a word longer than a line)
    lines: list[str] = []
    while chunks:
        indent = subsequent if lines else initial
        room = width - len(indent)
        if lines and (used >= len(chunks[-1]) or chunks[-1] == " "):
            chunks.pop()  # the rest of a broken word, or a space, does not start a line
            used = 0
        line: list[str] = []
        length = 0
        while chunks and length + len(chunks[-1]) - used <= room:
            line.append(chunks.pop()[used:])
            length += len(line[-1])
            used = 0
        if chunks and len(chunks[-1]) - used > room:  # a word longer than a line: broken
            take = 1 if room < 1 else room - length
            line.append(chunks[-1][used : used + take])
            used += take
        if line and not line[-1].strip():
            line.pop()
        if line:
            lines.append(indent + "".join(line))
    return "\n".join(lines)


def pyrepr(value: Any) -> str:
    """A Python literal; strings in double quotes, as black writes them."""
    if isinstance(value, str):  # escaped where UTF-8 cannot hold it (a lone surrogate)
        return json.dumps(value, ensure_ascii=not value.isascii() and not _encodable(value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(pyrepr(v) for v in value) + "]"
    if isinstance(value, tuple):
        items = [pyrepr(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)


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
    lines = "".join(f"{inner}{argument},\n" for argument in arguments)
    return f"{function}(\n{lines}{pad}){after}"


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
    the others by keyword where they differ from the default (``Sets(("clip",), fallback=True)``).
    """
    arguments = []
    for item in dataclasses.fields(value):
        given = getattr(value, item.name)
        if item.default is dataclasses.MISSING:
            arguments.append(pyrepr(given))
        elif given != item.default:
            arguments.append(f"{item.name}={pyrepr(given)}")
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
    env.filters["constructor"] = constructor
    env.filters["string"] = string
    return env
