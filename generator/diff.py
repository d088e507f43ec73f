"""Compare two revisions of a document and list what changed, as typed :class:`Change` s.

Check ids follow oasdiff's where it has one (``request-property-removed``,
``new-optional-request-property``, ...), and messages follow the wording of the API's own change
history, so that :mod:`generator.changelog` reproduces it.

Property paths join nested property names with ``/`` (``muon_params/adam``); array items add
``items`` and map values ``additionalProperties``. The request or response body itself has the
empty path.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any

from . import ir


class Level(enum.StrEnum):
    """How a change affects existing clients: errors break them, warnings may, infos do not."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return list(Level).index(self)


@dataclass(frozen=True, order=True)
class Change:
    """One difference between two revisions of an operation."""

    operation: str
    """``"POST /path"``."""
    level: Level
    check: str
    path: str
    message: str

    def sort_key(self) -> tuple[str, int, str, str, str]:
        return (self.operation, self.level.rank, self.check, self.path, self.message)

    def to_dict(self) -> dict[str, str]:
        return {
            "operation": self.operation,
            "level": self.level.value,
            "id": self.check,
            "path": self.path,
            "message": self.message,
        }


def diff_documents(
    old: ir.Document, new: ir.Document, *, descriptions: bool = False
) -> list[Change]:
    """Every change from ``old`` to ``new``: by operation, then level, check id and path.

    Changed descriptions and summaries are listed (as ``info``) only with ``descriptions``: the
    API's change history, which the changelog reproduces, leaves them out.
    """
    changes: list[Change] = []
    old_ops = {op.key: op for op in old.operations}
    new_ops = {op.key: op for op in new.operations}
    for key, op in new_ops.items():
        if key not in old_ops:
            changes.append(Change(key, Level.INFO, "endpoint-added", "", "endpoint added"))
    for key, op in old_ops.items():
        if key not in new_ops:
            if op.deprecated:
                changes.append(
                    Change(
                        key,
                        Level.INFO,
                        "api-removed-after-deprecation",
                        "",
                        "api removed after deprecation",
                    )
                )
            else:
                changes.append(
                    Change(
                        key,
                        Level.ERROR,
                        "api-removed-without-deprecation",
                        "",
                        "api removed without deprecation",
                    )
                )
        else:
            changes.extend(_OperationDiff(old, new, key, descriptions).compare(op, new_ops[key]))
    return sorted(changes, key=Change.sort_key)


