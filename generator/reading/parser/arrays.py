"""An array: an :class:`ir.Array` of its ``items``, or, with ``prefixItems``, a tuple where
its length is fixed and else a list of any of its items' types."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...pointer import join
from .. import ir

if TYPE_CHECKING:
    from .schemas import SchemaReader


def read_array(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str, common: dict[str, Any]
) -> ir.Array:
    """An array with the fields ``common`` to every schema. ``unevaluatedItems`` stands for
    ``items`` where that is not given (nothing else evaluates an array's items here)."""
    key = "items" if "items" in node or "unevaluatedItems" not in node else "unevaluatedItems"
    rest = node.get(key, {})
    if "prefixItems" not in node:
        return ir.Array(items=_items(reader, rest, join(pointer, key)), **common)
    at = join(pointer, "prefixItems")
    given = node["prefixItems"]
    if not isinstance(given, list) or not given:
        raise reader.ctx.error(at, "prefixItems must be a non-empty list")
    prefix = [reader.schema(item, join(at, i)) for i, item in enumerate(given)]
    limits = dict(common.get("constraints", ()))
    lowest, highest = limits.get("minItems"), limits.get("maxItems")
    closed = rest is False or (type(highest) is int and highest <= len(prefix))
    if closed and type(lowest) is int and lowest >= len(prefix):
        return ir.Array(items=_union(prefix, at), prefix_items=tuple(prefix), **common)
    variants = list(prefix)
    if not closed:
        variants.append(_items(reader, rest, join(pointer, key)))
    reader.ctx.note(
        at,
        "prefixItems of an array whose length is not fixed read as a list of any of its "
        "items' types; which position holds which type is not checked",
    )
    return ir.Array(items=_union(variants, at), **common)


def _items(reader: SchemaReader, node: Any, pointer: str) -> ir.Schema:
    """The schema of the items (``true`` or absent: any value; ``false``: none, read as any
    value too: a list that must be empty holds nothing to type)."""
    if isinstance(node, bool):
        return ir.AnyValue(pointer=pointer)
    return reader.schema(node, pointer)


def _union(variants: list[ir.Schema], pointer: str) -> ir.Schema:
    """One schema of any of ``variants`` (itself where they are one)."""
    if any(isinstance(v, ir.AnyValue) for v in variants):
        return ir.AnyValue(pointer=pointer)
    distinct = {repr(_unplaced(v)): v for v in variants}
    if len(distinct) == 1:
        return variants[0]
    return ir.Union(kind="anyOf", variants=tuple(distinct.values()), pointer=pointer)


def _unplaced(schema: ir.Schema) -> ir.Schema:
    """A schema without the place it was read from (to compare two)."""
    return replace(schema, pointer="")
