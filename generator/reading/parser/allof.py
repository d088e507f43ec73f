"""``allOf`` (and ``oneOf``/``anyOf`` beside ``properties``): its parts merged into the one
schema they all describe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...errors import SpecError
from ...pointer import join
from .. import ir
from .common import common_fields
from .context import Context
from .keywords import SHAPING
from .objects import read_additional

if TYPE_CHECKING:
    from .schemas import SchemaReader

_YET = " is not supported by the generator yet"


def read_all_of(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str, *, written: bool = True
) -> ir.Schema:
    """``allOf``, and ``oneOf``/``anyOf`` beside ``properties``: the schema every part
    describes.

    A single part with only annotations beside it (a description, ``nullable``) stays that
    part. Otherwise the parts are merged: objects into one object with every part's
    properties (required where a part requires them); a ``oneOf``/``anyOf`` of objects
    beside them into the properties of every variant (required where every variant
    requires them: which variant a value is, is not checked); parts of one primitive type,
    arrays or enums into one schema with every part's constraints. Parts of different types
    are an unsupported construct (no value could match both)."""
    keyword = join(pointer, "allOf") if written else pointer
    parts_node = node.get("allOf", [])
    if not isinstance(parts_node, list) or ("allOf" in node and not parts_node):
        raise reader.ctx.error(join(pointer, "allOf"), "allOf must be a non-empty list")
    nullable = node.get("nullable", False) is True
    parts: list[tuple[ir.Schema, str]] = []
    for i, part in enumerate(parts_node):
        at = join(pointer, "allOf", i) if written else pointer
        if isinstance(part, Mapping) and set(part) <= {"nullable", "description"}:
            nullable = nullable or part.get("nullable") is True
            continue
        parts.append((reader.schema(part, at), at))
    own = {k: v for k, v in node.items() if k not in ("allOf", "oneOf", "anyOf")}
    choice = {k: v for k, v in node.items() if k in ("oneOf", "anyOf", "discriminator")}
    required = set(_required(node))
    for part, _ in parts:
        required |= set(_required_of(reader.resolve_raw(part))) | _raw_required(reader, part)
    shaping = set(own) & SHAPING
    if shaping == {"required"} and set(_required(own)) <= required - set(_required(node)):
        shaping = set()  # it repeats what the parts require
    rest = reader.schema(own, pointer) if shaping else None
    if "oneOf" in choice or "anyOf" in choice:
        union = reader.schema(choice, pointer)
        parts.append((union, pointer))
    if len(parts) == 1 and (rest is None or isinstance(rest, ir.Enum)) and not choice:
        base = rest if rest is not None else parts[0][0]
        common = common_fields(reader.ctx, node, pointer, None, nullable)
        overrides = {k: v for k, v in common.items() if v not in (None, (), False, ir.NO_VALUE)}
        return replace(base, **overrides)
    if rest is not None:
        parts.append((rest, pointer))
    what = "allOf" if "allOf" in node else f"{next(iter(choice))} beside properties"
    return _merge(reader, parts, node, pointer, (keyword, what), nullable, required)


def _raw_required(reader: SchemaReader, schema: ir.Schema) -> set[str]:
    """The names the ``required`` of a schema as written lists (a part such as
    ``required: [a]`` alone has no properties of its own to say so)."""
    if isinstance(schema, ir.Ref):
        return set(_required(reader.refs.raw_component(schema.name)))
    try:
        return set(_required(reader.refs.node_at(schema.pointer, schema.pointer, schema.pointer)))
    except SpecError:
        return set()


def _merge(
    reader: SchemaReader,
    parts: list[tuple[ir.Schema, str]],
    node: Mapping[str, Any],
    pointer: str,
    where: tuple[str, str],
    nullable: bool,
    required: set[str],
) -> ir.Schema:
    """The ``parts`` of an ``allOf`` (each with the place it was read from) as one schema:
    an object of every part's properties, else one value of their one type. ``where`` is the
    keyword's place and its name for an error; ``required``, the names some part requires."""
    keyword, what = where
    loose: dict[str, Any] = {}
    properties: dict[str, ir.Property] = {}
    additional: ir.Schema | bool | None = None
    values: list[tuple[ir.Schema, str]] = []
    for part, at in parts:
        resolved = reader.resolve_raw(part)
        if isinstance(resolved, ir.Opaque):
            raise reader.ctx.unsupported(resolved.at, resolved.reason.removesuffix(_YET))
        if isinstance(resolved, ir.Union) and _all_objects(reader, resolved):
            reader.ctx.note(
                at,
                f"{resolved.kind} of objects beside other parts read as one object with the "
                "properties of every variant; which variant a value is, is not checked",
            )
            found, everywhere = _variant_properties(reader, resolved)
            for prop in found:
                properties.setdefault(prop.name, prop)
            required |= everywhere
            continue
        if isinstance(resolved, ir.Object):
            for prop in resolved.properties:
                kept = properties.get(prop.name)
                if kept is None or isinstance(kept.schema, ir.AnyValue):
                    properties[prop.name] = prop
                if prop.required:
                    required.add(prop.name)
            if resolved.additional_properties is not None and additional is None:
                additional = resolved.additional_properties
            continue
        if isinstance(resolved, ir.Map):
            additional = additional if additional is not None else resolved.values
            continue
        if isinstance(resolved, ir.AnyValue):
            loose.update(resolved.constraints)  # such as ``maxLength`` alone
            continue
        values.append((resolved, at))
    shaped = bool(properties) or additional is not None
    kinds = sorted({_shape(v) for v, _ in values} | ({"object"} if shaped else set()))
    if len(kinds) > 1:
        raise reader.ctx.unsupported(
            keyword, f"{what} of schemas of different types ({' and '.join(kinds)})"
        )
    common = common_fields(reader.ctx, node, pointer, kinds[0] if kinds else None, nullable)
    common["constraints"] = tuple({**loose, **dict(common["constraints"])}.items())
    if values and not shaped:
        return _merge_values(reader.ctx, values, common, keyword)
    if additional is None and "unevaluatedProperties" in node:
        additional = read_additional(reader, node, pointer)
    for name in sorted(required - set(properties)):
        properties[name] = ir.Property(
            name=name, schema=ir.AnyValue(pointer=join(pointer, "required")), required=True
        )
    return ir.Object(
        properties=tuple(replace(p, required=p.name in required) for p in properties.values()),
        additional_properties=additional,
        title=reader.ctx.string(node, "title", pointer),
        **common,
    )


