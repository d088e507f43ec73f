"""``if``/``then``/``else``, ``dependentSchemas`` and ``dependentRequired``: schemas that apply
to some values only. The IR cannot say when, so an object takes the properties they may add
(optional), and the rest widens: each is noted where it is written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...pointer import join
from .. import ir
from .keywords import CONDITIONAL

if TYPE_CHECKING:
    from .schemas import SchemaReader


def without_conditions(node: Mapping[str, Any]) -> dict[str, Any]:
    """``node`` without its conditional keywords (read once, by :func:`with_conditions`)."""
    return {k: v for k, v in node.items() if k not in CONDITIONAL}


def with_conditions(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str, schema: ir.Schema
) -> ir.Schema:
    """``schema`` (read from ``node`` without its conditional keywords) with the properties
    that its ``then``, ``else`` and ``dependentSchemas`` may add, each optional."""
    branches: list[tuple[Any, str]] = [
        (node[k], join(pointer, k)) for k in ("then", "else") if k in node
    ]
    dependent = node.get("dependentSchemas")
    if "dependentSchemas" in node:
        at = join(pointer, "dependentSchemas")
        given = reader.ctx.mapping(dependent, at, "dependentSchemas")
        branches += [(value, join(at, str(name))) for name, value in given.items()]
    added: dict[str, ir.Property] = {}
    for branch, at in branches:
        if not isinstance(branch, Mapping):
            continue
        read = reader.schema(branch, at)
        if isinstance(read, ir.Object):
            for prop in read.properties:
                added.setdefault(prop.name, replace(prop, required=False))
    merged = isinstance(schema, ir.Object) and bool(added)
    if isinstance(schema, ir.Object) and added:
        known = {p.name for p in schema.properties}
        news = tuple(p for name, p in added.items() if name not in known)
        schema = replace(schema, properties=schema.properties + news)
    how = "with the properties they may add, as optional ones" if merged else "as if absent"
    conditions = [k for k in ("if", "then", "else") if k in node]
    if conditions:
        reader.ctx.note(
            join(pointer, conditions[0]),
            f"if/then/else read {how}: which branch a value takes is not checked",
        )
    if "dependentSchemas" in node:
        reader.ctx.note(
            join(pointer, "dependentSchemas"),
            f"dependentSchemas read {how}: that they apply only beside the properties they "
            "name is not checked",
        )
    if "dependentRequired" in node:
        reader.ctx.note(
            join(pointer, "dependentRequired"),
            "dependentRequired not checked: the properties it requires beside others are "
            "optional",
        )
    return schema
