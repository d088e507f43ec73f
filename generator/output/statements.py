"""The top-level statements of a Python text that hold given lines, parsed without parsing the
rest of the text.

A rendered module of a large document is megabytes of Python; :mod:`ast` builds an object for
every node of it, and formatting needs only the few statements that came out longer than the
line length. A lexer of the text's strings, comments, brackets and line continuations (regular
expressions find each, so the text between is passed over in C) finds where each top-level
statement begins: a line at the margin, outside any string and bracket, not continued from the
line before, not an ``else``/``elif``/``except``/``finally`` clause, nor the statement a
decorator above it decorates. Each statement asked for is parsed alone, with its own line
numbers. Where the lexer cannot read the text (a quote it cannot close) or a statement does not
parse alone, there is no answer and the caller parses the whole text: the statements are those
of the whole text's parse or nothing.
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

_STRING = re.compile(
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


def statements_holding(source: str, lines: list[str], numbers: Iterable[int]) -> ast.Module | None:
    """A module of the top-level statements of ``source`` (its ``lines``) that hold the lines
    ``numbers`` (counted from 1), and of its first statement (whether a string there is the
    module's docstring), in their order, each as the whole text's parse has it; ``None`` where
    the text cannot be cut into statements so."""
    starts = _statement_starts(source, lines)
    if starts is None:
        return None
    if not starts or starts[0] != 0:
        starts = [0, *starts]  # blank lines and comments before the first statement go with it
    wanted = {0}
    for number in numbers:
        wanted.add(bisect.bisect_right(starts, number - 1) - 1)
    body: list[ast.stmt] = []
    for index in sorted(wanted):
        first = starts[index]
        last = starts[index + 1] if index + 1 < len(starts) else len(lines)
        try:  # after as many empty lines as come before it: its own line numbers
            tree = ast.parse("\n" * first + "\n".join(lines[first:last]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        body.extend(tree.body)
    return ast.Module(body=body, type_ignores=[])


def _statement_starts(source: str, lines: list[str]) -> list[int] | None:
    """The lines (counted from 0) where the top-level statements of ``source`` begin, in order;
    ``None`` where the lexer meets a quote it cannot close or brackets that do not pair."""
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)

    def line_of(offset: int) -> int:
        return bisect.bisect_right(offsets, offset) - 1

    barred: set[int] = set()  # lines that begin inside a string or brackets, or continue one
    depth, opened = 0, 0
    special, string = _SPECIAL.search, _STRING.match
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
    starts: list[int] = []
    decorated = False  # the lines since the last start are decorators
    for number, line in enumerate(lines):
        if not line or line[0] in " \t#" or number in barred or _CLAUSE.match(line):
            continue
        if decorated:  # another decorator, or the statement they decorate
            decorated = line.startswith("@")
            continue
        decorated = line.startswith("@")
        starts.append(number)
    return starts
