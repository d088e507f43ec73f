"""A compiled JSON Schema check (jsonschema-rs) in front of jsonschema, for the validator's two
costly checks: the document against the OpenAPI schema, and each schema of the document against
its dialect's meta-schema.

Only validity is asked of the compiled validator. Where it finds the value valid, jsonschema is
not run: on a valid document that is most of the validator's time saved. Where it finds the
value invalid, cannot read it (a key that is not a string, a value JSON has no type for), or
raises, jsonschema checks it as before, so that every finding keeps jsonschema's words and
place; on a schema whose references mean the same wherever they are reached from (the OpenAPI
3.0 schema's draft 4), jsonschema asks the compiled validator again at each reference it
descends into, and walks only the parts found invalid (:func:`checking_references`). Both are given the same meta-schema and the same format checks: each format named in the
meta-schemas is checked by jsonschema's own format checker, or by none where jsonschema's has
none. The two regular-expression engines (Rust's for the compiled one, Python's ``re``) read
``$``, ``.`` and ``\\d`` differently: each pattern is rewritten to Python's meaning, and the
patterns of the drafts' meta-schemas built into the compiled validator are trusted only on plain
ASCII text. ``tests/unit/test_compiled_check.py`` holds the findings equal on documents with
mutations at every place.
"""

from __future__ import annotations

import array
import functools
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any


class PreChecked:
    """A jsonschema validator of an OpenAPI document (``iter_errors`` of the document), with the
    compiled validator of the same schema asked first."""

    def __init__(self, validator: Any) -> None:
        self._validator = validator
        self._valid = compiled(validator.schema, None)
        self.schema = validator.schema

    def iter_errors(self, instance: Any) -> Iterator[Any]:
        if not self._valid(instance):
            yield from self._validator.iter_errors(instance)


def compiled(schema: Any, format_checker: Any, registry: Any = None) -> Callable[[Any], bool]:
    """Whether a value is valid against ``schema`` by the compiled validator, with the formats
    that ``format_checker`` (jsonschema's; ``None``: no format asserted) checks and the
    patterns meaning what they mean to Python (:func:`_as_python_reads`), its references
    resolved in ``registry`` (:func:`_registry`'s where not given); ``False`` where it cannot
    say (a pattern it cannot give Python's meaning, a validator it cannot build, a value it
    cannot read)."""
    try:
        import jsonschema_rs
    except ImportError:  # not installed: jsonschema checks everything
        return _never
    try:
        validator = jsonschema_rs.validator_for(
            _with_python_patterns(schema),
            validate_formats=format_checker is not None,
            formats=None if format_checker is None else _formats(format_checker),
            registry=_registry() if registry is None else registry,
            offline=True,
        )
    except Exception:  # a schema it cannot compile (a pattern untranslated): left to jsonschema
        return _never

    def valid(value: Any) -> bool:
        try:
            return bool(validator.is_valid(value))
        except Exception:  # a value it cannot read (a key that is not a string, a date...)
            return False

    return valid


def _never(value: Any) -> bool:
    return False


@functools.cache
def _resources() -> tuple[tuple[str, Any], ...]:
    """The meta-schemas jsonschema resolves the OpenAPI dialects' references in (the JSON Schema
    drafts' and OpenAPI's, as openapi-schema-validator registers them), by URI."""
    from openapi_schema_validator._specifications import REGISTRY

    return tuple((uri, REGISTRY.contents(uri)) for uri in REGISTRY)


@functools.cache
def _registry() -> Any:
    import jsonschema_rs

    return jsonschema_rs.Registry(list(_registered()))


@functools.cache
def _registered() -> tuple[tuple[str, Any], ...]:
    """:func:`_resources` as the compiled validator is given them: with Python's patterns, and
    without the drafts' own meta-schemas (built into it)."""
    builtin = ("http://json-schema.org/", "https://json-schema.org/")
    return tuple(
        (uri, _with_python_patterns(contents))
        for uri, contents in _resources()
        if not uri.startswith(builtin)
    )


_STATIC_DRAFTS = {
    "http://json-schema.org/draft-04/schema#": "id",
    "http://json-schema.org/draft-06/schema#": "$id",
    "http://json-schema.org/draft-07/schema#": "$id",
}
"""The drafts whose references mean the same wherever the validation reaches them from (no
dynamic scope, no annotations), by URI, with the keyword that gives a schema its own base."""


