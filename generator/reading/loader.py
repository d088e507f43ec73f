"""Reading spec documents from disk."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ..errors import SpecError, UnsupportedConstructError
from ..pointer import join

try:  # libyaml's loader is several times faster on large documents
    _Base: type[Any] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader


ALIAS_EXPANSION = 10
"""How many times the nodes written a document may hold once its YAML aliases are expanded
(beyond :data:`ALIAS_ALLOWANCE`): a "billion laughs" document of a few lines expands to
billions, which every reader of the data would walk."""
ALIAS_ALLOWANCE = 100_000

# An anchor (``&name``) and an alias (``*name``) where YAML allows them: only a text that has
# both is walked for its expanded size (a false match costs a walk, nothing else).
_ANCHOR = re.compile(r"(?:^|[\s\[{,:-])&[^\s,\[\]{}]")
_ALIAS = re.compile(r"(?:^|[\s\[{,:-])\*[^\s,\[\]{}]")
_JSON_START = re.compile(r"\s*[\[{]")
# The start of a URL: a scheme (``http:``, ``file:``, ``urn:``) or a network path (``//host``).
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")


class _Loader(_Base):  # type: ignore[misc]
    """YAML as JSON sees it: an unquoted date or timestamp (``2024-02-28T21:34:35Z`` in an
    example) stays the string it is, rather than becoming a ``datetime`` no JSON can hold.
    Aliases may expand the document only so far (see :data:`ALIAS_EXPANSION`)."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }
    check_aliases = False
    source = ""

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        if self.check_aliases:
            _check_expansion(node, self.source)
        return self.construct_document(node)


