"""Formatting rendered Python with the pinned black: its output is part of the snapshots.

Black is the authority on format: ``check``, the snapshot tests and ``nox -s lint`` run it over
every text. The templates already lay Python out as black does, so ``generate`` gives black only
the statements, or the elements of their brackets, that came out longer than the line length,
where black is needed (see :func:`format_long_lines`): black over every text would change
nothing and cost most of the run. A :class:`FormatCache` remembers, by content hash, the texts
that black left unchanged: a text found there is black's output already and is used as it is,
without importing black. The cache is keyed by black's version and the mode's options (a new
black or a new mode starts a new cache file), it lives outside the project (the user's cache
folder, see :func:`~generator.caching.default_cache_dir`), and deleting it only makes the next
run format everything again. Black's text of a text it changes is kept beside, by the same hash.
"""

from __future__ import annotations

import ast
import bisect
import functools
import gc
import hashlib
import importlib
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..caching import Store
from ..literals import LINE_LENGTH
from .shapes import restored, shape
from .statements import barred_lines, statements_holding

if TYPE_CHECKING:
    import black

TARGET_VERSIONS = ("PY311",)
"""Black's mode: these options and black's defaults for the rest (see :func:`black_mode`)."""

_DIGEST = re.compile(r"[0-9a-f]{64}")
_MAX_ENTRIES = 20_000  # beyond this the file is rewritten with the entries of the current run
_SMALL = 20_000  # characters: black's text of a longer text (a module) is an entry of its own
_WORTH_A_PROCESS = 200_000  # characters: less is formatted faster than a worker process starts
_BATCHES_PER_WORKER = 8  # enough that the last batches even out the workers' ends


@functools.cache
def black_mode() -> black.Mode:
    import black
    from black.mode import TargetVersion

    return black.Mode(
        target_versions={TargetVersion[name] for name in TARGET_VERSIONS},
        line_length=LINE_LENGTH,
    )


def black_version() -> str:
    """The installed black's version, without importing black itself (slow to import)."""
    try:
        module = importlib.import_module("_black_version")  # written by black's build; tiny
        return str(module.version)
    except ImportError:  # pragma: no cover - another way of installing black
        from importlib import metadata

        return metadata.version("black")


class FormatCache:
    """What black (this version, this mode) makes of texts, by their content hash.

    The texts black leaves unchanged (most of them) are one file per black version and mode,
    one sha256 a line, appended to as texts are checked; black's text of the others is another
    file, a JSON array of the sha256 and the text a line (read at the first text it is asked
    for), but where it is a whole module (over ``_SMALL`` characters), which is an entry of a
    :class:`~generator.caching.Store`. A line that cannot be read so is ignored, a file that
    cannot be read or written is no cache; each file is appended to in one write of whole lines
    a run, and rewritten with the run's own entries when it grew too long.
    """

    def __init__(self, folder: Path) -> None:
        options = {
            "black": black_version(),
            "target_versions": sorted(TARGET_VERSIONS),
            "line_length": LINE_LENGTH,
        }
        key = hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:16]
        self.path = folder / f"black-clean-{options['black']}-{key}.txt"
        self.outputs_path = folder / f"black-output-{options['black']}-{key}.jsonl"
        try:
            text = self.path.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            text = ""
        self._known = {line for line in text.split("\n") if _DIGEST.fullmatch(line)}
        self._lines = len(text.split("\n"))
        self._texts: dict[str, str] | None = None  # black's texts by digest, once read
        self._text_lines = 0
        self._large = Store(folder, "black-output", options)

    @staticmethod
    def digest(source: str) -> str:
        return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()

    def is_clean(self, source: str) -> bool:
        return self.digest(source) in self._known

    def formatted(self, source: str) -> str | None:
        """Black's text of ``source`` where known: itself where it is clean."""
        if self.is_clean(source):
            return source
        if len(source) <= _SMALL:
            return self._outputs().get(self.digest(source))
        data = self._large.get(self.digest(source))
        try:
            return None if data is None else data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return None

    def _outputs(self) -> dict[str, str]:
        if self._texts is None:
            try:
                lines = self.outputs_path.read_text(encoding="ascii").split("\n")
            except (OSError, UnicodeDecodeError):
                lines = []
            self._texts = dict(filter(None, map(_output_entry, lines)))
            self._text_lines = len(lines)
        return self._texts

    def add_formatted(self, pairs: Sequence[tuple[str, str]], used: Sequence[str] = ()) -> None:
        """Remember black's text of each source in ``pairs`` of ``(source, text)``; ``used`` as
        for :meth:`add_clean`."""
        self.add_clean([source for source, text in pairs if text == source], used)
        texts = self._outputs()
        new: dict[str, str] = {}
        for source, text in pairs:
            if text == source:
                continue
            key = self.digest(source)
            if len(source) > _SMALL:
                self._large.put(key, text.encode("utf-8", "surrogatepass"))
            elif key not in texts:
                new[key] = text
        if not new:
            return
        texts.update(new)

        def run_s() -> list[str]:
            kept = {d: texts[d] for d in map(self.digest, used) if d in texts}
            return [_output_line(d, t) for d, t in sorted({**kept, **new}.items())]

        new_lines = [_output_line(d, t) for d, t in new.items()]
        self._text_lines = _appended(self.outputs_path, new_lines, self._text_lines, run_s)

    def add_clean(self, sources: Sequence[str], used: Sequence[str] = ()) -> None:
        """Remember ``sources`` as black-clean (those not known already). ``used`` are the other
        texts of this run: when the file grew too long it is rewritten with ``sources`` and
        those of ``used`` it knows to be clean, no others."""
        new = [d for d in dict.fromkeys(map(self.digest, sources)) if d not in self._known]
        if not new:
            return
        self._known.update(new)

        def run_s() -> list[str]:
            clean = {*new, *(d for d in map(self.digest, used) if d in self._known)}
            return [f"{d}\n" for d in sorted(clean)]

        self._lines = _appended(self.path, [f"{d}\n" for d in new], self._lines, run_s)


