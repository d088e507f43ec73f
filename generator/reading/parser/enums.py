"""An ``enum`` or a ``const``: an :class:`ir.Enum` of strings, integers or booleans."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

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
        raise ctx.unsupported(
            at, "an enum of values that are not all strings, all integers or all booleans"
        )
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
