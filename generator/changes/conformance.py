"""Whether a JSON value conforms to a schema of a revision, checked as the revision's generated
models check it (with the runtime's own readers, so that a refusal's words are the ones the
models and the reference give), and the values at the edges of what a schema allows, to try on
another revision's schema.

A request is read strictly (enums closed, bounds, lengths and patterns checked, required fields
required), a response tolerantly (an enum keeps a value it does not know; no bounds), as the
generated request and response models read them. Fields a schema does not name are passed over,
as the reference server drops them before reading a request.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from together_rl_runtime import _model
from together_rl_runtime._exceptions import ValidationError

from ..reading import ir
from ..reading.values import constraints_of

Reader = Callable[[object, str], Any]

_LONGEST_PROBE = 4096
"""The longest string a probe builds (a length bound above it is not probed)."""


def refusal(
    doc: ir.Document, schema: ir.Schema, value: object, *, strict: bool = True
) -> tuple[str, str] | None:
    """Where and why ``schema`` of ``doc`` refuses ``value`` (a JSON path and the problem, as
    the models word it), or ``None`` where it accepts it."""
    try:
        _reader(doc, schema, strict)(value, "")
    except ValidationError as exc:
        return exc.path, exc.problem
    return None


def fit(doc: ir.Document, schema: ir.Schema, value: object) -> tuple[dict[str, str], list[str]]:
    """How a response model of ``schema`` reads ``value``: its ``problems`` (by field, the
    body's own as ``(body)``) and the fields it keeps in ``extra``."""
    resolved = doc.resolve(schema)
    if not isinstance(resolved, ir.Object) or not resolved.properties:
        found = refusal(doc, schema, value, strict=False)
        return ({"(body)": found[1]} if found else {}), []
    if not isinstance(value, Mapping):
        return {"(body)": "expected an object"}, []
    problems = {}
    for prop in resolved.properties:
        if prop.name not in value:
            if prop.required:
                problems[prop.name] = "is required"
            continue
        found = refusal(doc, prop.schema, value[prop.name], strict=False)
        if found is not None:
            problems[prop.name] = found[1]
    extra = [key for key in value if resolved.property(key) is None]
    return problems, extra


def _reader(doc: ir.Document, schema: ir.Schema, strict: bool) -> Reader:
    """A reader of JSON values as the generated models read ``schema``."""
    resolved = doc.resolve(schema)
    read = _plain(doc, resolved, strict)
    if strict:
        limits = dict(constraints_of(resolved) + constraints_of(schema))
        if limits:
            read = _model.constrained(read, **limits)
    if schema.nullable or resolved.nullable:
        read = _model.nullable(read)
    return read


def _plain(doc: ir.Document, schema: ir.Schema, strict: bool) -> Reader:
    if isinstance(schema, ir.Primitive):
        if schema.binary:
            return _model.check_file
        checks: dict[str, Reader] = {
            "string": _model.check_string,
            "number": _model.check_number,
            "integer": _model.check_integer,
            "boolean": _model.check_boolean,
            "null": _model.check_null,
        }
        return checks[schema.type]
    if isinstance(schema, ir.Enum):
        if schema.type == "boolean":
            return _model.constrained(_model.check_boolean, values=schema.values)
        members = {f"V{i}": v for i, v in enumerate(schema.values)}
        base: Any = enum.IntEnum if schema.type == "integer" else _model.StrEnum
        kind: type[enum.Enum] = base("Values", members)  # the functional API
        return _model.strict_enum(kind) if strict else _model.open_enum(kind)
    if isinstance(schema, ir.Object):
        if schema.properties or schema.additional_properties is False:
            return _object(doc, schema, strict)
        return _model.dict_of(_model.check_any)
    if isinstance(schema, ir.Array):
        return _model.list_of(_reader(doc, schema.items, strict))
    if isinstance(schema, ir.Map):
        return _model.dict_of(_reader(doc, schema.values, strict))
    if isinstance(schema, ir.Union):
        return _model.one_of(*(_lazy(doc, v, strict) for v in schema.variants))
    return _model.check_any


def _lazy(doc: ir.Document, schema: ir.Schema, strict: bool) -> Reader:
    """A reader made when it is first used (a recursive schema is followed only as deep as a
    value goes)."""

    def read(value: object, path: str) -> Any:
        return _reader(doc, schema, strict)(value, path)

    return read


def _object(doc: ir.Document, schema: ir.Object, strict: bool) -> Reader:
    def read(value: object, path: str) -> Any:
        if not isinstance(value, Mapping):
            raise ValidationError(path, "expected an object", value)
        if not strict:  # a response model reads any object, noting what is wrong in `problems`
            return value
        for prop in schema.properties:
            where = _model.at(path, prop.name)
            if prop.name in value:
                _lazy(doc, prop.schema, strict)(value[prop.name], where)
            elif prop.required:
                raise ValidationError(where, "is required")
        return value

    return read


# -- values at the edges of a schema ---------------------------------------------------------------


def edges(
    doc: ir.Document, schema: ir.Schema, others: Mapping[str, Any] | None = None
) -> list[Any]:
    """Values of the kinds ``schema`` allows, at its edges and at those of ``others`` (the
    :func:`bounds` of another revision's schema of the same place): each enum value, a number
    that is not an integer, numbers and string lengths beside each bound, null. Not every one
    is allowed by ``schema``: filter them with :func:`refusal`."""
    found: list[Any] = []
    for value in _edges(doc, schema, [bounds(doc, schema), dict(others or {})]):
        if not any(type(value) is type(seen) and value == seen for seen in found):
            found.append(value)
    return found


def bounds(doc: ir.Document, schema: ir.Schema) -> dict[str, Any]:
    """The bounds and lengths of a schema (and of its variants), as ``constrained`` takes them."""
    resolved = doc.resolve(schema)
    limits = dict(constraints_of(resolved) + constraints_of(schema))
    if isinstance(resolved, ir.Union):
        for variant in resolved.variants:
            if not isinstance(doc.resolve(variant), ir.Union):
                limits = {**bounds(doc, variant), **limits}
    return limits


_BOUNDS = ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum")
_LENGTHS = ("min_length", "max_length")


def _edges(doc: ir.Document, schema: ir.Schema, limits: list[dict[str, Any]]) -> Iterator[Any]:
    resolved = doc.resolve(schema)
    if schema.nullable or resolved.nullable:
        yield None
    if isinstance(resolved, ir.Enum):
        yield from resolved.values
    elif isinstance(resolved, ir.Union):
        for variant in resolved.variants:
            if not isinstance(doc.resolve(variant), ir.Union):  # one level of variants
                yield from _edges(doc, variant, limits)
    elif isinstance(resolved, ir.Primitive) and resolved.type in ("number", "integer"):
        found = [
            b
            for given in limits
            for word in _BOUNDS
            if isinstance(b := given.get(word), (int, float))
            and not isinstance(b, bool)
            and math.isfinite(b)
        ]
        points = [0.0, 1.0, -1.0] + [float(b) + step for b in found for step in (0, -1, 1)]
        if resolved.type == "integer":
            yield from (int(p) for p in points if p.is_integer())
        else:
            yield from points
            yield from (p + 0.5 for p in points)
    elif isinstance(resolved, ir.Primitive) and resolved.type == "string":
        yield "text"
        for given in limits:
            for word in _LENGTHS:
                bound = given.get(word)
                if isinstance(bound, int) and 0 < bound < _LONGEST_PROBE:
                    yield from ("x" * n for n in (bound - 1, bound, bound + 1))
    elif isinstance(resolved, ir.Primitive) and resolved.type == "boolean":
        yield from (True, False)