def _appended(path: Path, new: list[str], lines: int, run_s: Callable[[], list[str]]) -> int:
    """Add the lines ``new`` to the cache file at ``path`` (``lines`` long) in one write of whole
    lines in append mode, so that concurrent runs do not interleave; where the file would grow
    beyond ``_MAX_ENTRIES``, rewrite it with ``run_s()`` (the entries of this run) in its place.
    The file's length in lines after; a file that cannot be written is no cache, not an error
    (its length is then as it was)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if lines + len(new) > _MAX_ENTRIES:
            kept = run_s()
            scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            scratch.write_text("".join(kept), encoding="ascii")
            os.replace(scratch, path)
            return len(kept)
        with open(path, "a", encoding="ascii") as file:
            file.write("".join(new))
    except OSError:
        return lines
    return lines + len(new)


def _output_line(key: str, text: str) -> str:
    return json.dumps([key, text]) + "\n"  # ASCII: a lone surrogate is an escape


def _output_entry(line: str) -> tuple[str, str] | None:
    """The ``(sha256, text)`` of a line of black's texts, ``None`` where it is not one."""
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if (
        isinstance(entry, list)
        and len(entry) == 2
        and isinstance(entry[0], str)
        and _DIGEST.fullmatch(entry[0])
        and isinstance(entry[1], str)
    ):
        return entry[0], entry[1]
    return None


def format_sources(
    sources: Sequence[str], cache: FormatCache | None = None
) -> list[tuple[bool, str]]:
    """``(True, formatted)`` or ``(False, black's error)`` for each source.

    With a ``cache``, a source whose black text it knows is taken from it; black (imported only
    then) formats the others, using every core when there are several.
    """
    results: list[tuple[bool, str] | None] = [None] * len(sources)
    todo: list[int] = []
    for i, source in enumerate(sources):
        known = None if cache is None else cache.formatted(source)
        if known is not None:
            results[i] = (True, known)
        else:
            todo.append(i)
    if todo:
        formatted = _format_shapes([sources[i] for i in todo])
        for i, result in zip(todo, formatted):
            results[i] = result
        if cache is not None:
            pairs = [(sources[i], text) for i, (ok, text) in zip(todo, formatted) if ok]
            cache.add_formatted(pairs, used=sources)
    return [r for r in results if r is not None]


