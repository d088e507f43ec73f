"""Compare two revisions of a document and list what changed, as typed :class:`Change` s.

Check ids follow oasdiff's where it has one (``request-property-removed``,
``new-optional-request-property``, ...), and messages follow the wording of the API's own change
history, so that :mod:`generator.changes.changelog` reproduces it.

Property paths join nested property names with ``/`` (``params/inner``); array items add
``items`` and map values ``additionalProperties``. The request or response body itself has the
empty path.

A change inside a component schema is reported at every path through which the operation reaches
it (``x/a`` and ``y/z/a`` when ``x`` and ``y/z`` both refer to it), but the component is compared
only once: each distinct (old component, new component, context) triple is compared once per
:func:`diff_documents` call, which gives its changes relative to itself and the pairs of
components it refers to. The changes are then reported along the paths of that graph of pairs,
following only the paths that lead to a change. The work grows with the number of distinct pairs
(and of the changes reported), not with the number of paths, which a widely shared reference
graph makes exponential.

The names of component schemas are public too (each is a class of the generated ``models.py``),
though no one operation holds them: a component of the old document that the new one lacks is a
change of :data:`COMPONENTS` where the operations still reach it. It was renamed where every
place that reached it now holds one component the old document did not have, of the same shape
(``api-schema-renamed``, info: the generated package keeps the old name importable, deprecated);
else it was removed there (``api-schema-removed``, a warning: the old name is no longer
importable). A component whose places went with it (a removed property that referred to it) is
reported by those places' changes alone.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..reading import ir


class Level(enum.StrEnum):
    """How a change affects existing clients: errors break them, warnings may, infos do not."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return list(Level).index(self)


COMPONENTS = "components"
"""The :attr:`Change.operation` of a change to the names of the component schemas."""


@dataclass(frozen=True, order=True)
class Change:
    """One difference between two revisions of an operation, or of the components' names."""

    operation: str
    """``"POST /path"``, or :data:`COMPONENTS`."""
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


@dataclass
class DiffStats:
    """How much work a :func:`diff_documents` call did (for tests and benchmarks)."""

    comparisons: int = 0
    """Schema pairs compared: each pair of components once per context, the inline schemas
    within them, and the operations' own schemas."""
    components: int = 0
    """Distinct (old component, new component, context) triples compared."""
    visits: int = 0
    """Pairs of components entered while reporting changes along paths (only those from which
    a change can be reached)."""


def diff_documents(
    old: ir.Document,
    new: ir.Document,
    *,
    descriptions: bool = False,
    stats: DiffStats | None = None,
) -> list[Change]:
    """Every change from ``old`` to ``new``: by operation, then level, check id and path.

    Changed descriptions and summaries are listed (as ``info``) only with ``descriptions``: the
    API's change history, which the changelog reproduces, leaves them out. ``stats``, if given,
    is increased by the work this call did.
    """
    graph = _PairGraph(old, new, descriptions)
    changes = _operation_changes(graph) + _schema_changes(graph)
    if stats is not None:
        stats.comparisons += graph.comparisons
        stats.components += len(graph.nodes)
        stats.visits += graph.visits
    return sorted(changes, key=Change.sort_key)


def renamed_schemas(old: ir.Document, new: ir.Document) -> dict[str, str]:
    """The component schemas of ``old`` that ``new`` renamed, same shape: by old name, the new
    name (see the module's docstring)."""
    if not old.schemas.keys() - new.schemas.keys():
        return {}
    graph = _PairGraph(old, new)
    _operation_changes(graph)
    return graph.renamed()


def _operation_changes(graph: _PairGraph) -> list[Change]:
    """The changes of the operations, each operation's in the order it found them."""
    changes: list[Change] = []
    old_ops = {op.route: op for op in graph.old_doc.operations}
    new_ops = {op.route: op for op in graph.new_doc.operations}
    for route, op in new_ops.items():
        if route not in old_ops:
            changes.append(Change(op.key, Level.INFO, "endpoint-added", "", "endpoint added"))
    for route, op in old_ops.items():
        key = op.key
        if route not in new_ops:
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
            new_op = new_ops[route]
            changes.extend(_OperationDiff(graph, new_op.key).compare(op, new_op))
    return changes