def checking_references(cls: Any, schema: Any) -> Any:
    """``cls``, jsonschema's validator class of ``schema`` (the OpenAPI schema of documents),
    where each local ``$ref`` of ``schema`` that an object or an array reaches asks the
    compiled validator first: where it finds the value valid against the reference, jsonschema
    does not descend into it (it would find nothing there). On a document with a few faults
    jsonschema then walks the way to each fault rather than the whole document; the findings,
    their words, places and order are those of jsonschema alone. Only for a schema of a draft in
    :data:`_STATIC_DRAFTS` whose one base is its root's (no schema within it sets its own), where
    a reference's verdict on a value depends on the value alone; ``cls`` as it is otherwise."""
    import jsonschema.validators  # type: ignore[import-untyped]

    draft = schema.get("$schema") if isinstance(schema, dict) else None
    key = _STATIC_DRAFTS.get(draft) if isinstance(draft, str) else None
    if key is None:
        return cls
    root = schema.get(key)
    if not isinstance(root, str) or not root or _bases_within(schema, key):
        return cls
    base = root.partition("#")[0]
    original = cls.VALIDATORS["$ref"]
    checks: dict[str, Callable[[Any], bool]] = {}
    registries: list[Any] = []

    def check(ref: str) -> Callable[[Any], bool]:
        if ref not in checks:
            if not registries:
                import jsonschema_rs

                registries.append(
                    jsonschema_rs.Registry([*_registered(), (base, _with_python_patterns(schema))])
                )
            checks[ref] = compiled({"$schema": draft, "$ref": base + ref}, None, registries[0])
        return checks[ref]

    def reference(validator: Any, ref: Any, instance: Any, node: Any) -> Iterator[Any]:
        if not (
            isinstance(instance, (dict, list))
            and isinstance(ref, str)
            and ref.startswith("#")
            and check(ref)(instance)
        ):
            yield from original(validator, ref, instance, node)

    return jsonschema.validators.extend(cls, {"$ref": reference})


def _bases_within(schema: dict[str, Any], key: str) -> bool:
    """Whether an object within ``schema`` (its root aside) has a string at ``key``: a schema
    that may set a base of its own (or a value that merely looks like one: either way its
    references are left to jsonschema alone)."""
    todo: list[Any] = [value for name, value in schema.items() if name != key]
    while todo:
        here = todo.pop()
        if isinstance(here, dict):
            if isinstance(here.get(key), str):
                return True
            todo.extend(here.values())
        elif isinstance(here, list):
            todo.extend(here)
    return False


def _formats(format_checker: Any) -> dict[str, Callable[[str], bool]]:
    """A check for each format any meta-schema names: ``format_checker``'s where it has one,
    else none (a format jsonschema does not check is not checked here either)."""
    names = {name for _, contents in _resources() for name in _format_names(contents)}
    return {name: functools.partial(_conforms, format_checker, name) for name in sorted(names)}


def _conforms(format_checker: Any, name: str, value: str) -> bool:
    return bool(format_checker.conforms(value, name))


def _format_names(node: Any) -> Iterator[str]:
    todo = [node]
    while todo:
        here = todo.pop()
        if isinstance(here, dict):
            if isinstance(here.get("format"), str):
                yield here["format"]
            todo.extend(here.values())
        elif isinstance(here, list):
            todo.extend(here)


def meta_check(checker: Any) -> Callable[[Any], bool]:
    """The compiled form of ``checker``, a schema check openapi-spec-validator makes
    (``check_schema`` of an openapi-schema-validator class, with or without a format checker):
    the same meta-schema and formats. Any other check is never found valid here (jsonschema
    makes it)."""
    from openapi_schema_validator.validators import check_openapi_schema

    keywords = getattr(checker, "keywords", {})
    method = getattr(checker, "func", checker)
    owner = getattr(method, "__self__", None)
    if (
        owner is None
        or getattr(method, "__func__", None) is not check_openapi_schema
        or set(keywords) - {"format_checker"}
    ):
        return _never
    return _compiled_meta(owner, keywords.get("format_checker", owner.FORMAT_CHECKER))


@functools.cache
def _compiled_meta(owner: Any, format_checker: Any) -> Callable[[Any], bool]:
    """The compiled check of ``owner``'s meta-schema. The drafts' own meta-schemas are built
    into the compiled validator, with their patterns as its engine reads them: a schema is
    found valid there only where each value those patterns check is plain text (ASCII, no line
    break), which both engines read alike."""
    valid = compiled(owner.META_SCHEMA, format_checker)
    checked = _builtin_pattern_keys(str(owner.META_SCHEMA.get("$schema", "")))
    if not checked:
        return valid
    return lambda schema: _plain_at(schema, checked) and valid(schema)


def _builtin_pattern_keys(draft: str) -> frozenset[str]:
    """The keywords whose values the meta-schemas of the draft ``draft`` (its URI) hold to a
    pattern: those of its ``properties`` with a ``pattern``, or a local ``$ref`` to one."""
    folder = draft.rstrip("#").removesuffix("schema")
    keys: set[str] = set()
    for uri, contents in _resources():
        if not (folder and uri.startswith(folder) and isinstance(contents, dict)):
            continue
        definitions: dict[str, Any] = contents.get("$defs") or contents.get("definitions") or {}
        for key, schema in (contents.get("properties") or {}).items():
            if not isinstance(schema, dict):
                continue
            target = str(schema.get("$ref", ""))
            named = definitions.get(target.rpartition("/")[2]) if "/" in target else None
            if "pattern" in schema or (isinstance(named, dict) and "pattern" in named):
                keys.add(key)
    return frozenset(keys)