def format_long_lines(
    sources: Sequence[str], cache: FormatCache | None = None
) -> list[tuple[bool, str]]:
    """As :func:`format_sources`, but black formats only the statements with a line longer than
    the line length; the rest is taken as the templates laid it out.

    The templates lay Python out as black does where it fits the line length (the tests of
    ``generate --spec`` hold them to it, on every document they render), so black is needed
    only where a name or a union from the document makes a line too long: on a document of
    thousands of schemas that is a few statements, where black over everything would take
    minutes. Black gets the innermost statement that holds a long line (see :func:`_spans`),
    inside classes that give it the indentation it has in the text, so that black lays it out as
    it would in the whole text; of brackets laid out one element to a line (a model's reader of
    a hundred fields, a signature), only the element that holds the line (see
    :func:`_exploded`). Where a text cannot be cut so, or black cannot read a piece, black
    formats the whole text. With a ``cache``, a whole text it knows needs nothing is taken as it
    is, and texts found to need nothing are remembered.
    """
    known = [None if cache is None else cache.formatted(source) for source in sources]
    split = [[] if text is not None else source.split("\n") for source, text in zip(sources, known)]
    plans = [
        [] if text is not None or not _too_long(source) else _spans(source, lines)
        for source, lines, text in zip(sources, split, known)
    ]
    pieces = sorted(
        {_wrapped(lines, span) for lines, plan in zip(split, plans) for span in plan or ()},
        key=len,
    )
    done = dict(zip(pieces, format_sources(pieces, cache)))
    results: list[tuple[bool, str] | None] = []
    whole: list[int] = []
    for i, (lines, plan) in enumerate(zip(split, plans)):
        text = known[i]
        if text is None and plan is not None:
            text = _spliced(lines, plan, done)  # with no span, the source as it is
        if text is None:
            whole.append(i)
        results.append(None if text is None else (True, text))
    for i, result in zip(whole, format_sources([sources[i] for i in whole], cache)):
        results[i] = result
    if cache is not None:
        # a whole text is known next time, without parsing it
        pairs = [
            (source, result[1])
            for source, text, result in zip(sources, known, results)
            if text is None and result is not None and result[0]
        ]
        cache.add_formatted(pairs, used=sources)
    return [r for r in results if r is not None]


class _Part(NamedTuple):
    """One element of a statement's exploded brackets, which black lays out alone (see
    :func:`_exploded`): lines counted from 0."""

    first: int
    last: int
    """The element's lines."""
    head: int
    """The line that ends with the opening bracket."""
    tail: int
    """The line of the closing bracket, first on it."""
    body: bool
    """Whether the statement is a function's definition, its body after the tail."""
    nested: int = -1
    """Where the element is one of a call's exploded brackets inside an element of the
    statement's (see :func:`_innermost`): the indentation of the call's first line, at which the
    piece is ``_(`` and ``)`` around the element; -1 where the brackets are the statement's own,
    whose lines the piece keeps."""


class _Span(NamedTuple):
    """Lines of a text black formats alone, counted from 0."""

    first: int
    last: int
    depth: int
    """The indentation of the first line, in levels of four spaces."""
    only: _Part | None = None
    """Where black needs only one element of the statement's exploded brackets: black gets the
    line of the opening bracket, a name (:data:`_BESIDE`), the element and the line of the
    closing bracket (and ``pass`` as a function's body)."""

    @property
    def changed(self) -> tuple[int, int]:
        """The lines black's text replaces."""
        return (self.first, self.last) if self.only is None else self.only[:2]


def _spans(source: str, lines: list[str], tree: ast.Module | None = None) -> list[_Span] | None:
    """The pieces of ``source`` black must format: for each line that is too long, the innermost
    statement that holds it, with its decorators (or only the element of its brackets that
    holds it, where :func:`_exploded` finds one). A line of a string statement needs nothing but
    the last line of a docstring (where black may move the closing quotes), nor a comment at the
    margin (black does not wrap comments); a one-line block or an ``elif`` is formatted with the
    statement around it. ``None`` where ``ast`` cannot read the text, or only the whole text
    holds a long line: black formats the whole text.

    The statements are those of ``tree`` where it is given (the whole text parsed), else only the
    top-level statements that hold a long line, each parsed alone (see
    :func:`~generator.output.statements.statements_holding`: the same statements, without
    parsing megabytes of the rest), else the whole text parsed. A long line that is a string
    alone with its comma, or a name (:func:`_a_string`: a path's f-string, in a client of a
    thousand methods) is first looked up among even fewer statements (:func:`_lone_strings`)."""
    long = [number for number, line in enumerate(lines, start=1) if _too_long(line)]
    if tree is None:
        barred = barred_lines(source, lines)
        long = _lone_strings(source, lines, long, barred)
        if not long:
            return []
        tree = None if barred is None else statements_holding(source, lines, long, barred=barred)
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    spans: set[_Span] = set()
    index = _Index(tree)
    exploded: dict[int, _Exploded | None] = {}  # by statement: a statement holds many long lines
    for number in long:
        chain = index.holding(number)
        if chain and _is_string(chain[-1]) and not _docstring_end(chain, tree, number):
            continue  # black changes nothing on the lines of a string statement
        outer = bool(chain)
        while chain and not _alone(chain[-1], lines):
            chain.pop()
        if chain:
            node = chain[-1]
            if id(node) not in exploded:
                exploded[id(node)] = _exploded(node, lines)
            part = _innermost(_element(exploded[id(node)], number), lines, number)
            if part is not None and part.first == part.last and _a_string(lines[part.first]):
                continue  # black leaves a string or a name alone on its line as it is
            if part is not None and _a_name_called(lines, part, number):
                continue  # nor a name it has put on a line of its own
            spans.add(_span_of(node, lines, part))
        elif outer:
            return None
    kept: list[_Span] = []
    for span in sorted(spans, key=lambda s: (s.changed[0], -s.changed[1])):
        if not kept or span.changed[0] > kept[-1].changed[1]:
            kept.append(span)  # a span inside one kept already is formatted with it
    return kept


