"""A ``default`` or ``example`` read as a value of its schema's declared type."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .. import ir

_CONTAINERS: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "object": Mapping,
    "array": list,
}


def coerce_value(value: Any, kind: str | None, *, strict: bool = False) -> tuple[Any, str | None]:
    """``value`` (a ``default`` or ``example``) as a value of the declared ``kind``, and a note
    where it was changed: a string read as the number or boolean it spells, or, where it cannot
    be read as one, :data:`ir.NO_VALUE` (dropped). Other kinds keep the value as it is, but
    ``strict``ly (a default) a value of another type is dropped too (``true`` on a string)."""
    if kind in _CONTAINERS:
        if not strict or isinstance(value, _CONTAINERS[kind]):
            return value, None
        return ir.NO_VALUE, f"{value!r} is not a valid {kind}; ignored"
    if kind not in ("number", "integer", "boolean"):
        return value, None
    if kind == "boolean":
        if isinstance(value, bool):
            return value, None
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true", f"string {value!r} read as the boolean {value.lower()}"
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if kind == "number" or isinstance(value, int) or value.is_integer():
            return (int(value) if kind == "integer" else value), None
    elif isinstance(value, str):
        try:
            number = float(value) if kind == "number" else int(value)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number, f"string {value!r} read as the {kind} {number!r}"
    return ir.NO_VALUE, f"{value!r} is not a valid {kind}; ignored"
