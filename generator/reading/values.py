"""What a schema's values may be: the constraints it declares, as the runtime's readers check
them, and small valid values (for the examples in generated READMEs and the compatibility
matrix's requests)."""

from __future__ import annotations

import re
from typing import Any

from ..errors import UnsupportedConstructError
from ..pointer import join
from . import ir

# JSON Schema's validation keywords, by the name ``constrained`` takes them.
_CONSTRAINTS = {
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive_minimum",
    "exclusiveMaximum": "exclusive_maximum",
    "multipleOf": "multiple_of",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minItems": "min_items",
    "maxItems": "max_items",
    "uniqueItems": "unique_items",
    "minProperties": "min_properties",
    "maxProperties": "max_properties",
}


_DATES = {"date-time": "2026-12-02T08:00:00Z", "date": "2026-12-02"}
"""The samples of the string formats the models read as dates."""


def constraints_of(schema: ir.Schema) -> tuple[tuple[str, Any], ...]:
    """A schema's constraints as ``constrained`` takes them. OpenAPI 3.0 writes an exclusive bound
    as ``exclusiveMinimum: true`` beside ``minimum``; 3.1 as the number itself."""
    given = dict(schema.constraints)
    result: dict[str, Any] = {}
    for word, name in _CONSTRAINTS.items():
        if word not in given:
            continue
        value = given[word]
        if word in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
            bound = "minimum" if word == "exclusiveMinimum" else "maximum"
            if value and bound in given:
                result.pop(bound, None)
                result[name] = given[bound]
            continue
        if word == "uniqueItems" and value is not True:
            continue
        if word == "pattern":
            try:
                re.compile(value)
            except (re.error, TypeError) as exc:
                raise UnsupportedConstructError(
                    join(schema.pointer, "pattern"), f"the pattern {value!r} ({exc})"
                ) from None
        result[name] = value
    return tuple(result.items())


def sample(
    doc: ir.Document, schema: ir.Schema, *, optional_object: bool = False, full: bool = False
) -> Any:
    """A small value that matches ``schema``: the schema's example where it gives one, else a
    value of its type. Objects get their required properties; with ``optional_object`` also their
    first optional property that is itself an object (to show nesting); with ``full`` every
    property (recursive schemas are followed once). A schema met again inside itself (a list of
    itself) is the smallest value of its kind there: an empty list or object."""
    if full:
        return _full(doc, schema, frozenset())
    return _sample(doc, schema, optional_object, frozenset())


def _sample(
    doc: ir.Document, schema: ir.Schema, optional_object: bool, seen: frozenset[str]
) -> Any:
    if schema.example is not ir.NO_VALUE:
        return schema.example
    resolved = doc.resolve(schema)
    if isinstance(schema, ir.Ref):
        if schema.name in seen:
            return [] if isinstance(resolved, ir.Array) else {}
        seen = seen | {schema.name}
    if resolved.example is not ir.NO_VALUE:
        return resolved.example
    if isinstance(resolved, ir.Enum):
        named = [v for v in resolved.values if not str(v).endswith("UNSPECIFIED")]
        return (named or list(resolved.values))[0]
    if isinstance(resolved, ir.Primitive):
        if resolved.type in ("integer", "number"):
            return _within_bounds(resolved, 1 if resolved.type == "integer" else 0.5)
        if resolved.type == "string" and resolved.format in _DATES:
            return _DATES[resolved.format]
        return {"string": "text", "boolean": True, "null": None}[resolved.type]
    if isinstance(resolved, ir.Array):
        return [
            _sample(doc, item, False, seen) for item in resolved.prefix_items or (resolved.items,)
        ]
    if isinstance(resolved, ir.Union):  # a variant that does not lead back where it started
        fresh = [v for v in resolved.variants if not (isinstance(v, ir.Ref) and v.name in seen)]
        return _sample(doc, (fresh or list(resolved.variants))[0], False, seen)
    if isinstance(resolved, ir.Object):
        value = {
            p.name: _sample(doc, p.schema, False, seen) for p in resolved.properties if p.required
        }
        if optional_object:
            nested = next(
                (
                    p
                    for p in resolved.properties
                    if not p.required and isinstance(doc.resolve(p.schema), ir.Object)
                ),
                None,
            )
            if nested is not None:
                inner = doc.resolve(nested.schema)
                assert isinstance(inner, ir.Object)
                first = inner.properties[0] if inner.properties else None
                value[nested.name] = (
                    {first.name: _sample(doc, first.schema, False, seen)} if first else {}
                )
        return value
    return {}


def _full(doc: ir.Document, schema: ir.Schema, seen: frozenset[str]) -> Any:
    resolved = doc.resolve(schema)
    if isinstance(resolved, ir.Object):
        if isinstance(schema, ir.Ref):
            seen = seen | {schema.name}
        return {
            p.name: _full(doc, p.schema, seen)
            for p in resolved.properties
            if p.required or not (isinstance(p.schema, ir.Ref) and p.schema.name in seen)
        }
    if isinstance(resolved, ir.Array):
        if isinstance(schema, ir.Ref):
            if schema.name in seen:
                return []
            seen = seen | {schema.name}
        return [_full(doc, item, seen) for item in resolved.prefix_items or (resolved.items,)]
    return _sample(doc, schema, False, frozenset())


def _within_bounds(schema: ir.Primitive, value: float) -> float:
    """``value``, or where the schema's bounds exclude it, a bound's value that they allow
    (the middle of two exclusive ones); ``value`` where none fits."""
    bounds = dict(schema.constraints)
    low, high = bounds.get("minimum"), bounds.get("maximum")
    above, below = bounds.get("exclusiveMinimum"), bounds.get("exclusiveMaximum")

    def fits(v: float) -> bool:
        return (
            (low is None or v >= low)
            and (high is None or v <= high)
            and (above is None or v > above)
            and (below is None or v < below)
        )

    candidates = [value, low, high]
    if above is not None:
        candidates.append((above + below) / 2 if below is not None else above + 1)
    if below is not None:
        candidates.append(below - 1)
    if schema.type == "integer":
        candidates = [int(c) for c in candidates if c is not None and float(c).is_integer()]
    return next((c for c in candidates if c is not None and fits(c)), value)