def _lone_strings(
    source: str, lines: list[str], long: list[int], barred: set[int] | None
) -> list[int]:
    """The lines of ``long`` but those that are strings or names black leaves as they are: each
    alone on its line (:func:`_a_string`), one element of the exploded brackets of a statement
    that has no block of its own and that black lays out alone (:func:`_alone`), as
    :func:`_spans` finds from the whole parse. The statements that hold such lines are parsed
    without the first statement of each body around them (see
    :func:`~generator.output.statements.statements_holding`): a statement with no block is the
    whole parse's wherever it is, the docstrings left out a method's longest part. A line found
    otherwise is kept, for the whole parse's answer."""
    lone = [number for number in long if _a_string(lines[number - 1])]
    if not lone or barred is None:
        return long
    tree = statements_holding(source, lines, lone, firsts=False, barred=barred)
    if tree is None:
        return long
    index = _Index(tree)
    exploded: dict[int, _Exploded | None] = {}
    left: set[int] = set()
    for number in lone:
        chain = index.holding(number)
        node = chain[-1] if chain else None
        if node is None or _blocks(node) or not _alone(node, lines):
            continue
        if id(node) not in exploded:
            exploded[id(node)] = _exploded(node, lines)
        part = _innermost(_element(exploded[id(node)], number), lines, number)
        if part is not None and part.first == part.last == number - 1:
            left.add(number)
    return [number for number in long if number not in left]


_LONE_STRING = re.compile(r' *(?:\w+=)?[bf]?"[^"\\\n]*",')
"""A string alone on its line, or a keyword's (``pattern="^a$"``), with its comma: in double
quotes, with no backslash and no double quote in it (a string black would quote or escape
otherwise is left to black)."""
_LONE_NAME = re.compile(r" *[\w.]+,")
"""A name (or a dotted name) alone on its line, with its comma (an import's, an argument)."""


def _a_string(line: str) -> bool:
    """Whether ``line``, an element of exploded brackets (see :func:`_exploded`), is a string
    alone or a keyword's (:data:`_LONE_STRING`), or a name (:data:`_LONE_NAME`): black splits
    neither, so it leaves such a line as it is however long. A path's f-string is often longer
    than the line, and so are a pattern and a name imported from a module of models."""
    return _LONE_STRING.fullmatch(line) is not None or _LONE_NAME.fullmatch(line) is not None


_CALLED = re.compile(r" *[\w.]+\(")
_NAME = re.compile(r" *[\w.]+")


def _a_name_called(lines: list[str], part: _Part, number: int) -> bool:
    """Whether the element ``part`` of exploded brackets is a call of one name laid out as black
    lays out one too long for its line, ``number`` (counted from 1) the name's line: ``check(``,
    the name (or dotted name) alone one level in, ``),``. Black splits no name, so it leaves the
    name's line as it is however long (the templates lay such calls out so, see
    :func:`~generator.output.templating.call`)."""
    first = part.first
    if part.last != first + 2 or number - 1 != first + 1:
        return False
    head, name, tail = lines[first : first + 3]
    indent = len(head) - len(head.lstrip(" "))
    return (
        _CALLED.fullmatch(head) is not None
        and not _too_long(head)
        and name.startswith(" " * (indent + 4))
        and name[indent + 4 : indent + 5] != " "
        and _NAME.fullmatch(name) is not None
        and tail == " " * indent + "),"
    )


_BESIDE = "_,"
"""The first element of a piece of one element (see :func:`_exploded`): a name, which black
leaves as it is."""


class _Exploded(NamedTuple):
    """A statement's brackets laid out one element to a line (see :func:`_exploded`)."""

    head: int
    tail: int
    firsts: list[int]
    lasts: list[int]
    """The first and last lines of each element, in order."""
    body: bool
    items: list[ast.AST | None]
    """Each element's node: an argument of a call (a keyword's too), else ``None``."""