def _merge_values(
    ctx: Context, values: list[tuple[ir.Schema, str]], common: dict[str, Any], keyword: str
) -> ir.Schema:
    """Parts of one type, not objects: the first part (an enum before others), with the
    constraints of every part."""
    enums = [v for v, _ in values if isinstance(v, ir.Enum)]
    base = enums[0] if enums else values[0][0]
    arrays = [v for v, _ in values if isinstance(v, ir.Array)]
    if len({repr(_strip(a.items)) for a in arrays}) > 1:
        raise ctx.unsupported(keyword, "allOf of arrays of different items")
    constraints: dict[str, Any] = {}
    for value, _ in values:
        constraints.update(value.constraints)
    constraints.update(common["constraints"])
    formats = [v.format for v, _ in values if isinstance(v, ir.Primitive) and v.format]
    overrides = {k: v for k, v in common.items() if v not in (None, (), False, ir.NO_VALUE)}
    overrides["constraints"] = tuple(constraints.items())
    if isinstance(base, ir.Primitive) and formats:
        overrides["format"] = formats[0]
    return replace(base, **overrides)


def _variant_properties(
    reader: SchemaReader, union: ir.Union
) -> tuple[list[ir.Property], set[str]]:
    """The properties of every variant of a union of objects, each required where every
    variant requires it."""
    found: dict[str, ir.Property] = {}
    required: list[set[str]] = []
    for variant in union.variants:
        resolved = reader.resolve_raw(variant)
        required.append(set(_required_of(resolved)) | _raw_required(reader, variant))
        if isinstance(resolved, ir.Object):
            for prop in resolved.properties:
                found.setdefault(prop.name, prop)
    everywhere = set.intersection(*required) if required else set()
    return [replace(p, required=p.name in everywhere) for p in found.values()], everywhere


def _required(node: Any) -> list[str]:
    """The names a raw schema's ``required`` lists."""
    names = node.get("required") if isinstance(node, Mapping) else None
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _required_of(schema: ir.Schema) -> list[str]:
    """The names of the properties an object requires."""
    if isinstance(schema, ir.Object):
        return [p.name for p in schema.properties if p.required]
    return []


def _all_objects(reader: SchemaReader, union: ir.Union) -> bool:
    """Whether every variant of a union is an object (or a part of one, such as
    ``required: [...]`` alone)."""
    for variant in union.variants:
        resolved = reader.resolve_raw(variant)
        if not isinstance(resolved, (ir.Object, ir.AnyValue)):
            return False
    return True


def _shape(schema: ir.Schema) -> str:
    """The JSON type a part of an ``allOf`` describes (numbers and integers alike)."""
    if isinstance(schema, (ir.Primitive, ir.Enum)):
        return "number" if schema.type in ("integer", "number") else schema.type
    if isinstance(schema, ir.Array):
        return "array"
    if isinstance(schema, ir.Union):
        return schema.kind
    return "object"


def _strip(schema: ir.Schema) -> ir.Schema:
    """A schema without the place it was read from (to compare two)."""
    return replace(schema, pointer="")
