"""The view of an operation's reference page (``docs/<operationId>.md``), in the format of the
API's documentation site: schema trees as nested bullet lines."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from ..literals import markdown_code, markdown_inline
from ..reading import ir


@dataclass(frozen=True)
class Line:
    """A bullet line and the lines nested under it."""

    text: str
    children: tuple[Line, ...] = ()


@dataclass(frozen=True)
class ResponseSection:
    status: str
    description: str
    body: Line | None


@dataclass(frozen=True)
class OperationPage:
    operation: ir.Operation
    parameters: tuple[tuple[str, tuple[Line, ...]], ...]
    """``("Path parameters", lines)``, then query, header and cookie parameters where present."""
    request_body: Line | None
    responses: tuple[ResponseSection, ...]
    """The success responses, in full."""
    other_responses: tuple[ir.Response, ...]
    name: str
    """The page's file name without ``.md``: the operationId where it is a plain file name,
    else the operation's method name (see :func:`generator.views.pymodel.page_name`)."""


_LOCATIONS = (
    ("path", "Path parameters"),
    ("query", "Query parameters"),
    ("header", "Header parameters"),
    ("cookie", "Cookie parameters"),
)


def operation_pages(
    doc: ir.Document, named: Iterable[tuple[ir.Operation, str]]
) -> list[OperationPage]:
    """The page of each operation of ``doc``, with its name: the schema trees of one document
    are built once for all its pages (a schema most operations share is one tree)."""
    tree = _Tree(doc)
    return [_page(tree, operation, name) for operation, name in named]


def _page(tree: _Tree, operation: ir.Operation, name: str) -> OperationPage:
    parameters = []
    for location, heading in _LOCATIONS:
        lines = tuple(
            Line(
                _describe(
                    f"{markdown_code(p.name)} {tree.label(p.schema)}",
                    p.required,
                    p.description or tree.description(p.schema),
                    tree.details(p.schema),
                )
            )
            for p in operation.parameters
            if p.location == location
        )
        if lines:
            parameters.append((heading, lines))
    body = operation.request_body
    return OperationPage(
        operation=operation,
        parameters=tuple(parameters),
        request_body=tree.root(body.schema) if body and body.schema else None,
        responses=tuple(
            ResponseSection(r.status, r.description, tree.root(r.schema) if r.schema else None)
            for r in operation.responses
            if r.status.startswith("2")
        ),
        other_responses=tuple(r for r in operation.responses if not r.status.startswith("2")),
        name=name,
    )


def _describe(head: str, required: bool, description: str | None, details: str = "") -> str:
    """A bullet line: the name and type, then the document's description (on the line, as
    Markdown text) and the details."""
    text = head + (", required" if required else "")
    description = markdown_inline(description) if description else description
    if description and details and not description.rstrip().endswith((".", "!", "?", ":")):
        description = description.rstrip() + "."  # the details are sentences of their own
    about = " ".join(part for part in (description, details) if part)
    return f"{text} — {about}" if about else text


# How the page words a schema's constraints.
_CONSTRAINT_WORDS = {
    "minimum": "Minimum",
    "maximum": "Maximum",
    "exclusiveMinimum": "Greater than",
    "exclusiveMaximum": "Less than",
    "multipleOf": "Multiple of",
    "minLength": "Minimum length",
    "maxLength": "Maximum length",
    "pattern": "Pattern",
    "minItems": "Minimum items",
    "maxItems": "Maximum items",
    "uniqueItems": "Unique items",
    "minProperties": "Minimum properties",
    "maxProperties": "Maximum properties",
}


