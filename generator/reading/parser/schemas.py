"""The reader of schemas: each schema to the module of its construct, nested at most
:data:`MAX_DEPTH` deep, and each named schema parsed once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from ...errors import UnsupportedConstructError
from ...pointer import join
from .. import ir
from .allof import read_all_of
from .arrays import read_array
from .common import common_fields
from .conditional import with_conditions, without_conditions
from .context import Context
from .enums import read_enum
from .keywords import CONDITIONAL, KNOWN, UNSUPPORTED
from .objects import read_object
from .references import References
from .refs import read_ref
from .scalars import declared_types, type_variants
from .unions import read_union
from .unsupported import digest

MAX_DEPTH = 100
"""How deep schemas may nest inside one another (``$ref`` s to components do not count)."""
_OBJECT_KEYWORDS = ("properties", "additionalProperties", "unevaluatedProperties")
"""Keywords that make a schema without a ``type`` an object."""


class SchemaReader:
    """Reads the schemas of one document; the constructs' readers read the schemas inside
    theirs through :meth:`schema`."""

    def __init__(self, ctx: Context, refs: References) -> None:
        self.ctx = ctx
        self.refs = refs
        self.depth = 0
        """How deep the schema read now is inside the one that began the reading."""
        self.parsed: dict[str, ir.Schema] = {}
        """The named schemas read, by name."""
        self.parsing: set[str] = set()
        """The names of the schemas being read now (a schema reached again through them is an
        ``allOf`` cycle)."""

    def schema(self, node: Any, pointer: str) -> ir.Schema:
        """The schema ``node`` at ``pointer``; outside the ``strict`` mode, one the generator does
        not support is an :class:`ir.Opaque`."""
        if self.depth >= MAX_DEPTH:
            raise self.ctx.error(pointer, f"schemas are nested more than {MAX_DEPTH} deep here")
        self.depth += 1
        try:
            return self._construct(node, pointer)
        except UnsupportedConstructError as exc:
            if self.ctx.mode == "strict":
                raise
            return ir.Opaque(
                pointer=pointer, at=exc.pointer, reason=exc.message, digest=digest(node)
            )
        finally:
            self.depth -= 1

    def _construct(self, node: Any, pointer: str) -> ir.Schema:
        """The schema ``node``, read by the reader of its construct."""
        if node is True:
            return ir.AnyValue(pointer=pointer)
        node = self.ctx.mapping(node, pointer, "a schema")
        for key in node:
            if key in UNSUPPORTED:
                raise self.ctx.unsupported(join(pointer, key), f"the schema keyword {key!r}")
            if key not in KNOWN and not key.startswith("x-"):
                # JSON Schema ignores unknown keywords; say so, since it is often a misplaced property.
                self.ctx.note(join(pointer, key), f"unknown schema keyword {key!r} ignored")
        if any(key in node for key in CONDITIONAL):
            read = self._construct_plain(without_conditions(node), pointer)
            return with_conditions(self, node, pointer, read)
        return self._construct_plain(node, pointer)

    def _construct_plain(self, node: Mapping[str, Any], pointer: str) -> ir.Schema:
        """The schema ``node``, without conditional keywords, read by its construct's reader."""
        if "$ref" in node:
            return read_ref(self, node, pointer)
        if "allOf" in node or (("oneOf" in node or "anyOf" in node) and "properties" in node):
            return read_all_of(self, node, pointer)
        types, nullable = declared_types(self.ctx, node, pointer)
        common = common_fields(
            self.ctx, node, pointer, types[0] if len(types) == 1 else None, nullable
        )
        if "oneOf" in node or "anyOf" in node:
            return read_union(self, node, pointer, common)
        if "enum" in node or "const" in node:
            return read_enum(self.ctx, node, pointer, types, common)
        if len(types) > 1:
            return ir.Union(
                kind="anyOf", variants=type_variants(self, node, pointer, types), **common
            )
        kind = types[0] if types else None
        if kind == "object" or (kind is None and any(k in node for k in _OBJECT_KEYWORDS)):
            return read_object(self, node, pointer, common)
        if kind == "array" or (kind is None and "prefixItems" in node):
            return read_array(self, node, pointer, common)
        if kind is None:
            return ir.AnyValue(**common)
        return ir.Primitive(
            type=cast(ir.PrimitiveType, kind),
            format=self.ctx.string(node, "format", pointer),
            content_media_type=_annotation(node, "contentMediaType"),
            content_encoding=_annotation(node, "contentEncoding"),
            **common,
        )

    def component(self, name: str) -> ir.Schema:
        """The schema named ``name`` (a component, or a place a ``$ref`` names), parsed once."""
        if name in self.parsed:
            return self.parsed[name]
        place = self.refs.place(name)
        if name in self.parsing:
            raise self.ctx.error(place, f"allOf through the $ref cycle {name!r}")
        self.parsing.add(name)
        depth, self.depth = self.depth, 0
        try:
            result = self.schema(self.refs.node_at(place, place, place), place)
        finally:
            self.depth = depth
            self.parsing.discard(name)
        self.parsed[name] = result
        return result

    def resolve_raw(self, schema: ir.Schema) -> ir.Schema:
        """Resolve a ref while the document is still being parsed (for ``allOf`` merging)."""
        seen: set[str] = set()
        while isinstance(schema, ir.Ref):
            if schema.name in seen:
                raise self.ctx.error(
                    schema.pointer, f"allOf through the $ref cycle {schema.name!r}"
                )
            seen.add(schema.name)
            schema = self.component(schema.name)
        return schema


def _annotation(node: Mapping[str, Any], key: str) -> str | None:
    """A string annotation of a schema (``contentMediaType``); one that is not a string is an
    annotation nothing reads, left out as JSON Schema leaves out what it cannot use."""
    value = node.get(key)
    return value if isinstance(value, str) else None