def _plain_at(node: Any, keys: frozenset[str]) -> bool:
    """Whether every string at one of ``keys`` in ``node`` is ASCII without a line break."""
    todo = [node]
    while todo:
        here = todo.pop()
        if isinstance(here, dict):
            for key, value in here.items():
                if key in keys and isinstance(value, str) and not _plain(value):
                    return False
                todo.append(value)
        elif isinstance(here, list):
            todo.extend(here)
    return True


def _plain(text: str) -> bool:
    return text.isascii() and "\n" not in text and "\r" not in text


class _Untranslatable(Exception):
    """A pattern with a construct :func:`_as_python_reads` does not translate."""


def _with_python_patterns(node: Any) -> Any:
    """``node`` (a schema) with each ``pattern`` and each key of ``patternProperties`` as
    :func:`_as_python_reads` writes it."""
    if isinstance(node, list):
        return [_with_python_patterns(item) for item in node]
    if not isinstance(node, dict):
        return node
    copied: dict[str, Any] = {}
    for key, value in node.items():
        if key == "pattern" and isinstance(value, str):
            copied[key] = _as_python_reads(value)
        elif key == "patternProperties" and isinstance(value, dict):
            copied[key] = {
                _as_python_reads(name): _with_python_patterns(inner)
                for name, inner in value.items()
            }
        else:
            copied[key] = _with_python_patterns(value)
    return copied


def _as_python_reads(pattern: str) -> str:
    """``pattern`` written for the compiled validator's engine so that it matches what Python's
    ``re.search`` (jsonschema's) matches: ``$`` also before a final newline, ``.`` any
    character but a newline (the compiled engine's also refuses a carriage return and the
    Unicode line separators), ``\\d`` the decimal digits of Python's Unicode tables. Character
    classes of plain characters and ranges, groups, alternatives and quantifiers mean the same
    to both; any other escape or construct raises :class:`_Untranslatable`."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            escaped = pattern[i + 1 : i + 2]
            if escaped == "d":
                out.append(f"[{_digit_ranges()}]")
            elif escaped and not escaped.isalnum():
                out.append(pattern[i : i + 2])  # an escaped symbol: the symbol itself
            else:
                raise _Untranslatable(pattern)
            i += 2
        elif char == "[":
            end = i + 1 + (pattern[i + 1 : i + 2] == "^")
            end += pattern[end : end + 1] == "]"  # a ] first in a class is itself
            while end < len(pattern) and pattern[end] != "]":
                if pattern[end] == "\\":
                    if pattern[end + 1 : end + 2].isalnum():
                        raise _Untranslatable(pattern)
                    end += 1
                elif pattern[end] == "[":
                    raise _Untranslatable(pattern)  # a nested class or a POSIX class
                end += 1
            if end >= len(pattern):
                raise _Untranslatable(pattern)
            out.append(pattern[i : end + 1])
            i = end + 1
        elif char == "(" and pattern[i + 1 : i + 2] == "?" and pattern[i + 2 : i + 3] != ":":
            raise _Untranslatable(pattern)  # a lookaround, a named group, a flag
        else:
            out.append({"$": "(?:\\n?$)", ".": "[^\\n]"}.get(char, char))
            i += 1
    return "".join(out)


@functools.cache
def _digit_ranges() -> str:
    """The characters ``\\d`` matches in a Python ``str`` pattern (Unicode's decimal digits),
    as the ranges of a class. Unicode's stability policy keeps the decimal digits in runs of ten
    consecutive code points, valued 0 to 9: every tenth code point meets each run once, so
    Python's own ``\\d`` is run over those alone (a tenth of a pass over every code point, which
    each cold start of the validator would spend) and each run is found from its digit's
    value."""
    sample = array.array("I", range(0, sys.maxunicode + 1, 10))
    if sys.byteorder == "big":
        sample.byteswap()
    text = sample.tobytes().decode("utf-32-le", "surrogatepass")
    runs: list[list[int]] = []
    for start in sorted(
        {10 * m.start() - unicodedata.decimal(m[0]) for m in re.finditer(r"\d", text)}
    ):
        if runs and runs[-1][1] == start - 1:
            runs[-1][1] = start + 9  # runs side by side: one range
        else:
            runs.append([start, start + 9])
    return "".join(f"{chr(first)}-{chr(last)}" for first, last in runs)