class _Tree:
    def __init__(self, doc: ir.Document) -> None:
        self.doc = doc
        self._known: dict[str, tuple[Line, ...]] = {}
        """The lines under each component whose lines cut no recursion (see :meth:`_children`)."""

    def label(self, schema: ir.Schema) -> str:
        """How a schema is named on the page: a component's name, an enum's quoted values, a type."""
        resolved = self.doc.resolve(schema)
        if isinstance(resolved, ir.Enum):
            return " | ".join(
                markdown_inline(f"'{v}'") if isinstance(v, str) else json.dumps(v)
                for v in resolved.values
            )
        if isinstance(schema, ir.Ref):
            return markdown_inline(schema.name)
        if isinstance(resolved, ir.Primitive):
            return f"{resolved.type} ({resolved.format})" if resolved.format else resolved.type
        if isinstance(resolved, ir.Union):
            return "union"
        if isinstance(resolved, ir.Array) and resolved.prefix_items:
            return f"tuple of {', '.join(self.label(p) for p in resolved.prefix_items)}"
        if isinstance(resolved, ir.Array):
            return f"array of {self.label(resolved.items)}"
        if isinstance(resolved, ir.Map):
            return f"map of {self.label(resolved.values)}"
        if isinstance(resolved, ir.Object):
            return "object"
        return "any"

    def description(self, schema: ir.Schema) -> str | None:
        """A property's own description, else the description of the schema it refers to."""
        return schema.description or self.doc.resolve(schema).description

    def details(self, schema: ir.Schema) -> str:
        """A schema's default (an enum's is left out, as on the documentation site) and
        constraints, as sentences: ``Default: `1.0`. Minimum: `0`.``"""
        resolved = self.doc.resolve(schema)
        parts = []
        default = schema.default if schema.has_default else resolved.default
        if default is not ir.NO_VALUE and default is not None and not isinstance(resolved, ir.Enum):
            parts.append(f"Default: {markdown_code(json.dumps(default))}.")
        for word, value in (*resolved.constraints, *schema.constraints):
            shown = json.dumps(value) if not isinstance(value, bool) else str(value).lower()
            parts.append(f"{_CONSTRAINT_WORDS.get(word, word)}: {markdown_code(shown)}.")
        return " ".join(dict.fromkeys(parts))

    def root(self, schema: ir.Schema) -> Line:
        head = self.label(schema)
        description = self.description(schema)
        return Line(
            f"{head} — {markdown_inline(description)}" if description else head,
            self.children(schema, frozenset()),
        )

    def children(self, schema: ir.Schema, seen: frozenset[str]) -> tuple[Line, ...]:
        return self._children(schema, seen)[0]

    def _children(self, schema: ir.Schema, seen: frozenset[str]) -> tuple[tuple[Line, ...], bool]:
        """The lines under ``schema`` below the components ``seen``, and whether they are whole
        (they cut no recursion). A component's whole lines are the same under any components:
        what it reaches reaches it in no cycle, so no component above it is reached below."""
        if isinstance(schema, ir.Ref):
            if schema.name in seen:  # a recursive schema is shown once
                return (), False
            known = self._known.get(schema.name)
            if known is not None:
                return known, True
            seen = seen | {schema.name}
        resolved = self.doc.resolve(schema)
        parts: list[tuple[str, ir.Schema]]
        if isinstance(resolved, ir.Object):
            parts = [
                (
                    _describe(
                        f"{markdown_code(p.name)} {self.label(p.schema)}",
                        p.required,
                        self.description(p.schema),
                        self.details(p.schema),
                    ),
                    p.schema,
                )
                for p in resolved.properties
            ]
        elif isinstance(resolved, ir.Union):
            parts = [(self.label(v), v) for v in resolved.variants]
        elif isinstance(resolved, (ir.Array, ir.Map)):
            inner = resolved.items if isinstance(resolved, ir.Array) else resolved.values
            return self._kept(schema, *self._children(inner, seen))
        else:
            return self._kept(schema, (), True)
        lines: list[Line] = []
        whole = True
        for text, part in parts:
            below, complete = self._children(part, seen)
            lines.append(Line(text, below))
            whole = whole and complete
        return self._kept(schema, tuple(lines), whole)

    def _kept(
        self, schema: ir.Schema, lines: tuple[Line, ...], whole: bool
    ) -> tuple[tuple[Line, ...], bool]:
        """``lines``, remembered for a component where they are whole."""
        if whole and isinstance(schema, ir.Ref):
            self._known[schema.name] = lines
        return lines, whole