def _element(exploded: _Exploded | None, number: int) -> tuple[_Part, ast.AST | None] | None:
    """The element of ``exploded`` that holds line ``number`` (counted from 1), if one does, with
    its node."""
    if exploded is None:
        return None
    at = bisect.bisect_right(exploded.firsts, number - 1) - 1
    if at < 0 or exploded.lasts[at] < number - 1:
        return None
    part = _Part(
        exploded.firsts[at], exploded.lasts[at], exploded.head, exploded.tail, exploded.body
    )
    return part, exploded.items[at]


def _innermost(
    found: tuple[_Part, ast.AST | None] | None, lines: list[str], number: int
) -> _Part | None:
    """The innermost element that holds line ``number`` (counted from 1), from the element
    ``found`` of a statement's exploded brackets: where that element is a call laid out one
    argument to a line itself (``name=check(`` on its first line, ``),`` alone on its last),
    the argument of it that holds the line, and so on inside that. Black lays each argument out
    alone at its depth there too, whatever the brackets around and the arguments beside it
    are: the piece is the argument alone in ``_(`` and ``)`` at the call's indentation."""
    if found is None:
        return None
    part, item = found
    while part.first != part.last and item is not None:
        inner = _call_laid_out(item, part, lines)
        deeper = _element(inner, number)
        if inner is None or deeper is None:
            break
        indent = len(lines[part.first]) - len(lines[part.first].lstrip(" "))
        held, item = deeper
        part = _Part(held.first, held.last, inner.head, inner.tail, False, indent)
    return part


def _call_laid_out(item: ast.AST, part: _Part, lines: list[str]) -> _Exploded | None:
    """The brackets of the call ``item`` (or a keyword's call), the element ``part`` of exploded
    brackets, laid out one argument to a line (see :func:`_laid_out`), its last line ``),``."""
    value = item.value if isinstance(item, ast.keyword) else item
    if not isinstance(value, ast.Call) or part.body:
        return None
    head, tail = part.first, part.last
    indent = len(lines[head]) - len(lines[head].lstrip(" "))
    bracket = (value.func.end_lineno, value.func.end_col_offset)
    if indent % 4 or bracket != (head + 1, len(lines[head].encode()) - 1):
        return None
    if not lines[head].endswith("(") or lines[tail] != " " * indent + "),":
        return None
    if value.end_lineno != tail + 1:
        return None
    items: list[ast.expr | ast.keyword] = [*value.args, *value.keywords]
    return _laid_out(lines, head, tail, sorted(((_place(i), i) for i in items), key=_first), False)


def _exploded(node: ast.stmt, lines: list[str]) -> _Exploded | None:
    """The brackets of ``node`` laid out one element to a line, where black lays each element out
    alone as it does in place; ``None`` where black needs the whole statement.

    The brackets are those of a call or a list, tuple or set (a statement, or the value of an
    assignment or a return), of the names a ``from`` import takes or of a function's parameters
    (``*`` and ``/`` on lines of their own). Each element is followed by its comma, the last one
    black's magic trailing comma, so that the brackets stay exploded, between a line that ends
    with the opening bracket and one that starts with the closing bracket. Black splits such
    brackets at their commas and lays each element out on its own at its depth, whatever the
    others are; a piece of one element (:func:`_piece_lines`) gives it :data:`_BESIDE` as a
    first element, since a single element keeps the brackets exploded only in some of them."""
    found = _brackets(node, lines)
    if found is None:
        return None
    head, tail, places, body = found
    return _laid_out(lines, head, tail, places, body)


def _laid_out(
    lines: list[str],
    head: int,
    tail: int,
    places: list[tuple[_Place, ast.AST | None]],
    body: bool,
) -> _Exploded | None:
    """:func:`_exploded` of brackets that open at the end of line ``head`` and close at the
    start of line ``tail``, their elements at ``places`` (in order), where each element begins
    a line of its own, one level in, and ends it with its comma."""
    indent = len(lines[head]) - len(lines[head].lstrip(" "))
    inside = " " * (indent + 4)
    if _too_long(lines[head]) or _too_long(lines[tail]):
        return None
    markers = (inside + "*,", inside + "/,")  # a signature's * and / on lines of their own
    at = head + 1
    firsts: list[int] = []
    lasts: list[int] = []
    for (first, column, end, end_column), _ in places:
        while lines[at] in markers:
            at += 1
        start = lines[first]
        if (
            first != at
            or column != len(inside)
            or not start.startswith(inside)
            or start[len(inside)] == " "
            or lines[end].encode()[end_column:] != b","
        ):
            return None
        firsts.append(first)
        lasts.append(end)
        at = end + 1
    while at < tail and lines[at] in markers:
        at += 1
    if not firsts or at != tail:
        return None
    return _Exploded(head, tail, firsts, lasts, body, [item for _, item in places])


