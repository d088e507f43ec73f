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
    line where it fits, else split at its brackets (see :func:`_split`); a single argument that
    does not fit its line has a comma of its own there (black keeps brackets so exploded by it,
    and released packages have them so)."""
    joined = ", ".join(arguments)
    if indent + len(function) + len(joined) + 2 + len(after) <= LINE_LENGTH:
        return f"{function}({joined}){after}"
    inner = " " * (indent + 4)
    if len(arguments) == 1 and len(inner) + len(joined) > LINE_LENGTH:
        return f"{function}(\n{inner}{_alone(joined, indent + 4)},\n{' ' * indent}){after}"
    return _split(function, arguments, indent, after)


def applied(expression: str, arguments: Sequence[str], indent: int, before: str) -> str:
    """``before`` then the call of ``expression`` (itself a call, ``one_of(...)``) with
    ``arguments``, a statement at ``indent``, laid out as black does where it does not fit the
    line: split at the brackets of ``arguments`` where the line up to them fits, else at those
    of ``expression``, keeping ``arguments`` on its last line (``x = one_of(`` ... ``)(body,
    "body")``). An expression that is not a call of a name is left on the one line, for black."""
    whole = f"{before}{expression}({', '.join(arguments)})"
    if indent + len(whole) <= LINE_LENGTH or not whole.isascii():
        return whole  # a line of wide characters is measured by black
    if indent + len(before) + len(expression) + 1 <= LINE_LENGTH:
        return _split(before + expression, arguments, indent)
    parts = _parts(expression)
    if parts is None:
        return whole
    head, inside = parts
    return _split(before + head, inside, indent, f"({', '.join(arguments)})")


def _split(head: str, arguments: Sequence[str], indent: int, after: str = "") -> str:
    """``head(arguments)`` at ``indent`` split at its brackets as black splits them, followed by
    ``after``: the arguments one level in, on one line where they fit, else a single one alone
    (with no comma: black adds one only where it splits a list), else one a line with their
    commas, each laid out by :func:`_alone`."""
    pad, inner = " " * indent, " " * (indent + 4)
    joined = ", ".join(arguments)
    if len(inner) + len(joined) <= LINE_LENGTH:
        return f"{head}(\n{inner}{joined}\n{pad}){after}"
    if len(arguments) == 1:
        return f"{head}(\n{inner}{_alone(joined, indent + 4, comma=False)}\n{pad}){after}"
    lines = "".join(f"{inner}{_alone(argument, indent + 4)},\n" for argument in arguments)
    return f"{head}(\n{lines}{pad}){after}"


_HEAD = re.compile(r"(?:\w+=)?[\w.]+\(")
"""The start of a call of a name or a dotted name, or of a keyword argument's
(``key=one_of(``)."""
_OPENING, _CLOSING = "([{", ")]}"


def _parts(expression: str) -> tuple[str, list[str]] | None:
    """The name called and the arguments of ``expression``, a call of a name whose brackets close
    at its end (``constrained(check_string, pattern="^a$")``: ``constrained`` and
    ``["check_string", 'pattern="^a$"']``), as the templates' Python is written (strings in
    double quotes, each backslash escaping what follows it); ``None`` for any other text."""
    found = _HEAD.match(expression)
    if found is None or not expression.endswith(")"):
        return None
    depth, start, quoted, escaped = 0, found.end(), False, False
    arguments: list[str] = []
    for i in range(start, len(expression) - 1):
        char = expression[i]
        if quoted:
            escaped, quoted = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            quoted = True
        elif char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
            if depth < 0:
                return None  # the name's brackets close before the end
        elif char == "," and depth == 0:
            arguments.append(expression[start:i].strip())
            start = i + 1
        elif char == "'":
            return None  # a string in single quotes: left to black
    last = expression[start:-1].strip()
    if depth or quoted or not last:
        return None
    return found.group()[:-1], [*arguments, last]


def _alone(argument: str, indent: int, *, comma: bool = True) -> str:
    """An argument alone on its line at ``indent``, with its comma (or, ``comma`` false, the
    single argument of a call, without one), laid out as black does: where it does not fit the
    line and is a call of a name (see :func:`_parts`), split at its brackets (:func:`_split`); a
    name or a string as it is, however long (black splits neither); any other argument as it is,
    for black."""
    if indent + len(argument) + comma <= LINE_LENGTH or not argument.isascii():
        return argument
    parts = _parts(argument)
    return argument if parts is None else _split(*parts, indent)


def annotated(name: str, annotation: str, default: str | None, indent: int) -> str:
    """A dataclass field ``name: annotation = default`` (``default`` ``None``: with none) at
    ``indent``, laid out as black does where it does not fit the line: the default alone in
    parentheses where the line up to them fits, else the annotation in parentheses (see
    :func:`_in_parentheses`)."""
    line = f"{name}: {annotation}" + ("" if default is None else f" = {default}")
    if indent + len(line) <= LINE_LENGTH or not line.isascii():
        return line  # a line of wide characters is measured by black
    pad = " " * indent
    if default is not None and indent + len(f"{name}: {annotation} = (") <= LINE_LENGTH:
        return f"{name}: {annotation} = (\n{pad}    {default}\n{pad})"
    after = "" if default is None else f" = {default}"
    return _in_parentheses(name, annotation, indent, after) or line


def parameter(name: str, annotation: str, default: str | None, indent: int) -> str:
    """A parameter ``name: annotation = default`` (``default`` ``None``: with none) alone on its
    line of a signature at ``indent``, followed by its comma, laid out as black does where it
    does not fit the line: the annotation of a union in parentheses (see
    :func:`_in_parentheses`); an annotation of one type as it is (black leaves it so)."""
    after = "" if default is None else f" = {default}"
    line = f"{name}: {annotation}{after}"
    if indent + len(line) + 1 <= LINE_LENGTH or not line.isascii():
        return line
    members = _members(annotation)
    if members is None or len(members) == 1:
        return line
    return _in_parentheses(name, annotation, indent, after) or line


def alias(name: str, value: str) -> str:
    """A type alias ``name: TypeAlias = value`` at the margin, laid out as black does where it
    does not fit the line and ``value`` is a union: in parentheses, on one line where it fits,
    else a type a line, each after ``|``. Any other (one type, a string) is left to black."""
    line = f"{name}: TypeAlias = {value}"
    members = _members(value)
    if len(line) <= LINE_LENGTH or not line.isascii() or members is None or len(members) < 2:
        return line
    if len(f"{name}: TypeAlias = (") > LINE_LENGTH:
        return line
    body = _union(members, value, 4)
    return line if body is None else f"{name}: TypeAlias = (\n{body}\n)"


def _in_parentheses(name: str, annotation: str, indent: int, after: str) -> str | None:
    """``name: (annotation)`` then ``after``, the annotation one level in: on one line where it
    fits, else a type of the union a line, each after ``|``; ``None`` (left to black) where a
    type does not fit its line, and where the annotation is one type that is not a name (black
    splits its brackets instead) or does not fit its line (black leaves it as it is)."""
    members = _members(annotation)
    inner = " " * (indent + 4)
    if members is None or (
        len(members) == 1
        and (_DOTTED.fullmatch(annotation) is None or len(inner) + len(annotation) > LINE_LENGTH)
    ):
        return None
    body = _union(members, annotation, indent + 4)
    return None if body is None else f"{name}: (\n{body}\n{' ' * indent}){after}"


def _union(members: list[str], union: str, indent: int) -> str | None:
    """The lines of ``union`` (of the types ``members``) in parentheses, at ``indent``: the union
    on one line where it fits, else a type a line, each after ``|``; ``None`` where a type does
    not fit its line (black splits it)."""
    pad = " " * indent
    if indent + len(union) <= LINE_LENGTH:
        return pad + union
    lines = [members[0], *(f"| {member}" for member in members[1:])]
    if any(indent + len(line) > LINE_LENGTH for line in lines):
        return None
    return "\n".join(pad + line for line in lines)


_DOTTED = re.compile(r"[\w.]+")


def _members(annotation: str) -> list[str] | None:
    """The types a union annotation joins with ``|`` outside brackets (``list[A | B] | None``:
    ``list[A | B]`` and ``None``); ``None`` for an annotation with a string in it."""
    if '"' in annotation or "'" in annotation:
        return None
    members, depth, start = [], 0, 0
    for i, char in enumerate(annotation):
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
        elif char == "|" and depth == 0:
            members.append(annotation[start:i].strip())
            start = i + 1
    return [*members, annotation[start:].strip()]


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
    env.filters["applied"] = applied
    env.filters["annotated"] = annotated
    env.filters["parameter"] = parameter
    env.filters["alias"] = alias
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