def _show(value: Any) -> str:
    """A value as the change history prints it: strings bare, everything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def _format(value: str | None) -> str:
    return f"`{value}`" if value else "no format"


# A format change the server accepts more under (``int32`` to ``int64``, ``float`` to ``double``).
_WIDER_FORMATS = {("int32", "int64"), ("float", "double")}


@dataclass(frozen=True)
class _Scope:
    """Where a schema sits: the request body, a parameter, or the response body of one status."""

    side: str  # "request" or "response"
    status: str | None = None
    parameter: ir.Parameter | None = None

    def check(self, path: str, suffix: str) -> str:
        if self.parameter is not None:
            return f"request-parameter-{suffix}"
        return f"{self.side}-{'property' if path else 'body'}-{suffix}"

    def subject(self, path: str) -> str:
        if self.parameter is not None:
            return f"the `{self.parameter.location}` request parameter `{self.parameter.name}`"
        return f"the `{path}` {self.side} property" if path else f"the {self.side} body"

    @property
    def tail(self) -> str:
        return f" for the response status `{self.status}`" if self.status else ""


_Frames = frozenset[tuple[str, str]]
"""The pairs of component schemas (old name, new name) a comparison is nested in."""


class _OperationDiff:
    """The changes of one operation present in both revisions.

    Schemas are compared from a work list rather than by recursion, so that a long chain of
    ``$ref`` s cannot exhaust Python's stack; each item carries the component pairs it is nested
    in, so that a recursive schema is compared once where it begins.
    """

    def __init__(
        self, old_doc: ir.Document, new_doc: ir.Document, key: str, descriptions: bool = False
    ) -> None:
        self.old_doc, self.new_doc, self.key = old_doc, new_doc, key
        self.descriptions = descriptions
        self.changes: list[Change] = []
        self.todo: list[tuple[ir.Schema, ir.Schema, str, _Scope, _Frames]] = []
        self.frames: _Frames = frozenset()

    def add(self, level: Level, check: str, path: str, message: str) -> None:
        self.changes.append(Change(self.key, level, check, path, message))

    def compare(self, old: ir.Operation, new: ir.Operation) -> list[Change]:
        for what in ("summary", "description"):
            self.text(
                getattr(old, what),
                getattr(new, what),
                f"operation-{what}-changed",
                "",
                f"the operation's {what} changed",
            )
        self.parameters(old, new)
        old_body, new_body = old.request_body, new.request_body
        if old_body and new_body and old_body.schema and new_body.schema:
            self.schema(old_body.schema, new_body.schema, "", _Scope("request"))
        self.responses(old, new)
        while self.todo:
            old_schema, new_schema, path, scope, self.frames = self.todo.pop()
            self.resolved(old_schema, new_schema, path, scope)
        return self.changes

    # -- parameters -----------------------------------------------------------------------------

    def parameters(self, old: ir.Operation, new: ir.Operation) -> None:
        old_params = {(p.location, p.name): p for p in old.parameters}
        new_params = {(p.location, p.name): p for p in new.parameters}
        for (location, name), param in new_params.items():
            before = old_params.get((location, name))
            if before is None:
                kind, level = (
                    ("required", Level.ERROR) if param.required else ("optional", Level.INFO)
                )
                self.add(
                    level,
                    f"new-{kind}-request-parameter",
                    name,
                    f"added the new {kind} `{location}` request parameter `{name}`",
                )
                continue
            scope = _Scope("request", parameter=param)
            self.text(
                before.description,
                param.description,
                "request-parameter-description-changed",
                name,
                f"the description of {scope.subject(name)} changed",
            )
            if param.required and not before.required:
                self.add(
                    Level.ERROR,
                    "request-parameter-became-required",
                    name,
                    f"{scope.subject(name)} became required",
                )
            elif before.required and not param.required:
                self.add(
                    Level.INFO,
                    "request-parameter-became-optional",
                    name,
                    f"{scope.subject(name)} became optional",
                )
            self.schema(before.schema, param.schema, name, scope)
        for location, name in old_params.keys() - new_params.keys():
            self.add(
                Level.WARNING,
                "request-parameter-removed",
                name,
                f"deleted the `{location}` request parameter `{name}`",
            )

    # -- responses ------------------------------------------------------------------------------

    def responses(self, old: ir.Operation, new: ir.Operation) -> None:
        old_responses = {r.status: r for r in old.responses}
        for response in new.responses:
            before = old_responses.pop(response.status, None)
            if before is None:
                self.status_change(response.status, added=True)
            elif before.schema and response.schema:
                self.schema(before.schema, response.schema, "", _Scope("response", response.status))
        for status in old_responses:
            self.status_change(status, added=False)

    def status_change(self, status: str, *, added: bool) -> None:
        success = status.startswith("2")
        kind = "success" if success else "non-success"
        verb = "added" if added else "removed"
        level = Level.ERROR if success and not added else Level.INFO
        self.add(
            level,
            f"response-{kind}-status-{verb}",
            "",
            f"{verb} the {kind} response with the status `{status}`",
        )

    # -- schemas --------------------------------------------------------------------------------

    def schema(self, old: ir.Schema, new: ir.Schema, path: str, scope: _Scope) -> None:
        """Queue the comparison of ``old`` and ``new`` at ``path``."""
        frames = self.frames
        if isinstance(old, ir.Ref) and isinstance(new, ir.Ref):
            frame = (old.name, new.name)
            if frame in frames:  # a recursive schema: its changes are reported where it began
                return
            frames = frames | {frame}
        self.todo.append((old, new, path, scope, frames))

    def text(self, old: str | None, new: str | None, check: str, path: str, message: str) -> None:
        """A changed description or summary, where those are listed."""
        if self.descriptions and (old or "").split() != (new or "").split():
            self.add(Level.INFO, check, path, message)

    def resolved(self, old_ref: ir.Schema, new_ref: ir.Schema, path: str, scope: _Scope) -> None:
        old, new = self.old_doc.resolve(old_ref), self.new_doc.resolve(new_ref)
        if scope.parameter is None:
            self.text(
                old_ref.description or old.description,
                new_ref.description or new.description,
                scope.check(path, "description-changed"),
                path,
                f"the description of {scope.subject(path)} changed{scope.tail}",
            )
        self.nullable(
            old_ref.nullable or old.nullable, new_ref.nullable or new.nullable, path, scope
        )
        old_default = old_ref.default if old_ref.has_default else old.default
        new_default = new_ref.default if new_ref.has_default else new.default
        self.default(old_default, new_default, path, scope)
        if _kind(old) != _kind(new):
            self.add(
                Level.ERROR,
                scope.check(path, "type-changed"),
                path,
                f"{scope.subject(path)} type changed from `{_kind(old)}` to `{_kind(new)}`{scope.tail}",
            )
            return
        if isinstance(old, ir.Primitive) and isinstance(new, ir.Primitive):
            self.format(old.format, new.format, path, scope)
        elif isinstance(old, ir.Enum) and isinstance(new, ir.Enum):
            self.enum(old, new, path, scope)
        elif isinstance(old, ir.Object) and isinstance(new, ir.Object):
            self.properties(old, new, path, scope)
        elif isinstance(old, ir.Array) and isinstance(new, ir.Array):
            self.schema(old.items, new.items, _join(path, "items"), scope)
        elif isinstance(old, ir.Map) and isinstance(new, ir.Map):
            self.schema(old.values, new.values, _join(path, "additionalProperties"), scope)
        elif isinstance(old, ir.Union) and isinstance(new, ir.Union):
            self.union(old, new, path, scope)

    def nullable(self, old: bool, new: bool, path: str, scope: _Scope) -> None:
        if old == new:
            return
        # A request that may now be null is more permissive; a response that may be null is not.
        loosened = new
        breaking = loosened if scope.side == "response" else not loosened
        suffix = "became-nullable" if new else "became-not-nullable"
        self.add(
            Level.ERROR if breaking else Level.INFO,
            scope.check(path, suffix),
            path,
            f"{scope.subject(path)} became {'nullable' if new else 'not nullable'}{scope.tail}",
        )

    def default(self, old: Any, new: Any, path: str, scope: _Scope) -> None:
        if old == new and type(old) is type(new):
            return
        subject, tail = scope.subject(path), scope.tail
        if old is ir.NO_VALUE:
            suffix, message = (
                "default-value-added",
                f"{subject} default value `{_show(new)}` was added{tail}",
            )
        elif new is ir.NO_VALUE:
            suffix, message = (
                "default-value-removed",
                f"{subject} default value `{_show(old)}` was removed{tail}",
            )
        else:
            suffix = "default-value-changed"
            message = f"{subject} default value changed from `{_show(old)}` to `{_show(new)}`{tail}"
        self.add(Level.INFO, scope.check(path, suffix), path, message)

    def format(self, old: str | None, new: str | None, path: str, scope: _Scope) -> None:
        if old == new:
            return
        generalized = old is not None and (new is None or (old, new) in _WIDER_FORMATS)
        if generalized and scope.side == "request":
            self.add(
                Level.INFO,
                scope.check(path, "type-generalized"),
                path,
                f"{scope.subject(path)} format was generalized from {_format(old)} to {_format(new)}",
            )
        else:
            self.add(
                Level.ERROR,
                scope.check(path, "type-changed"),
                path,
                f"{scope.subject(path)} format changed from {_format(old)} to {_format(new)}{scope.tail}",
            )

    def enum(self, old: ir.Enum, new: ir.Enum, path: str, scope: _Scope) -> None:
        subject, tail = scope.subject(path), scope.tail
        # A new value breaks clients reading it; a removed value breaks clients sending it.
        added_level, removed_level = (
            (Level.WARNING, Level.INFO) if scope.side == "response" else (Level.INFO, Level.ERROR)
        )
        for value in new.values:
            if value not in old.values:
                self.add(
                    added_level,
                    scope.check(path, "enum-value-added"),
                    path,
                    f"added the new `{value}` enum value to {subject}{tail}",
                )
        for value in old.values:
            if value not in new.values:
                self.add(
                    removed_level,
                    scope.check(path, "enum-value-removed"),
                    path,
                    f"removed the `{value}` enum value from {subject}{tail}",
                )

    def properties(self, old: ir.Object, new: ir.Object, path: str, scope: _Scope) -> None:
        side, tail = scope.side, scope.tail
        for prop in new.properties:
            here = _join(path, prop.name)
            before = old.property(prop.name)
            kind = "required" if prop.required else "optional"
            if before is None:
                if side == "request":
                    level = Level.ERROR if prop.required else Level.INFO
                    self.add(
                        level,
                        f"new-{kind}-request-property",
                        here,
                        f"added the new {kind} request property `{here}`",
                    )
                else:
                    self.add(
                        Level.INFO,
                        f"response-{kind}-property-added",
                        here,
                        f"added the {kind} response property `{here}`{tail}",
                    )
                continue
            if before.required != prop.required:
                # Requests break when a property becomes required; responses when one becomes optional.
                breaking = prop.required if side == "request" else not prop.required
                self.add(
                    Level.ERROR if breaking else Level.INFO,
                    f"{side}-property-became-{kind}",
                    here,
                    f"{scope.subject(here)} became {kind}{tail}",
                )
            self.schema(before.schema, prop.schema, here, scope)
        for prop in old.properties:
            here = _join(path, prop.name)
            if new.property(prop.name) is not None:
                continue
            if side == "request":
                self.add(
                    Level.WARNING,
                    "request-property-removed",
                    here,
                    f"removed the request property `{here}`",
                )
            else:
                kind = "required" if prop.required else "optional"
                self.add(
                    Level.ERROR if prop.required else Level.WARNING,
                    f"response-{kind}-property-removed",
                    here,
                    f"removed the {kind} response property `{here}`{tail}",
                )

    def union(self, old: ir.Union, new: ir.Union, path: str, scope: _Scope) -> None:
        old_variants = {_variant(v): v for v in old.variants}
        new_variants = {_variant(v): v for v in new.variants}
        # More variants: requests may send more (fine), responses may carry more (clients break).
        for name in new_variants.keys() - old_variants.keys():
            self.add(
                Level.ERROR if scope.side == "response" else Level.INFO,
                scope.check(path, f"{_dash(old.kind)}-added"),
                path,
                f"added `{name}` to the `{new.kind}` list of {scope.subject(path)}{scope.tail}",
            )
        for name in old_variants.keys() - new_variants.keys():
            self.add(
                Level.INFO if scope.side == "response" else Level.ERROR,
                scope.check(path, f"{_dash(old.kind)}-removed"),
                path,
                f"removed `{name}` from the `{old.kind}` list of {scope.subject(path)}{scope.tail}",
            )
        for name in old_variants.keys() & new_variants.keys():
            self.schema(old_variants[name], new_variants[name], path, scope)


def _join(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


def _dash(kind: str) -> str:
    return {"oneOf": "one-of", "anyOf": "any-of"}[kind]


def _kind(schema: ir.Schema) -> str:
    """The JSON type a schema describes, as the change history names it."""
    if isinstance(schema, ir.Primitive):
        return schema.type
    if isinstance(schema, ir.Enum):
        return schema.type
    if isinstance(schema, (ir.Object, ir.Map)):
        return "object"
    if isinstance(schema, ir.Array):
        return "array"
    if isinstance(schema, ir.Union):
        return schema.kind
    return "any"


def _variant(schema: ir.Schema) -> str:
    """How a union variant is named in messages: its schema name, else its type."""
    return schema.name if isinstance(schema, ir.Ref) else _kind(schema)
