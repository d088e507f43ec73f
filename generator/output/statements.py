"""The top-level statements of a Python text that hold given lines, parsed without parsing the
rest of the text.

A rendered module of a large document is megabytes of Python; :mod:`ast` builds an object for
every node of it, and formatting needs only the few statements that came out longer than the
line length. A lexer of the text's strings, comments, brackets and line continuations (regular
expressions find each, so the text between is passed over in C) finds where each top-level
statement begins: a line at the margin, outside any string and bracket, not continued from the
line before, not an ``else``/``elif``/``except``/``finally`` clause, nor the statement a
decorator above it decorates. The statements asked for are parsed in their places, the lines
of the others parsed as empty lines, so that each keeps its line numbers; of a class or a
function (a client of a thousand methods is one statement), only the statements of its body
that hold a line asked for, and its first and last (its docstring, its end), and so on inside
those. Where the lexer cannot read the text (a quote it cannot close) or what is left does not
parse, there is no answer and the caller parses the whole text: the statements are those of
the whole text's parse or nothing.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable

_SPECIAL = re.compile(r"""["'#()\[\]{}\\]""")
"""Where a token of the lexer can begin: a quote, a comment, a bracket, a backslash. (A string's
prefix is an ordinary character before its quote: it changes nothing of where the string ends,
a raw string's backslash escaping its quote as any string's does.)"""

STRING = re.compile(
    r"""
        \"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"
      | '''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''
      | "[^"\\\n]*(?:\\.[^"\\\n]*)*"
      | '[^'\\\n]*(?:\\.[^'\\\n]*)*'
    """,
    re.VERBOSE | re.DOTALL,
)
"""A string from its opening quote: triple or single quotes, escapes (a backslash and any
character, a line break too)."""

_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")
"""A line that continues the compound statement above it rather than starting one."""