def _schema_changes(graph: _PairGraph) -> list[Change]:
    """The components of the old document, reached by the operations, that the new one renamed
    or removed."""
    renamed = graph.renamed()
    changes = [
        Change(
            COMPONENTS,
            Level.INFO,
            "api-schema-renamed",
            name,
            f"renamed the schema `{name}` to `{target}`; the old name stays importable, deprecated",
        )
        for name, target in renamed.items()
    ]
    for name in sorted(graph.places.keys() - graph.new_doc.schemas.keys() - renamed.keys()):
        changes.append(
            Change(
                COMPONENTS,
                Level.WARNING,
                "api-schema-removed",
                name,
                f"removed the schema `{name}`; the old name is no longer importable",
            )
        )
    return changes


def _same_shape(old: ir.Document, new: ir.Document, old_name: str, new_name: str) -> bool:
    """Whether two components describe the same values (descriptions aside)."""
    graph, scope = _PairGraph(old, new), _Scope("request")
    root = graph.root(
        ir.Ref(pointer=old.schemas[old_name].pointer, name=old_name),
        ir.Ref(pointer=new.schemas[new_name].pointer, name=new_name),
        "",
        scope,
    )
    return not graph.report(root, "", scope)


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
    parameter: tuple[str, str] | None = None
    """``(location, name)`` of the parameter whose schema this is."""

    def check(self, path: str, suffix: str) -> str:
        if self.parameter is not None:
            return f"request-parameter-{suffix}"
        return f"{self.side}-{'property' if path else 'body'}-{suffix}"

    def subject(self, path: str) -> str:
        if self.parameter is not None:
            location, name = self.parameter
            return f"the `{location}` request parameter `{name}`"
        return f"the `{path}` {self.side} property" if path else f"the {self.side} body"

    @property
    def tail(self) -> str:
        return f" for the response status `{self.status}`" if self.status else ""


class _Pending(NamedTuple):
    """A change at a path relative to where it was found; its check id and message are written
    once the full path is known.

    The message is ``before``, the subject (``scope.subject(path)``, or with ``literal`` the path
    itself in backticks), then ``after``. The check id is ``check``, or when that is empty
    ``scope.check(path, suffix)``.
    """

    level: Level
    path: str
    check: str
    suffix: str
    before: str
    after: str
    literal: bool

    def change(self, operation: str, prefix: str, scope: _Scope) -> Change:
        path = _join(prefix, self.path) if self.path else prefix
        check = self.check or scope.check(path, self.suffix)
        subject = f"`{path}`" if self.literal else scope.subject(path)
        return Change(operation, self.level, check, path, self.before + subject + self.after)


_Key = tuple[str, str, _Scope]
"""A pair of components (old name, new name) in a context."""


@dataclass(frozen=True)
class _Edge:
    """A reference to a pair of components: at ``path`` (relative to the node that holds the
    edge), with the changes of the reference itself (nullable, default) and the pair it leads to."""

    path: str
    site: tuple[_Pending, ...]
    target: _Key


@dataclass
class _Node:
    """What comparing a pair of schemas found, down to the next references to components: its
    changes (at relative paths) and its edges. ``changed``: a change can be reached from here."""

    changes: list[_Pending] = field(default_factory=list)
    edges: list[_Edge] = field(default_factory=list)
    changed: bool = False


