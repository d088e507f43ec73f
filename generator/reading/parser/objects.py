"""An object: an :class:`ir.Object` of its properties, or an :class:`ir.Map` where it has only
``additionalProperties``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...pointer import join
from .. import ir

if TYPE_CHECKING:
    from .schemas import SchemaReader


def read_object(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str, common: dict[str, Any]
) -> ir.Schema:
    """An object with the fields ``common`` to every schema; a name it requires but does not
    define is a property of any value."""
    props_node = reader.ctx.mapping(
        node.get("properties", {}), join(pointer, "properties"), "properties"
    )
    required = node.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise reader.ctx.error(
            join(pointer, "required"), "required must be a list of property names"
        )
    for i, name in enumerate(required):
        if props_node and name not in props_node:
            # JSON Schema allows it (the property may be of any value); it is often a slip
            reader.ctx.note(
                join(pointer, "required", i),
                f"required property {name!r} is not defined; read as a property of any value",
            )
    additional = read_additional(reader, node, pointer)
    properties = tuple(
        ir.Property(
            name=str(name),
            schema=reader.schema(value, join(pointer, "properties", str(name))),
            required=name in required,
        )
        for name, value in props_node.items()
    )
    properties += tuple(
        ir.Property(
            name=name,
            schema=ir.AnyValue(pointer=join(pointer, "required", i)),
            required=True,
        )
        for i, name in enumerate(required)
        if props_node and name not in props_node
    )
    if not properties and not isinstance(additional, (bool, ir.AnyValue, type(None))):
        return ir.Map(values=additional, **common)
    return ir.Object(
        properties=properties,
        additional_properties=additional,
        title=reader.ctx.string(node, "title", pointer),
        **common,
    )


def read_additional(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str
) -> ir.Schema | bool | None:
    """What an object's ``additionalProperties`` allows beside its properties, else its
    ``unevaluatedProperties`` (the same here: the IR merges what would evaluate them), else
    ``None`` (not said)."""
    for key in ("additionalProperties", "unevaluatedProperties"):
        if key in node:
            extra = node[key]
            return extra if isinstance(extra, bool) else reader.schema(extra, join(pointer, key))
    return None
