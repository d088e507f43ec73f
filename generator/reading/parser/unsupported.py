"""What the generator does not support: kept as an :class:`ir.Opaque` schema with the digest of
what was written (the ``complete`` and ``lenient`` modes), and, leniently, left out with
everything that reaches it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

from .. import ir
from .context import Context


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


def without_unsupported(
    ctx: Context, schemas: dict[str, ir.Schema], operations: list[ir.Operation]
) -> tuple[dict[str, ir.Schema], list[ir.Operation]]:
    """Leave out the schemas that hold a construct the generator does not support, what
    reaches them, and the operations that do either (each listed with why)."""
    refs = {name: set(_refs(schema)) for name, schema in schemas.items()}
    gone: set[str] = set()
    for name, schema in schemas.items():
        opaque = _first_opaque(schema)
        if opaque is not None:
            ctx.omitted.append(
                ir.Omission(pointer=schema.pointer, reason=f"{opaque.at}: {opaque.reason}")
            )
            gone.add(name)
    changed = bool(gone)
    while changed:
        changed = False
        for name, used in refs.items():
            if name not in gone and used & gone:
                culprit = sorted(used & gone)[0]
                ctx.omitted.append(
                    ir.Omission(
                        pointer=schemas[name].pointer,
                        reason=f"it uses the schema {culprit}, which is left out",
                    )
                )
                gone.add(name)
                changed = True
    kept_operations = []
    for op in operations:
        opaque = next(filter(None, map(_first_opaque, _operation_schemas(op))), None)
        used = set(_operation_refs(op)) & gone
        if opaque is not None:
            reason = f"{opaque.at}: {opaque.reason}"
        elif used:
            reason = f"it uses the schema {sorted(used)[0]}, which is left out"
        else:
            kept_operations.append(op)
            continue
        ctx.omitted.append(ir.Omission(pointer=op.pointer, reason=reason))
    return {k: v for k, v in schemas.items() if k not in gone}, kept_operations


def _first_opaque(schema: ir.Schema) -> ir.Opaque | None:
    """The first schema the generator does not support inside ``schema`` (not through refs)."""
    todo: list[ir.Schema] = [schema]
    while todo:
        current = todo.pop()
        if isinstance(current, ir.Opaque):
            return current
        todo.extend(reversed(ir.children(current)))
    return None


def _operation_schemas(op: ir.Operation) -> Iterator[ir.Schema]:
    for p in op.parameters:
        yield p.schema
    if op.request_body is not None and op.request_body.schema is not None:
        yield op.request_body.schema
    for r in op.responses:
        if r.schema is not None:
            yield r.schema


def _refs(schema: ir.Schema) -> Iterator[str]:
    """The names of the components a schema refers to (not through them)."""
    todo: list[ir.Schema] = [schema]
    while todo:
        current = todo.pop()
        if isinstance(current, ir.Ref):
            yield current.name
        todo.extend(ir.children(current))


def _operation_refs(op: ir.Operation) -> Iterator[str]:
    for p in op.parameters:
        yield from _refs(p.schema)
    if op.request_body is not None and op.request_body.schema is not None:
        yield from _refs(op.request_body.schema)
    for r in op.responses:
        if r.schema is not None:
            yield from _refs(r.schema)