class _PairGraph:
    """The pairs of components of two documents, each compared once, as a graph of nodes.

    A pair is compared when a comparison first refers to it. What a node holds does not depend on
    the path it was reached by (the context is part of its key); what does, the cut-off of a
    recursive schema, is left to :meth:`report`.
    """

    def __init__(self, old: ir.Document, new: ir.Document, descriptions: bool = False) -> None:
        self.old_doc, self.new_doc = old, new
        self.descriptions = descriptions
        self.nodes: dict[_Key, _Node] = {}
        self._refs: dict[_Key, tuple[ir.Ref, ir.Ref]] = {}
        self._todo: list[_Key] = []
        self._unmarked: list[_Key] = []
        self.places: dict[str, set[str | None]] = {}
        """For each component of the old document that the comparisons reached, what the new
        document holds at those places: a component's name, or ``None`` for a schema that is not
        a reference."""
        self.comparisons = 0
        self.visits = 0

    def root(self, old: ir.Schema, new: ir.Schema, path: str, scope: _Scope) -> _Node:
        """Compare an operation's own schemas (a body, or a parameter at ``path``) and every pair
        of components they reach that was not compared yet."""
        node = _Node()
        _Comparison(self, node, scope).schema(old, new, path)
        while self._todo:
            key = self._todo.pop()
            old_ref, new_ref = self._refs.pop(key)
            _Comparison(self, self.nodes[key], key[2]).structure(
                self.old_doc.resolve(old_ref), self.new_doc.resolve(new_ref)
            )
        self._mark_changed()
        return node

    def refer(self, old: ir.Ref, new: ir.Ref, scope: _Scope) -> _Key:
        key = (old.name, new.name, scope)
        if key not in self.nodes:
            self.nodes[key] = _Node()
            self._refs[key] = (old, new)
            self._todo.append(key)
            self._unmarked.append(key)
        return key

    def renamed(self) -> dict[str, str]:
        """The components of the old document that the new one lacks and renamed: every place
        that reached one holds one new component, of the same shape."""
        result = {}
        for name in sorted(self.places.keys() - self.new_doc.schemas.keys()):
            targets = self.places[name]
            if len(targets) != 1:
                continue
            (target,) = targets
            if (
                target is not None
                and target not in self.old_doc.schemas
                and _same_shape(self.old_doc, self.new_doc, name, target)
            ):
                result[name] = target
        return result

    def _mark_changed(self) -> None:
        """Set ``changed`` on the nodes compared since the last call from which a change can be
        be reached (cycles included). Nodes compared earlier are final: nothing new is reachable
        from them."""
        fresh, self._unmarked = self._unmarked, []
        parents: dict[_Key, list[_Key]] = {}
        work: list[_Key] = []
        for key in fresh:
            node = self.nodes[key]
            for edge in node.edges:
                parents.setdefault(edge.target, []).append(key)
            if node.changes or any(e.site or self.nodes[e.target].changed for e in node.edges):
                node.changed = True
                work.append(key)
        while work:
            for parent in parents.get(work.pop(), ()):
                node = self.nodes[parent]
                if not node.changed:
                    node.changed = True
                    work.append(parent)

    def report(self, root: _Node, operation: str, scope: _Scope) -> list[Change]:
        """The changes below ``root`` at every path that reaches them.

        A pair of components met again inside itself (a recursive schema) is not entered again:
        its changes are reported where it began, and nothing of the reference that leads back to
        it. Only pairs from which a change can be reached are entered.
        """
        out: list[Change] = []
        inside: set[_Key] = set()  # the pairs of the path being followed
        # (node, its path, its key); a node of None leaves the key, once all below it is done
        stack: list[tuple[_Node | None, str, _Key | None]] = [(root, "", None)]
        while stack:
            node, prefix, key = stack.pop()
            if node is None:
                assert key is not None
                inside.discard(key)
                continue
            if key is not None:
                inside.add(key)
                stack.append((None, "", key))  # under the pairs pushed below
                self.visits += 1
            for pending in node.changes:
                out.append(pending.change(operation, prefix, scope))
            for edge in node.edges:
                if edge.target in inside:
                    continue
                path = _join(prefix, edge.path) if edge.path else prefix
                for pending in edge.site:
                    out.append(pending.change(operation, path, scope))
                target = self.nodes[edge.target]
                if target.changed:
                    stack.append((target, path, edge.target))
        return out


class _OperationDiff:
    """The changes of one operation present in both revisions."""

    def __init__(self, graph: _PairGraph, key: str) -> None:
        self.graph, self.key = graph, key
        self.changes: list[Change] = []

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
        return self.changes

    def text(self, old: str | None, new: str | None, check: str, path: str, message: str) -> None:
        """A changed description or summary, where those are listed."""
        if self.graph.descriptions and _differ(old, new):
            self.add(Level.INFO, check, path, message)

    def schema(self, old: ir.Schema, new: ir.Schema, path: str, scope: _Scope) -> None:
        root = self.graph.root(old, new, path, scope)
        self.changes.extend(self.graph.report(root, self.key, scope))

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
            scope = _Scope("request", parameter=(location, name))
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


