"""What the generator does not support: kept as an :class:`ir.Opaque` schema with the digest of
what was written (the ``complete`` and ``lenient`` modes), and, leniently, left out with
everything that reaches it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

from .. import ir


def digest(node: Any) -> str:
    """The sha256 of a node's JSON, keys sorted (keys of any type read as strings), written
    without recursion (what a parser cannot represent may nest without bound)."""
    hashed = hashlib.sha256()
    todo: list[Any] = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, _Token):
            hashed.update(item.text.encode("utf-8", "surrogatepass"))
        elif isinstance(item, Mapping):
            entries = sorted((str(k), v) for k, v in item.items())
            todo.append(_Token("}"))
            for key, value in reversed(entries):
                todo += [_Token(","), value, _Token(json.dumps(key) + ":")]
            todo.append(_Token("{"))
        elif isinstance(item, list):
            todo.append(_Token("]"))
            for value in reversed(item):
                todo += [_Token(","), value]
            todo.append(_Token("["))
        else:
            text = (
                json.dumps(item)
                if isinstance(item, (str, int, float, bool, type(None)))
                else repr(item)
            )
            hashed.update(text.encode("utf-8", "surrogatepass"))
    return hashed.hexdigest()


class _Token:
    """Text of the JSON :func:`digest` writes, between the values."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def first_opaque(schema: ir.Schema) -> ir.Opaque | None:
    """The first schema the generator does not support inside ``schema`` (not through refs)."""
    todo: list[ir.Schema] = [schema]
    while todo:
        current = todo.pop()
        if isinstance(current, ir.Opaque):
            return current
        todo.extend(reversed(ir.children(current)))
    return None


def operation_schemas(op: ir.Operation) -> Iterator[ir.Schema]:
    for p in op.parameters:
        yield p.schema
    if op.request_body is not None and op.request_body.schema is not None:
        yield op.request_body.schema
    for r in op.responses:
        if r.schema is not None:
            yield r.schema


def schema_refs(schema: ir.Schema) -> Iterator[str]:
    """The names of the components a schema refers to (not through them)."""
    todo: list[ir.Schema] = [schema]
    while todo:
        current = todo.pop()
        if isinstance(current, ir.Ref):
            yield current.name
        todo.extend(ir.children(current))


def operation_refs(op: ir.Operation) -> Iterator[str]:
    for p in op.parameters:
        yield from schema_refs(p.schema)
    if op.request_body is not None and op.request_body.schema is not None:
        yield from schema_refs(op.request_body.schema)
    for r in op.responses:
        if r.schema is not None:
            yield from schema_refs(r.schema)
