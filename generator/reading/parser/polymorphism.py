"""A base object with a ``discriminator`` whose subtypes ``allOf`` it: wherever the base is
referred to, a value may be any of its subtypes, so the reference reads as the union of the
subtypes and the base, discriminated by the base's property."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any

from ...pointer import join
from .. import ir
from .references import References

if TYPE_CHECKING:
    from .schemas import SchemaReader


def with_subtypes(
    reader: SchemaReader, schemas: dict[str, ir.Schema], operations: list[ir.Operation]
) -> tuple[dict[str, ir.Schema], list[ir.Operation]]:
    """The schemas and operations with each reference to a discriminated base object read as
    the union of its subtypes (those its ``discriminator.mapping`` names and those that
    ``allOf`` it) and itself."""
    unions = _bases(reader, schemas)
    if not unions:
        return schemas, operations

    def widened(schema: ir.Schema) -> ir.Schema:
        return _rewritten(schema, unions)

    kept = {name: widened(schema) for name, schema in schemas.items()}
    return kept, [_operation(op, widened) for op in operations]


def _bases(reader: SchemaReader, schemas: Mapping[str, ir.Schema]) -> dict[str, ir.Union]:
    """The union each discriminated base object stands for, by the base's name: its subtypes
    are the schemas that ``allOf`` it, directly or through another subtype."""
    refs = reader.refs
    parents = _ancestors({name: _parents(refs, name) for name in schemas})
    found: dict[str, ir.Union] = {}
    for base, schema in schemas.items():
        raw = _raw(refs, base)
        if not isinstance(schema, ir.Object) or "discriminator" not in raw:
            continue
        if "oneOf" in raw or "anyOf" in raw:
            continue  # the union's own discriminator: read with it
        at = join(schema.pointer, "discriminator")
        given = raw["discriminator"]
        if not isinstance(given, Mapping) or not isinstance(given.get("propertyName"), str):
            continue  # the parser's reading of unions says what is wrong with it
        mapping: list[tuple[str, str]] = []
        listed = given.get("mapping", {})
        for value, target in (listed.items() if isinstance(listed, Mapping) else ()):
            if isinstance(target, str):
                here = join(at, "mapping", str(value))
                name = refs.schema_name(refs.target(target, here), here, target)
                if name == base or (name in schemas and base in parents.get(name, ())):
                    mapping.append((str(value), name))
        subtypes = [name for _, name in mapping if name != base]
        subtypes += [n for n in schemas if base in parents[n] and n not in subtypes]
        if not subtypes:
            continue
        variants = tuple(ir.Ref(pointer=at, name=n) for n in dict.fromkeys([*subtypes, base]))
        found[base] = ir.Union(
            pointer=at,
            kind="oneOf",
            variants=variants,
            discriminator=given["propertyName"],
            mapping=tuple(mapping),
        )
        reader.ctx.note(
            at,
            f"a value of {base} may be any of its subtypes ({', '.join(subtypes)}): where it "
            "is referred to, it is read as their union and its own",
        )
    return found


def _ancestors(parents: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The schemas each schema ``allOf`` s, directly or through others."""
    found: dict[str, set[str]] = {}
    for name in parents:
        seen: set[str] = set()
        todo = list(parents[name])
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(parents.get(current, ()))
        found[name] = seen
    return found


def _raw(refs: References, name: str) -> Mapping[str, Any]:
    raw = refs.raw_component(name)
    return raw if isinstance(raw, Mapping) else {}


def _parents(refs: References, name: str) -> set[str]:
    """The schemas the ``allOf`` of the schema ``name`` refers to directly."""
    raw = _raw(refs, name)
    parts = raw.get("allOf")
    found: set[str] = set()
    for i, part in enumerate(parts if isinstance(parts, list) else ()):
        if isinstance(part, Mapping) and isinstance(part.get("$ref"), str):
            here = join(refs.place(name), "allOf", i, "$ref")
            found.add(refs.schema_name(refs.target(part["$ref"], here), here, part["$ref"]))
    return found


_COMMON = tuple(f.name for f in fields(ir.SchemaBase))


def _rewritten(schema: ir.Schema, unions: Mapping[str, ir.Union]) -> ir.Schema:
    """``schema`` with each reference to a base of ``unions`` replaced by its union (with what
    was written beside the reference)."""
    if isinstance(schema, ir.Ref) and schema.name in unions:
        return replace(unions[schema.name], **{k: getattr(schema, k) for k in _COMMON})
    if isinstance(schema, ir.Object):
        extra = schema.additional_properties
        return replace(
            schema,
            properties=tuple(
                replace(p, schema=_rewritten(p.schema, unions)) for p in schema.properties
            ),
            additional_properties=(
                extra if isinstance(extra, bool) or extra is None else _rewritten(extra, unions)
            ),
        )
    if isinstance(schema, ir.Array):
        return replace(
            schema,
            items=_rewritten(schema.items, unions),
            prefix_items=tuple(_rewritten(p, unions) for p in schema.prefix_items),
        )
    if isinstance(schema, ir.Map):
        return replace(schema, values=_rewritten(schema.values, unions))
    if isinstance(schema, ir.Union):
        return replace(schema, variants=tuple(_rewritten(v, unions) for v in schema.variants))
    return schema


def _operation(op: ir.Operation, widened: Any) -> ir.Operation:
    body = op.request_body
    return replace(
        op,
        parameters=tuple(replace(p, schema=widened(p.schema)) for p in op.parameters),
        request_body=(
            replace(body, schema=widened(body.schema))
            if body is not None and body.schema is not None
            else body
        ),
        responses=tuple(
            replace(r, schema=widened(r.schema)) if r.schema is not None else r
            for r in op.responses
        ),
    )
