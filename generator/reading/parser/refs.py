"""A schema that is a ``$ref``: an :class:`ir.Ref` to the schema it names, or, with keywords
beside it that change what a value may be, an ``allOf`` of the two."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...pointer import join
from .. import ir
from .allof import read_all_of
from .common import common_fields
from .keywords import BESIDE_REF, OPEN_OR_CLOSED

if TYPE_CHECKING:
    from .schemas import SchemaReader


def read_ref(reader: SchemaReader, node: Mapping[str, Any], pointer: str) -> ir.Schema:
    """A ``$ref``: a :class:`ir.Ref` to the schema it names, with what is written beside it.
    Keywords beside it that change what a value may be (``properties``, ``items``, ...)
    make it an ``allOf`` of the target and the rest, as OpenAPI 3.1 reads them."""
    ref = node["$ref"]
    at = join(pointer, "$ref")
    place = reader.refs.target(ref, at)
    name = reader.refs.schema_name(place, at, ref)
    beside = sorted(
        str(k)
        for k in node
        if k not in BESIDE_REF
        and not str(k).startswith("x-")
        and not (k in OPEN_OR_CLOSED and isinstance(node[k], bool))
    )
    if beside:
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return read_all_of(reader, {**rest, "allOf": [{"$ref": ref}]}, pointer, written=False)
    target = reader.refs.node_at(place, at, ref)
    kind = target.get("type") if isinstance(target, Mapping) else None
    nullable = node.get("nullable", False) is True
    return ir.Ref(
        name=name,
        **common_fields(
            reader.ctx, node, pointer, kind if isinstance(kind, str) else None, nullable
        ),
    )
