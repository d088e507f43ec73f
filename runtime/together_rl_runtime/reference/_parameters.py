"""A step's query parameters and headers, held to the rules its revision gives them.

A revision's package settles the rule of every query parameter and header its served operation
declares (``ReferenceRevision.parameters``): checked with no local effect, the idempotency key,
or refused (one the project's table gives no role). A request that carries a refused one, or one
whose value its schema does not take, fails with INVALID_INPUT naming the parameter, so that a
parameter the reference does not implement (a ``dry_run``) never lets a real step through. What
the revision does not declare is not looked at, as the API's gateway ignores what it does not
know.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from .._exceptions import ValidationError
from ..settings import IdempotencyKey, Parameter, Refused

__all__ = ["check_parameters", "idempotency_headers"]

Query = Mapping[str, Sequence[str]]
"""A request's query: each name with its values, in the order they came."""


def check_parameters(
    parameters: Sequence[Parameter], query: Query, headers: Mapping[str, str]
) -> None:
    """Raise :class:`ValidationError` (its path ``query parameter NAME`` or ``header NAME``) for
    the first declared parameter that the request carries and the reference refuses, or whose
    value its schema does not take. ``headers`` are matched without case."""
    lowered = {name.lower(): value for name, value in headers.items()}
    for parameter in parameters:
        if parameter.location == "query":
            values = list(query.get(parameter.name, ()))
            where = f"query parameter {parameter.name}"
        else:
            header = lowered.get(parameter.name.lower())
            values = [] if header is None else [header]
            where = f"header {parameter.name}"
        if not values:
            continue
        if isinstance(parameter.rule, Refused):
            raise ValidationError(where, parameter.rule.problem, values[0])
        if len(values) > 1 and parameter.type != "any":
            raise ValidationError(where, f"is given {len(values)} times; give it once", values)
        _check_value(parameter, values[0], where)


def idempotency_headers(parameters: Sequence[Parameter]) -> tuple[str, ...]:
    """The headers (lower case) that the revision's rules say carry the idempotency key."""
    return tuple(
        p.name.lower()
        for p in parameters
        if p.location == "header" and isinstance(p.rule, IdempotencyKey)
    )


def _check_value(parameter: Parameter, text: str, where: str) -> None:
    """Check ``text`` against the parameter's type and enum, read as the clients write it."""
    if parameter.type == "any":
        return
    value: object = text
    if parameter.type != "string":
        value = _scalar(parameter.type, text)
        if value is None:
            raise ValidationError(where, f"expected {_article(parameter.type)}", text)
    if parameter.values is not None and value not in parameter.values:
        allowed = ", ".join(
            json.dumps(v) if not isinstance(v, str) else v for v in parameter.values
        )
        raise ValidationError(where, f"must be one of {allowed}", text)


_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")


def _scalar(kind: str, text: str) -> bool | int | float | None:
    """The value ``text`` writes as JSON writes a scalar of ``kind`` (``true``, ``6``, ``0.5``;
    an integer may be written ``6.0``), or ``None`` where it writes none. Read by pattern, never
    by a JSON parser: a query value is the client's text, of any length or nesting."""
    text = text.strip(" \t\n\r")  # what JSON allows around a value
    if kind == "boolean":
        return {"true": True, "false": False}.get(text)
    if not _NUMBER.fullmatch(text):
        return None
    number = float(text)  # a decimal string beyond a float's range is inf, never an error
    if not math.isfinite(number) or (kind == "integer" and not number.is_integer()):
        return None
    # an integer's own digits where they are few enough for int() (CPython's limit is 4300)
    return int(text) if _INTEGER.fullmatch(text) and len(text) <= 4000 else number


def _article(kind: str) -> str:
    return f"an {kind}" if kind == "integer" else f"a {kind}"