def _check_expansion(root: yaml.Node, source: str) -> None:
    """Refuse a document whose aliases expand it beyond the limit, naming the JSON pointer of
    the alias that does and the line of its anchor. Each node is counted once (its expanded
    size remembered), so the check is linear in the nodes written."""
    size: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in _children(node))
            continue
        if key in size:
            continue
        if key in open_nodes:
            raise SpecError(
                "",
                f"a YAML alias at line {node.start_mark.line + 1} refers to a node it is inside "
                "(a recursive document)",
                source=source,
            )
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(_children(node)))
    written = len(size)
    limit = ALIAS_EXPANSION * written + ALIAS_ALLOWANCE
    if size[id(root)] <= limit:
        return
    # the alias that crosses the limit: follow, in document order, the node that crosses it to
    # the first that is an alias (its node was written before, elsewhere)
    node, path, total = root, [], 0
    while True:
        total += 1
        previous_end = node.start_mark.index
        for token, child in _entries(node):
            if total + size[id(child)] > limit:
                break
            total += size[id(child)]
            previous_end = max(previous_end, child.end_mark.index)
        else:  # pragma: no cover - the sizes add up to more than the limit
            break
        path.append(token)
        node = child
        if child.start_mark.index < previous_end:  # written before this place: an alias
            break
    mark = node.start_mark
    raise SpecError(
        join("", *path),
        f"a YAML alias here expands the anchor at line {mark.line + 1}, column {mark.column + 1} "
        f"so that the document would hold more than {limit:,} values ({written:,} written); "
        "aliases may expand a document to at most "
        f"{ALIAS_EXPANSION} times its values plus {ALIAS_ALLOWANCE:,}",
        source=source,
    )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _entries(node: yaml.Node) -> list[tuple[str, yaml.Node]]:
    """A container's children with the JSON pointer token of each (a key counts as its
    entry's)."""
    if isinstance(node, yaml.MappingNode):
        return [
            (str(k.value) if isinstance(k, yaml.ScalarNode) else "?", n)
            for k, v in node.value
            for n in (k, v)
        ]
    if isinstance(node, yaml.SequenceNode):
        return [(str(i), n) for i, n in enumerate(node.value)]
    return []


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: loading builds many containers and no cycles, and
    collections triggered by the allocations would make large documents load in more than
    linear time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_yaml(path: Path) -> Any:
    """Read a YAML (or JSON) document; a syntax error becomes a :class:`SpecError` with its line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError("", f"cannot read the file: {exc.strerror}", source=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise SpecError("", f"not UTF-8 text ({exc.reason})", source=str(path)) from exc
    return parse_yaml(text, str(path))


def referenced_file(
    source: str | None, here: str, location: str, *, ref: str, at: str
) -> tuple[str, Path]:
    """The file a ``$ref`` names, by the one rule of what a document may refer to (the parser
    follows it, and openapi-spec-validator is held to it): ``location``, the reference's part
    before ``#`` (percent-encoded, as in a URI), is a path relative to the file ``here`` (named
    relative to the folder of the root document ``source``; ``""`` is the root document), and
    stays within that folder once its ``..`` and symbolic links are followed. Returns the file's
    name relative to the folder (``""`` for the root document) and its path; nothing is read.

    A URL (any scheme, ``//host``) and a reference of a document that has no file are
    unsupported; an absolute path and a path out of the folder are errors; each at ``at``."""
    if _URL.match(location):
        raise UnsupportedConstructError(
            at, f"the $ref {ref!r} to a URL is not supported by the generator yet", source=source
        )
    if source is None:
        raise UnsupportedConstructError(
            at,
            f"the external $ref {ref!r} (the document has no file) is not supported by the "
            "generator yet",
        )
    relative = urllib.parse.unquote(location)
    if "\0" in relative:
        raise SpecError(at, f"the $ref {ref!r} names no file (a NUL character)", source=source)
    if relative.startswith("/"):
        raise SpecError(
            at,
            f"the $ref {ref!r} is not a relative path: a file is named relative to the file that "
            "holds the $ref",
            source=source,
        )
    root = Path(source)
    folder = root.parent.resolve()
    base = (folder / here).parent if here else folder
    outside = f"the $ref {ref!r} leads outside the folder of the document ({folder})"
    if not Path(os.path.normpath(base / relative)).is_relative_to(folder):
        raise SpecError(at, outside, source=source)
    try:
        path = (base / relative).resolve()
    except (OSError, RuntimeError) as exc:  # a loop of symbolic links
        raise SpecError(at, f"the $ref {ref!r} cannot be followed: {exc}", source=source) from None
    if not path.is_relative_to(folder):
        raise SpecError(at, f"{outside} through a symbolic link", source=source)
    return "" if path == root.resolve() else path.relative_to(folder).as_posix(), path


def read_referenced(
    files: dict[str, Any], source: str | None, here: str, location: str, *, ref: str, at: str
) -> str:
    """The name of the file a ``$ref`` names (see :func:`referenced_file`), read into ``files``
    (the documents read, by name) unless it is there already. A file that cannot be read is an
    error at its own place (``name#/``)."""
    name, path = referenced_file(source, here, location, ref=ref, at=at)
    if name not in files:
        try:
            files[name] = load_yaml(path)
        except SpecError as exc:
            raise SpecError(f"{name}#{exc.pointer}", exc.message, source=source) from None
    return name


def parse_yaml(text: str, source: str) -> Any:
    """Parse YAML text read from ``source``; errors as in :func:`load_yaml`. A JSON text (most
    large public documents are JSON) is read by the JSON parser, several times faster than
    YAML's, into what the YAML reading of it gives (see :func:`_as_json`); any other text, and
    a JSON text that parser refuses, by YAML's."""
    if _JSON_START.match(text):
        data = _as_json(text)
        if data is not _NOT_JSON:
            return data
    loader = _Loader(text)
    loader.source = source
    loader.check_aliases = bool(_ANCHOR.search(text) and _ALIAS.search(text))
    try:
        with _collector_paused():
            return loader.get_single_data()
    except yaml.YAMLError as exc:
        raise SpecError("", f"not valid YAML: {_yaml_problem(exc)}", source=source) from exc
    except ValueError as exc:  # a scalar YAML cannot construct, such as the date 2026-13-01
        raise SpecError("", f"not valid YAML: {exc}", source=source) from exc
    except RecursionError:
        raise SpecError("", "nested too deeply to be read", source=source) from None
    finally:
        loader.dispose()


_NOT_JSON = object()

# A float as YAML 1.1 reads one (PyYAML's resolver): a JSON number with an exponent but no point
# (``1e5``), or without a sign in its exponent (``1.5e3``), is a string to it.
_YAML_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?\Z")


def _as_json(text: str) -> Any:
    """``text`` read by the JSON parser into what the YAML loader reads from it (``_NOT_JSON``
    where the parser refuses it): a number as YAML 1.1 resolves it (see :data:`_YAML_FLOAT`),
    ``NaN`` and ``Infinity`` (which JSON does not have) as the strings YAML reads. A string keeps
    the characters YAML would take for line breaks (NEL, U+2028, U+2029) and fold, as JSON
    means. JSON has no anchors or aliases, so there is nothing to expand."""
    try:
        with _collector_paused():
            return json.loads(text, parse_float=_yaml_float, parse_constant=str)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _yaml_float(text: str) -> float | str:
    return float(text) if _YAML_FLOAT.match(text) else text


def _where(mark: Any) -> str:
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's account of a syntax error: where the construct began that it could not finish
    (``while parsing a flow sequence ... line 105``, where the mistake usually is), then what it
    found and where."""
    problem = getattr(exc, "problem", None)
    if problem is None:
        return str(exc)
    found = f"{problem}{_where(getattr(exc, 'problem_mark', None))}"
    context = getattr(exc, "context", None)
    if context is None:
        return found
    return f"{context}{_where(getattr(exc, 'context_mark', None))}, {found}"


class _Dumper(yaml.SafeDumper):
    """Indents list items under their key, as the project's documents are written."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def dump_yaml(data: Any) -> str:
    """``data`` as YAML that :func:`load_yaml` reads back as the same data."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