class _Comparison:
    """Compares schemas into one node: the changes found down to the next references to pairs
    of components, which become the node's edges. Nested schemas are compared from a work list
    rather than by recursion."""

    def __init__(self, graph: _PairGraph, node: _Node, scope: _Scope) -> None:
        self.graph, self.node, self.scope = graph, node, scope
        self.todo: list[tuple[ir.Schema, ir.Schema, str]] = []

    def add(
        self,
        level: Level,
        path: str,
        suffix: str,
        before: str,
        after: str = "",
        *,
        check: str = "",
        literal: bool = False,
        out: list[_Pending] | None = None,
    ) -> None:
        pending = _Pending(level, path, check, suffix, before, after, literal)
        (self.node.changes if out is None else out).append(pending)

    def schema(self, old: ir.Schema, new: ir.Schema, path: str) -> None:
        """Compare ``old`` and ``new`` (either may be a reference) at ``path``."""
        self.todo.append((old, new, path))
        self._drain()

    def structure(self, old: ir.Schema, new: ir.Schema) -> None:
        """Compare two components, but for their nullability and default (which the reference
        that reaches them may override)."""
        self._structure(old, new, "")
        self._drain()

    def _drain(self) -> None:
        while self.todo:
            old_ref, new_ref, path = self.todo.pop()
            old, new = self.graph.old_doc.resolve(old_ref), self.graph.new_doc.resolve(new_ref)
            if isinstance(old_ref, ir.Ref):
                held = new_ref.name if isinstance(new_ref, ir.Ref) else None
                self.graph.places.setdefault(old_ref.name, set()).add(held)
            if isinstance(old_ref, ir.Ref) and isinstance(new_ref, ir.Ref):
                site: list[_Pending] = []
                self._beside(old_ref, new_ref, old, new, "", site)
                target = self.graph.refer(old_ref, new_ref, self.scope)
                self.node.edges.append(_Edge(path, tuple(site), target))
            else:
                self._beside(old_ref, new_ref, old, new, path, self.node.changes)
                self._structure(old, new, path)

    def _beside(
        self,
        old_ref: ir.Schema,
        new_ref: ir.Schema,
        old: ir.Schema,
        new: ir.Schema,
        path: str,
        out: list[_Pending],
    ) -> None:
        """Nullability, default and description, which a reference may state beside its target."""
        if (
            self.graph.descriptions
            and self.scope.parameter is None
            and _differ(
                old_ref.description or old.description, new_ref.description or new.description
            )
        ):
            self.add(
                Level.INFO,
                path,
                "description-changed",
                "the description of ",
                f" changed{self.scope.tail}",
                out=out,
            )
        self.nullable(old_ref.nullable or old.nullable, new_ref.nullable or new.nullable, path, out)
        old_default = old_ref.default if old_ref.has_default else old.default
        new_default = new_ref.default if new_ref.has_default else new.default
        self.default(old_default, new_default, path, out)

    def _structure(self, old: ir.Schema, new: ir.Schema, path: str) -> None:
        self.graph.comparisons += 1
        if isinstance(old, ir.Opaque) and isinstance(new, ir.Opaque):
            if old.digest != new.digest:
                construct = new.reason.removesuffix(" is not supported by the generator yet")
                self.add(
                    Level.WARNING,
                    path,
                    "schema-changed",
                    "",
                    f" schema changed{self.scope.tail} (compared as written: it uses {construct})",
                )
            return
        if _kind(old) != _kind(new):
            self.add(
                Level.ERROR,
                path,
                "type-changed",
                "",
                f" type changed from `{_kind(old)}` to `{_kind(new)}`{self.scope.tail}",
            )
            return
        if isinstance(old, ir.Primitive) and isinstance(new, ir.Primitive):
            self.format(old.format, new.format, path)
        elif isinstance(old, ir.Enum) and isinstance(new, ir.Enum):
            self.enum(old, new, path)
        elif isinstance(old, ir.Object) and isinstance(new, ir.Object):
            self.properties(old, new, path)
        elif isinstance(old, ir.Array) and isinstance(new, ir.Array):
            self.todo.append((old.items, new.items, _join(path, "items")))
        elif isinstance(old, ir.Map) and isinstance(new, ir.Map):
            self.todo.append((old.values, new.values, _join(path, "additionalProperties")))
        elif isinstance(old, ir.Union) and isinstance(new, ir.Union):
            self.union(old, new, path)

    def nullable(self, old: bool, new: bool, path: str, out: list[_Pending]) -> None:
        if old == new:
            return
        # A request that may now be null is more permissive; a response that may be null is not.
        loosened = new
        breaking = loosened if self.scope.side == "response" else not loosened
        suffix = "became-nullable" if new else "became-not-nullable"
        self.add(
            Level.ERROR if breaking else Level.INFO,
            path,
            suffix,
            "",
            f" became {'nullable' if new else 'not nullable'}{self.scope.tail}",
            out=out,
        )

    def default(self, old: Any, new: Any, path: str, out: list[_Pending]) -> None:
        if old == new and type(old) is type(new):
            return
        if old is ir.NO_VALUE:
            suffix, message = "default-value-added", f" default value `{_show(new)}` was added"
        elif new is ir.NO_VALUE:
            suffix, message = "default-value-removed", f" default value `{_show(old)}` was removed"
        else:
            suffix = "default-value-changed"
            message = f" default value changed from `{_show(old)}` to `{_show(new)}`"
        self.add(Level.INFO, path, suffix, "", message + self.scope.tail, out=out)

    def format(self, old: str | None, new: str | None, path: str) -> None:
        if old == new:
            return
        generalized = old is not None and (new is None or (old, new) in _WIDER_FORMATS)
        if generalized and self.scope.side == "request":
            self.add(
                Level.INFO,
                path,
                "type-generalized",
                "",
                f" format was generalized from {_format(old)} to {_format(new)}",
            )
        else:
            self.add(
                Level.ERROR,
                path,
                "type-changed",
                "",
                f" format changed from {_format(old)} to {_format(new)}{self.scope.tail}",
            )

    def enum(self, old: ir.Enum, new: ir.Enum, path: str) -> None:
        tail = self.scope.tail
        # A new value breaks clients reading it; a removed value breaks clients sending it.
        added_level, removed_level = (
            (Level.WARNING, Level.INFO)
            if self.scope.side == "response"
            else (Level.INFO, Level.ERROR)
        )
        for value in new.values:
            if value not in old.values:
                self.add(
                    added_level,
                    path,
                    "enum-value-added",
                    f"added the new `{value}` enum value to ",
                    tail,
                )
        for value in old.values:
            if value not in new.values:
                self.add(
                    removed_level,
                    path,
                    "enum-value-removed",
                    f"removed the `{value}` enum value from ",
                    tail,
                )

    def properties(self, old: ir.Object, new: ir.Object, path: str) -> None:
        side, tail = self.scope.side, self.scope.tail
        old_properties = {prop.name: prop for prop in old.properties}
        new_names = {prop.name for prop in new.properties}
        for prop in new.properties:
            here = _join(path, prop.name)
            before = old_properties.get(prop.name)
            kind = "required" if prop.required else "optional"
            if before is None:
                if side == "request":
                    self.add(
                        Level.ERROR if prop.required else Level.INFO,
                        here,
                        "",
                        f"added the new {kind} request property ",
                        check=f"new-{kind}-request-property",
                        literal=True,
                    )
                else:
                    self.add(
                        Level.INFO,
                        here,
                        "",
                        f"added the {kind} response property ",
                        tail,
                        check=f"response-{kind}-property-added",
                        literal=True,
                    )
                continue
            if before.required != prop.required:
                # Requests break when a property becomes required; responses when one becomes optional.
                breaking = prop.required if side == "request" else not prop.required
                self.add(
                    Level.ERROR if breaking else Level.INFO,
                    here,
                    "",
                    "",
                    f" became {kind}{tail}",
                    check=f"{side}-property-became-{kind}",
                )
            self.todo.append((before.schema, prop.schema, here))
        for prop in old.properties:
            if prop.name in new_names:
                continue
            here = _join(path, prop.name)
            if side == "request":
                self.add(
                    Level.WARNING,
                    here,
                    "",
                    "removed the request property ",
                    check="request-property-removed",
                    literal=True,
                )
            else:
                kind = "required" if prop.required else "optional"
                self.add(
                    Level.ERROR if prop.required else Level.WARNING,
                    here,
                    "",
                    f"removed the {kind} response property ",
                    tail,
                    check=f"response-{kind}-property-removed",
                    literal=True,
                )

    def union(self, old: ir.Union, new: ir.Union, path: str) -> None:
        old_variants = {_variant(v): v for v in old.variants}
        new_variants = {_variant(v): v for v in new.variants}
        side, tail = self.scope.side, self.scope.tail
        # More variants: requests may send more (fine), responses may carry more (clients break).
        for name in new_variants.keys() - old_variants.keys():
            self.add(
                Level.ERROR if side == "response" else Level.INFO,
                path,
                f"{_dash(old.kind)}-added",
                f"added `{name}` to the `{new.kind}` list of ",
                tail,
            )
        for name in old_variants.keys() - new_variants.keys():
            self.add(
                Level.INFO if side == "response" else Level.ERROR,
                path,
                f"{_dash(old.kind)}-removed",
                f"removed `{name}` from the `{old.kind}` list of ",
                tail,
            )
        for name in old_variants.keys() & new_variants.keys():
            self.todo.append((old_variants[name], new_variants[name], path))


def _differ(old: str | None, new: str | None) -> bool:
    """Whether two texts differ in more than their white space."""
    return (old or "").split() != (new or "").split()


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
    if isinstance(schema, ir.Opaque):
        return "unsupported"
    return "any"


def _variant(schema: ir.Schema) -> str:
    """How a union variant is named in messages: its schema name, else its type."""
    return schema.name if isinstance(schema, ir.Ref) else _kind(schema)
