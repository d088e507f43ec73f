"""An ``enum`` or a ``const``: an :class:`ir.Enum` of strings, integers or booleans."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, cast

from ...pointer import join
from .. import ir
from .context import Context


def read_enum(
    ctx: Context, node: Mapping[str, Any], pointer: str, types: list[str], common: dict[str, Any]
) -> ir.Schema:
    """An ``enum`` (or a ``const``, an enum of one value) with the fields ``common`` to every
    schema; ``null`` among the values makes it nullable, and ``[null]`` alone is the null type."""
    at = join(pointer, "enum" if "enum" in node else "const")
    values = node["enum"] if "enum" in node else [node["const"]]
    if not isinstance(values, list) or not values:
        raise ctx.error(at, "enum must be a non-empty list")
    if None in values:
        common = {**common, "nullable": True}
        values = [v for v in values if v is not None]
    if not values:  # ``enum: [null]``: the value null alone
        return ir.Primitive(type="null", **{**common, "nullable": False})
    kind: Literal["string", "integer", "boolean"]
    if types in ([], ["string"]) and all(isinstance(v, str) for v in values):
        kind = "string"
    elif types in ([], ["integer"], ["number"]) and all(type(v) is int for v in values):
        kind = "integer"
    elif types in ([], ["boolean"]) and all(isinstance(v, bool) for v in values):
        kind = "boolean"
    else:
        return _widened(ctx, values, types, at, common)
    unique = list(dict.fromkeys(values))
    if len(unique) != len(values):
        repeated = sorted({repr(v) for v in values if values.count(v) > 1})
        ctx.note(at, f"the enum values {', '.join(repeated)} are listed more than once; read once")
    default = common.get("default", ir.NO_VALUE)
    if default not in (ir.NO_VALUE, None) and default not in unique:
        ctx.note(
            join(pointer, "default"),
            f"default {default!r} is not one of the enum values; ignored",
        )
        common = {**common, "default": ir.NO_VALUE}
    return ir.Enum(type=kind, values=tuple(unique), **common)


def _widened(
    ctx: Context, values: list[Any], types: list[str], at: str, common: dict[str, Any]
) -> ir.Schema:
    """An enum (or a ``const``) of values that are not all of one kind the IR enumerates
    (numbers that are not integers, objects, lists, kinds mixed): an enum of each kind's values
    where the IR enumerates that kind (strings, integers, booleans), else the kind's type (any
    value for objects and lists), whose values are then not checked; several kinds are a
    union of those."""
    kinds: dict[str, list[Any]] = {}
    for value in values:
        if not _fits(value, types):
            raise ctx.unsupported(at, "an enum of values that are not of its declared type")
        kinds.setdefault(_kind(value), []).append(value)
    if "number" in kinds:  # integers are numbers too: one type for both
        kinds["number"] = kinds.pop("integer", []) + kinds["number"]
    ctx.note(
        at,
        f"{at.rsplit('/', 1)[-1]} of {' and '.join(sorted(_NAMES[k] for k in kinds))} read as its "
        "values' types; values that are not strings, integers or booleans are not checked",
    )
    if "any" in kinds:
        return ir.AnyValue(**common)
    variants: list[ir.Schema] = []
    for kind, given in kinds.items():
        fields = common if len(kinds) == 1 else {"pointer": at}
        if kind == "number":
            variants.append(ir.Primitive(type="number", **fields))
        else:
            kind_of = cast(Literal["string", "integer", "boolean"], kind)
            variants.append(ir.Enum(type=kind_of, values=tuple(dict.fromkeys(given)), **fields))
    if len(variants) == 1:
        return variants[0]
    return ir.Union(kind="anyOf", variants=tuple(variants), **common)


_NAMES = {
    "string": "strings",
    "integer": "integers",
    "boolean": "booleans",
    "number": "numbers",
    "any": "objects or lists",
}


def _fits(value: Any, types: list[str]) -> bool:
    """Whether an enum's value is of one of its declared types (any, where none is declared)."""
    kind = _kind(value)
    if kind == "any":
        kind = "object" if isinstance(value, Mapping) else "array"
    return not types or kind in types or (kind == "integer" and "number" in types)


def _kind(value: Any) -> str:
    """The JSON type of an enum's value: ``any`` for objects and lists."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string" if isinstance(value, str) else "any"