def statements_holding(
    source: str,
    lines: list[str],
    numbers: Iterable[int],
    *,
    firsts: bool = True,
    barred: set[int] | None = None,
) -> ast.Module | None:
    """A module of the top-level statements of ``source`` (its ``lines``) that hold the lines
    ``numbers`` (counted from 1), and of its first statement (whether a string there is the
    module's docstring), in their order, each as the whole text's parse has it; ``None`` where
    the text cannot be cut into statements so.

    Without ``firsts``, the first statement of the text and of each body is left out too where
    it holds none of the lines (a docstring, often the longest statement of a method): the
    statements that hold a line are still the whole parse's, but a string statement may be
    taken for a docstring, and a body's ends are only those of what is kept. ``barred`` is
    :func:`barred_lines` of the text, where it is known already."""
    if barred is None:
        barred = barred_lines(source, lines)
    if barred is None:
        return None
    starts = _starts(lines, barred, 0, 0, len(lines))
    if not starts or starts[0] != 0:
        starts = [0, *starts]  # blank lines and comments before the first statement go with it
    asked = sorted(number - 1 for number in numbers)
    wanted = {0} if firsts else set()
    for number in asked:
        wanted.add(bisect.bisect_right(starts, number) - 1)
    text = [""] * len(lines)  # the statements left out are parsed as empty lines
    for index in wanted:
        first = starts[index]
        last = starts[index + 1] if index + 1 < len(starts) else len(lines)
        inside = asked[bisect.bisect_left(asked, first) : bisect.bisect_left(asked, last)]
        text[first:last] = _pruned(lines, barred, first, last, inside, firsts=firsts)
    try:
        return ast.parse("\n".join(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_DEFINITION = re.compile(r"(?:class|def|async\s+def)\b")
"""The first line (after its decorators) of a statement whose body may be pruned."""


def _pruned(
    lines: list[str],
    barred: set[int],
    first: int,
    last: int,
    asked: list[int],
    at: int = 0,
    *,
    firsts: bool = True,
) -> list[str]:
    """The lines ``first`` to ``last`` (from 0, the end excluded) of a statement indented by
    ``at``, where it is a class or a function, with the lines of each statement of its body
    that holds none of the ``asked`` lines made empty, but those of its first (with
    ``firsts``) and its last; and so in each class or function of its body that is kept."""
    head = first
    while head < last and (lines[head].startswith("@", at) or head in barred):
        head += 1  # the decorators
    if head >= last or not _DEFINITION.match(lines[head], at):
        return lines[first:last]
    head += 1
    while head < last and head in barred:
        head += 1  # the header's own lines: the body begins after them
    indent = next(
        (
            len(line) - len(line.lstrip(" "))
            for number, line in enumerate(lines[head:last], start=head)
            if number not in barred and line.strip() and not line.lstrip(" ").startswith("#")
        ),
        at,
    )
    starts = _starts(lines, barred, indent, head, last) if indent > at else []
    if not starts:  # a body on the header's line
        return lines[first:last]
    kept = {0} if firsts else set()
    for number in asked:
        kept.add(bisect.bisect_right(starts, number) - 1)
    text = lines[first:last]
    final = len(starts) - 1
    for index, (start, end) in enumerate(zip(starts, [*starts[1:], last])):
        if index in kept:
            inside = asked[bisect.bisect_left(asked, start) : bisect.bisect_left(asked, end)]
            replaced = _pruned(lines, barred, start, end, inside, indent, firsts=firsts)
        else:
            replaced = [""] * (end - start)
            if index == final and not _stands_in(lines, barred, start, end, indent, replaced):
                replaced = _pruned(lines, barred, start, end, [], indent, firsts=firsts)
        text[start - first : end - first] = replaced
    return text


def _stands_in(
    lines: list[str], barred: set[int], first: int, last: int, indent: int, empty: list[str]
) -> bool:
    """Put in ``empty`` (the lines ``first`` to ``last`` made empty) a statement that ends where
    the statement there ends, at the same line and column, in place of it: the last of a body,
    which gives its block its end. ``False`` where its last line may end before its last column
    (a comment, spaces after it) or is too short for a string."""
    end = last - 1
    while end > first and end not in barred and not lines[end].lstrip(" ")[:1].strip("#"):
        end -= 1  # blank lines and comments after it
    line = lines[end]
    width = len(line.encode())
    if "#" in line or line != line.rstrip() or width < indent + 2:
        return False
    empty[end - first] = " " * indent + '"' + "x" * (width - indent - 2) + '"'
    return True


def _starts(lines: list[str], barred: set[int], indent: int, first: int, last: int) -> list[int]:
    """The lines (from 0) between ``first`` and ``last`` where the statements indented by
    ``indent`` begin: not in a string or brackets (``barred``), not a clause of the statement
    above, nor the statement its decorators above decorate."""
    starts: list[int] = []
    decorated = False  # the lines since the last start are decorators
    for number in range(first, last):
        line = lines[number]
        if (
            len(line) <= indent
            or line[indent] in " \t#"
            or (indent and not line.startswith(" " * indent))
            or number in barred
            or _CLAUSE.match(line, indent)
        ):
            continue
        if decorated:  # another decorator, or the statement they decorate
            decorated = line.startswith("@", indent)
            continue
        decorated = line.startswith("@", indent)
        starts.append(number)
    return starts


def barred_lines(source: str, lines: list[str]) -> set[int] | None:
    """The lines (counted from 0) of ``source`` that begin inside a string or brackets or
    continue the line before; ``None`` where the lexer meets a quote it cannot close or brackets
    that do not pair."""
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)

    def line_of(offset: int) -> int:
        return bisect.bisect_right(offsets, offset) - 1

    barred: set[int] = set()  # lines that begin inside a string or brackets, or continue one
    depth, opened = 0, 0
    special, string = _SPECIAL.search, STRING.match
    found = special(source)
    while found is not None:
        at = found.start()
        char = source[at]
        after = at + 1
        if char in "([{":
            if depth == 0:
                opened = at
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return None
            depth -= 1
            if depth == 0:
                barred.update(range(line_of(opened) + 1, line_of(at) + 1))
        elif char == "#":
            end = source.find("\n", at)
            after = len(source) if end < 0 else end
        elif char == "\\":
            if source[after : after + 1] != "\n":
                return None  # a backslash outside a string that continues no line
            barred.add(line_of(at) + 1)
            after += 1
        else:
            literal = string(source, at)
            if literal is None:
                return None  # a quote that no string closes
            after = literal.end()
            if source.find("\n", at, after) >= 0:
                barred.update(range(line_of(at) + 1, line_of(after - 1) + 1))
        found = special(source, after)
    if depth:
        return None
    return barred