_Place = tuple[int, int, int, int]
"""Where an element is: its first line (from 0) and column, its last line and the column after
it (in bytes, as :mod:`ast` counts)."""


def _brackets(
    node: ast.stmt, lines: list[str]
) -> tuple[int, int, list[tuple[_Place, ast.AST | None]], bool] | None:
    """For :func:`_exploded`: the lines (from 0) where ``node``'s exploded brackets open and
    close, where their elements are, in order, and whether a function's body follows."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _parameters(node, lines)
    if node.end_lineno is None:
        return None
    head, tail = node.lineno - 1, node.end_lineno - 1
    indent = len(lines[head]) - len(lines[head].lstrip(" "))
    if isinstance(node, ast.ImportFrom):
        if lines[head].endswith("(") and lines[tail] == " " * indent + ")":
            return head, tail, [(_place(name), None) for name in node.names], False
        return None
    value = getattr(node, "value", None)
    if not isinstance(node, (ast.Expr, ast.Return, ast.Assign, ast.AnnAssign)) or value is None:
        return None
    items: list[ast.expr | ast.keyword]
    if isinstance(value, ast.Call):  # the bracket right after what is called
        items, brackets = [*value.args, *value.keywords], "()"
        bracket = (value.func.end_lineno, value.func.end_col_offset)
    elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):  # the display starts at its bracket
        items, brackets = list(value.elts), _BRACKETS[type(value)]
        bracket = (value.lineno, value.col_offset)
    else:
        return None
    if bracket != (head + 1, len(lines[head].encode()) - 1) or value.end_lineno != tail + 1:
        return None
    if not lines[head].endswith(brackets[0]) or lines[tail] != " " * indent + brackets[1]:
        return None
    return head, tail, sorted(((_place(item), item) for item in items), key=_first), False


def _first(place: tuple[_Place, ast.AST | None]) -> _Place:
    return place[0]


def _parameters(
    node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]
) -> tuple[int, int, list[tuple[_Place, ast.AST | None]], bool] | None:
    """:func:`_brackets` of a function's parameters: each one to its default, if it has one."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    named = [*positional, *arguments.kwonlyargs]
    defaults += [*arguments.defaults, *arguments.kw_defaults]
    places = [_place(arg, default) for arg, default in zip(named, defaults)]
    places += [_place(arg) for arg in (arguments.vararg, arguments.kwarg) if arg is not None]
    head, tail = node.lineno - 1, node.body[0].lineno - 2
    indent = len(lines[head]) - len(lines[head].lstrip(" "))
    if tail <= head or not lines[head].endswith("("):
        return None
    if not (lines[tail].startswith(" " * indent + ")") and lines[tail].endswith(":")):
        return None
    return head, tail, [(place, None) for place in sorted(places)], True


def _place(
    node: ast.expr | ast.keyword | ast.arg | ast.alias, to: ast.expr | None = None
) -> _Place:
    last = to or node
    return (
        node.lineno - 1,
        node.col_offset,
        (last.end_lineno or last.lineno) - 1,
        last.end_col_offset or 0,
    )


_BRACKETS = {ast.List: "[]", ast.Tuple: "()", ast.Set: "{}"}


