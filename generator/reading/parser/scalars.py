"""The declared ``type`` of a schema: the primitives (string, number, integer, boolean, null),
objects and arrays it lists, and a list of several read as an ``anyOf`` of one variant each (a
schema of one type is built by :mod:`.schemas` or the module of its construct)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from ...pointer import join
from .. import ir
from .arrays import read_array
from .context import Context
from .keywords import PRIMITIVES
from .objects import read_object

if TYPE_CHECKING:
    from .schemas import SchemaReader


def declared_types(ctx: Context, node: Mapping[str, Any], pointer: str) -> tuple[list[str], bool]:
    """The declared types other than ``null``, and whether the value may be null."""
    declared = node.get("type")
    listed = declared if isinstance(declared, list) else [] if declared is None else [declared]
    for t in listed:
        if t not in (*PRIMITIVES, "object", "array"):
            raise ctx.error(join(pointer, "type"), f"unknown type {t!r}")
    nullable = node.get("nullable", False) is True or "null" in listed
    types = [t for t in listed if t != "null"]
    if listed and not types:  # ``type: "null"`` alone
        return ["null"], False
    return types, nullable


def type_variants(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str, types: list[str]
) -> tuple[ir.Schema, ...]:
    """The variants of a list of types: each primitive, and an object or an array with the
    keywords of its kind written beside the list."""
    result: list[ir.Schema] = []
    for t in types:
        if t == "object":
            result.append(read_object(reader, node, pointer, {"pointer": pointer}))
        elif t == "array":
            result.append(read_array(reader, node, pointer, {"pointer": pointer}))
        else:
            result.append(ir.Primitive(pointer=pointer, type=cast(ir.PrimitiveType, t)))
    return tuple(result)
