"""What every schema carries, whatever its type: a description, ``nullable``, ``deprecated``,
its validation keywords (constraints), and a ``default`` and an ``example`` read as its type."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...pointer import join
from .coercion import coerce_value
from .context import Context
from .keywords import CONSTRAINTS


def common_fields(
    ctx: Context, node: Mapping[str, Any], pointer: str, kind: str | None, nullable: bool
) -> dict[str, Any]:
    """The fields of every IR schema, read from ``node``: its default and example are read as
    the declared type ``kind``, and may be null where it is ``nullable``."""
    fields: dict[str, Any] = {
        "pointer": pointer,
        "description": ctx.string(node, "description", pointer),
        "nullable": nullable,
        "deprecated": ctx.boolean(node, "deprecated", pointer),
        "constraints": tuple(
            (k, node[k]) for k in CONSTRAINTS if k in node and _checkable(ctx, node, k, pointer)
        ),
    }
    examples = node.get("examples")
    if "example" not in node and isinstance(examples, list) and examples:
        # JSON Schema's ``examples`` (OpenAPI 3.1): the first stands for the schema's example
        node = {**node, "example": examples[0]}
    for keyword in ("default", "example"):
        if keyword in node:
            fields[keyword] = _coerce(
                ctx,
                node[keyword],
                kind,
                nullable,
                join(pointer, keyword),
                strict=keyword == "default",
            )
    return fields


def _checkable(ctx: Context, node: Mapping[str, Any], keyword: str, pointer: str) -> bool:
    """Whether a validation keyword can be checked by the client: a ``pattern`` must be a
    regular expression Python reads (JSON Schema's are ECMA 262's); one that is not is
    noted and left to the server."""
    if keyword != "pattern":
        return True
    try:
        re.compile(node[keyword])
    except (re.error, TypeError) as exc:
        ctx.note(
            join(pointer, keyword),
            f"the pattern {node[keyword]!r} is not one Python reads ({exc}); not checked",
        )
        return False
    return True


def _coerce(
    ctx: Context,
    value: Any,
    kind: str | None,
    nullable: bool,
    pointer: str,
    *,
    strict: bool = False,
) -> Any:
    """Return ``value`` as the declared type, noting any conversion; an impossible one drops it.
    ``strict`` (a default): a value that is not of the type at all is dropped too, also for
    strings, objects and arrays."""
    if value is None and nullable:
        return value
    result, note = coerce_value(value, kind, strict=strict)
    if note is not None:
        ctx.note(pointer, note)
    return result