class _Index:
    """Which statements of a parsed text hold a line: for each statement asked about, its
    blocks' statements with their first and last lines, found by bisection where they are in the
    order of their lines (a text of thousands of classes asks about each long line)."""

    def __init__(self, tree: ast.Module) -> None:
        self._tree = tree
        self._bodies: dict[int, tuple[list[ast.stmt], list[int], list[int], bool]] = {}

    def holding(self, number: int) -> list[ast.stmt]:
        """The statements that hold line ``number`` (counted from 1), outermost first: in each
        block, the first statement (in the order of the blocks) whose lines hold it."""
        chain: list[ast.stmt] = []
        owner: ast.AST = self._tree
        while True:
            node = self._find(owner, number)
            if node is None:
                return chain
            chain.append(node)
            owner = node

    def _find(self, owner: ast.AST, number: int) -> ast.stmt | None:
        known = self._bodies.get(id(owner))
        if known is None:
            if isinstance(owner, ast.Module):
                body = owner.body
            else:
                assert isinstance(owner, ast.stmt)
                body = [child for block in _blocks(owner) for child in block]
            firsts = [_first_line(node) for node in body]
            lasts = [node.end_lineno or node.lineno for node in body]
            ordered = all(a <= b for a, b in zip(firsts, firsts[1:]))
            known = self._bodies[id(owner)] = (body, firsts, lasts, ordered)
        body, firsts, lasts, ordered = known
        if not ordered:
            for node, first, last in zip(body, firsts, lasts):
                if first <= number <= last:
                    return node
            return None
        # statements of one block share at most a line (``a; b``): the first that holds the
        # line is the last that starts at or before it, or one before it ending on that line
        at = bisect.bisect_right(firsts, number) - 1
        if at < 0 or lasts[at] < number:
            return None
        while at > 0 and lasts[at - 1] >= number:
            at -= 1
        return body[at]


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    """The blocks of statements inside ``node``."""
    blocks = [getattr(node, name, None) for name in ("body", "orelse", "finalbody")]
    handlers: list[ast.excepthandler] = getattr(node, "handlers", [])
    blocks += [handler.body for handler in handlers if isinstance(handler, ast.ExceptHandler)]
    blocks += [case.body for case in node.cases] if isinstance(node, ast.Match) else []
    return [block for block in blocks if isinstance(block, list)]


def _decorators(node: ast.stmt) -> list[ast.expr]:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return decorators


def _first_line(node: ast.stmt) -> int:
    return min([node.lineno, *(d.lineno for d in _decorators(node))])


