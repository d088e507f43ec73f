"""The top-level statements of a Python text that hold given lines, parsed without parsing the
rest of the text.

A rendered module of a large document is megabytes of Python; :mod:`ast` builds an object for
every node of it, and formatting needs only the few statements that came out longer than the
line length. A lexer of the text's strings, comments, brackets and line continuations (a regular
expression, so a pass in C) finds where each top-level statement begins: a line at the margin,
outside any string and bracket, not continued from the line before, not an ``else``/``elif``/
``except``/``finally`` clause, nor the statement a decorator above it decorates. Each statement
asked for is parsed alone, with its own line numbers. Where the lexer cannot read the text (a
quote it cannot close) or a statement does not parse alone, there is no answer and the caller
parses the whole text: the statements are those of the whole text's parse or nothing.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable

_PREFIX = r"(?:[rRbBuUfF]|[rR][bBfF]|[bBfF][rR])?"
_TOKEN = re.compile(
    rf"""
    (?P<string>{_PREFIX}(?:
        \"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
      | '''(?:[^'\\]|\\.|'(?!''))*'''
      | "(?:[^"\\\n]|\\.)*"
      | '(?:[^'\\\n]|\\.)*'
    ))
  | (?P<comment>\#[^\n]*)
  | (?P<open>[(\[{{])
  | (?P<close>[)\]}}])
  | (?P<continued>\\\n)
  | (?P<quote>["'\\])
    """,
    re.VERBOSE | re.DOTALL,
)
"""A string (any prefix, triple or single quotes, escapes), a comment, a bracket, a backslash
that continues a line; and a quote or backslash that is none of these (the lexer's failure)."""

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
    for match in _TOKEN.finditer(source):
        kind = match.lastgroup
        if kind == "quote":
            return None
        if kind == "open":
            if depth == 0:
                opened = match.start()
            depth += 1
        elif kind == "close":
            if depth == 0:
                return None
            depth -= 1
            if depth == 0:
                barred.update(range(line_of(opened) + 1, line_of(match.start()) + 1))
        elif kind == "string" and "\n" in match[0]:
            barred.update(range(line_of(match.start()) + 1, line_of(match.end() - 1) + 1))
        elif kind == "continued":
            barred.add(line_of(match.start()) + 1)
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
