"""``oneOf`` and ``anyOf``: an :class:`ir.Union` of its variants, with its discriminator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from ...pointer import join
from .. import ir

if TYPE_CHECKING:
    from .schemas import SchemaReader


def read_union(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str, common: dict[str, Any]
) -> ir.Union:
    """A ``oneOf`` or an ``anyOf`` with the fields ``common`` to every schema; a ``null``
    variant makes the union nullable instead."""
    kind: Literal["oneOf", "anyOf"] = "oneOf" if "oneOf" in node else "anyOf"
    if "oneOf" in node and "anyOf" in node:
        raise reader.ctx.unsupported(pointer, "oneOf together with anyOf")
    variants_node = node[kind]
    if not isinstance(variants_node, list) or not variants_node:
        raise reader.ctx.error(join(pointer, kind), f"{kind} must be a non-empty list")
    variants = [reader.schema(v, join(pointer, kind, i)) for i, v in enumerate(variants_node)]
    nulls = [v for v in variants if isinstance(v, ir.Primitive) and v.type == "null"]
    discriminator = None
    mapping: list[tuple[str, str]] = []
    if "discriminator" in node:
        at = join(pointer, "discriminator")
        disc = reader.ctx.mapping(node["discriminator"], at, "a discriminator")
        discriminator = reader.ctx.string(disc, "propertyName", at)
        given = reader.ctx.mapping(disc.get("mapping", {}), join(at, "mapping"), "a mapping")
        for value, target in given.items():
            if not isinstance(target, str):
                raise reader.ctx.error(join(at, "mapping", str(value)), "must be a $ref string")
            name = target
            if target.startswith("#") or ".yaml" in target or ".json" in target:
                here = join(at, "mapping", str(value))
                name = reader.refs.schema_name(reader.refs.target(target, here), here, target)
            mapping.append((str(value), name))
    if nulls:
        common = {**common, "nullable": True}
    return ir.Union(
        kind=kind,
        variants=tuple(v for v in variants if v not in nulls),
        discriminator=discriminator,
        mapping=tuple(mapping),
        **common,
    )