def _is_string(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _docstring_end(chain: list[ast.stmt], tree: ast.Module, number: int) -> bool:
    """Whether line ``number`` is the last of a docstring (a string statement first in its
    block), where black may move the closing quotes by the line length."""
    node = chain[-1]
    blocks = _blocks(chain[-2]) if len(chain) > 1 else [tree.body]
    return number == (node.end_lineno or node.lineno) and any(b[0] is node for b in blocks if b)


def _alone(node: ast.stmt, lines: list[str]) -> bool:
    """Whether black lays ``node`` out alone as it would in place: it has its lines to itself,
    indented by levels of four spaces, and it is not an ``elif`` (a docstring stays first in its
    block: in the classes around it, or at the start of the text)."""
    first = lines[_first_line(node) - 1]
    indent = len(first) - len(first.lstrip(" "))
    starts = [node.col_offset, *(d.col_offset - 1 for d in _decorators(node))]
    last = lines[(node.end_lineno or node.lineno) - 1]
    return (
        min(starts) == indent
        and indent % 4 == 0
        and not first.lstrip(" ").startswith("elif")
        and len(last.encode()) == node.end_col_offset
    )


def _span_of(node: ast.stmt, lines: list[str], only: _Part | None) -> _Span:
    first = _first_line(node) - 1
    indent = len(lines[first]) - len(lines[first].lstrip(" "))
    if only is not None and only.nested >= 0:
        indent = only.nested  # the piece is the element in ``_(`` and ``)`` at this depth
    return _Span(first, (node.end_lineno or node.lineno) - 1, indent // 4, only)


def _wrapped(lines: list[str], span: _Span) -> str:
    """The lines of ``span`` inside as many classes as their indentation has levels."""
    return _wrapper(span.depth) + "\n".join(_piece_lines(lines, span)) + "\n"


def _piece_lines(lines: list[str], span: _Span) -> list[str]:
    part = span.only
    if part is None:
        return lines[span.first : span.last + 1]
    return [*_before(lines, span), *lines[part.first : part.last + 1], *_after(lines, span)]


def _before(lines: list[str], span: _Span) -> list[str]:
    """The lines of a piece of one element before it (see :func:`_exploded`): the line that
    opens its brackets (``_(`` for a call inside an element, see :func:`_innermost`) and the name
    beside it."""
    part = span.only
    assert part is not None
    inside = " " * (4 * span.depth + 4)
    opening = " " * part.nested + "_(" if part.nested >= 0 else lines[part.head]
    return [opening, inside + _BESIDE]


def _after(lines: list[str], span: _Span) -> list[str]:
    """The lines of a piece of one element after it: the line that closes its brackets, and a
    function's ``pass``."""
    part = span.only
    assert part is not None
    if part.nested >= 0:
        return [" " * part.nested + ")"]
    body = [" " * (4 * span.depth + 4) + "pass"] if part.body else []
    return [lines[part.tail], *body]


def _wrapper(depth: int) -> str:
    return "".join(f"{'    ' * level}class _Level{level}:\n" for level in range(depth))


def _spliced(lines: list[str], plan: list[_Span], done: dict[str, tuple[bool, str]]) -> str | None:
    """The text of ``lines`` with black's text of each span in place; ``None`` where black could
    not read a span, or laid out otherwise what it was to leave as it is (the wrapper; for one
    element, the lines of its brackets, the name beside it and a function's ``pass``)."""
    replaced: list[tuple[tuple[int, int], list[str]]] = []
    for span in plan:
        ok, text = done[_wrapped(lines, span)]
        wrapper = _wrapper(span.depth)
        if not ok or not text.startswith(wrapper):
            return None
        formatted = text[len(wrapper) :].rstrip("\n").split("\n")
        if span.only is not None:
            element = _element_lines(lines, span, formatted)
            if element is None:
                return None
            formatted = element
        replaced.append((span.changed, formatted))
    out = list(lines)
    for (first, last), formatted in sorted(replaced, reverse=True):
        out[first : last + 1] = formatted
    return "\n".join(out)


def _element_lines(lines: list[str], span: _Span, formatted: list[str]) -> list[str] | None:
    """Black's lines of the element of ``span`` in ``formatted`` (black's text of its piece), or
    ``None`` where black changed what the piece holds besides it."""
    before, after = _before(lines, span), _after(lines, span)
    if formatted[: len(before)] != before or formatted[len(formatted) - len(after) :] != after:
        return None
    return formatted[len(before) : len(formatted) - len(after)] or None


def _too_long(text: str) -> bool:
    """Whether a line is longer than black allows, in columns as black counts them (a wide
    character is two, none is more): black's count is asked (and black imported) only for a
    line that could be too long so, one whose length and count of non-ASCII characters
    together exceed the line length."""
    for line in text.split("\n"):
        if len(line) > LINE_LENGTH:
            return True
        if not line.isascii() and 2 * len(line) - len(line.encode("ascii", "ignore")) > LINE_LENGTH:
            from black.strings import str_width

            if str_width(line) > LINE_LENGTH:
                return True
    return False


def _format_shapes(sources: Sequence[str]) -> list[tuple[bool, str]]:
    """:func:`_format_all` of ``sources``, each shape once (see :mod:`.shapes`): black formats a
    text itself only where its shape's text does not give its names back, or black refused the
    shape (so that the refusal names the text's own words)."""
    shaped = [shape(source) for source in sources]
    unique = list(dict.fromkeys(key for key, _ in shaped))
    done = dict(zip(unique, _format_all(unique)))
    results: list[tuple[bool, str]] = []
    again: list[int] = []
    for i, (key, names) in enumerate(shaped):
        ok, text = done[key]
        back = restored(text, names) if ok else None
        if back is None and names:
            again.append(i)
        results.append((ok, text) if back is None else (True, back))
    for i, result in zip(again, _format_all([sources[i] for i in again])):
        results[i] = result
    return results


def _format_all(sources: Sequence[str]) -> list[tuple[bool, str]]:
    """Black's text of each source (see :func:`_format`), using every core where there is
    enough to format: the workers take the longest sources first, in batches (a source at a
    time would cost more in passing it than black takes on a short one)."""
    import black  # noqa: F401  (imported before forking, so that every worker has it)

    workers = min(os.cpu_count() or 1, len(sources))
    if workers < 2 or sum(map(len, sources)) < _WORTH_A_PROCESS:
        return [_format(source) for source in sources]
    import concurrent.futures
    import multiprocessing

    order = sorted(range(len(sources)), key=lambda i: -len(sources[i]))
    batch = max(1, len(sources) // (workers * _BATCHES_PER_WORKER))
    with concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork"), initializer=gc.disable
    ) as pool:
        formatted = pool.map(_format_in_worker, [sources[i] for i in order], chunksize=batch)
        results: list[tuple[bool, str]] = [(False, "")] * len(sources)
        for i, result in zip(order, formatted):
            results[i] = result
    return results


def _format_in_worker(source: str) -> tuple[bool, str]:
    """:func:`_format` in a worker of :func:`_format_all`, whose collector of cyclic garbage is
    off (the pool's initializer): a worker is a fork of the generator, and each automatic
    collection would walk what it inherited (the document's whole model) with black's own
    objects, a fifth of the workers' CPU on a large document. Black's syntax trees are cycles
    (a node and its parent), so what the piece left is collected once it is formatted: the
    objects made since the last piece alone, what the worker holds at most one piece's worth."""
    try:
        return _format(source)
    finally:
        gc.collect(0)


def _format(source: str) -> tuple[bool, str]:
    import black
    from black.parsing import InvalidInput

    try:
        return True, black.format_str(source, mode=black_mode())
    except InvalidInput as exc:
        return False, str(exc)
