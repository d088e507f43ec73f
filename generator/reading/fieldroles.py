"""What each request input does in the generated local reference, from ``spec/reference-fields.yaml``.

The data file gives each field of the served operation's request body a role (a group of an
optimizer's overrides, a setting inside a group, a step-level value, no local effect), and each
of its query parameters and headers one too (no local effect, or the idempotency key). For one
revision and one session kind (an optimizer of the runtime's registry), :func:`resolve` settles
every field of that revision's body, and every query parameter and header of its operation,
into a :data:`Rule` the rendered reference applies as it is: the reference has no run-time
branch on which revision it is. An input without a role (or whose schema cannot play its role)
does not stop generation: it becomes a :class:`Refused` rule and an :class:`Unassigned`
warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

from together_rl_runtime.optimizers import REGISTRY, runs
from together_rl_runtime.settings import (
    GROUP_ROLES,
    IDEMPOTENCY_ROLE,
    NO_EFFECT_ROLE,
    OPTIMIZERS,
    SETTING_KINDS,
    SETTING_RANGES,
    SETTINGS,
    TOP_LEVEL_ROLES,
    Group,
    IdempotencyKey,
    NoEffect,
    Parameter,
    Refused,
    Rule,
    Sets,
)

from ..english import article
from ..errors import GeneratorError
from ..pointer import join
from . import ir
from .loader import load_yaml

ROLES_FILE = "reference-fields.yaml"

Session: TypeAlias = str
"""A kind of session: the name of an optimizer of the runtime's registry."""
SESSIONS: tuple[Session, ...] = OPTIMIZERS
# What groups may set, the roles, the ranges and the session defaults are the runtime's (one
# source: together_rl_runtime.settings, read from its registry, together_rl_runtime.optimizers).
_SETTINGS = SETTINGS
_GROUPS = GROUP_ROLES
_TOP_LEVEL = TOP_LEVEL_ROLES

NOT_IMPLEMENTED = "the local reference does not implement this field yet"
PARAMETER_NOT_IMPLEMENTED = "the local reference does not implement this parameter yet"
PARAMETER_LOCATIONS = ("query", "header")
"""Where the parameters that take roles are (a path parameter names the session)."""
PARAMETER_ROLES: dict[str, tuple[str, ...]] = {
    NO_EFFECT_ROLE: PARAMETER_LOCATIONS,
    IDEMPOTENCY_ROLE: ("header",),
}
"""The roles of a query parameter or header, and where each may be."""


class FieldRolesError(GeneratorError):
    """The field-role data file is missing or malformed."""


# -- the data file ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One field's entry: its role, and for a group the entries of the group's fields."""

    role: str
    pointer: str
    """Where the entry is in the data file."""
    fields: Mapping[str, Entry] | None = None


@dataclass(frozen=True)
class FieldRoles:
    """The whole data file."""

    source: str
    operation: str
    """The operation the reference serves: an operationId or ``"METHOD /path"``."""
    fields: Mapping[str, Entry]
    parameters: Mapping[tuple[str, str], Entry] = field(default_factory=dict)
    """The roles of query parameters and headers, by location and name (a header's in lower
    case: headers compare without case)."""

    def parameter(self, location: str, name: str) -> Entry | None:
        """The entry of a query parameter or header, where it has one."""
        return self.parameters.get((location, name.lower() if location == "header" else name))


def load_field_roles(spec_dir: Path) -> FieldRoles:
    """Read and check ``spec_dir/reference-fields.yaml``."""
    path = spec_dir / ROLES_FILE
    source = str(path)
    raw = load_yaml(path)
    if not isinstance(raw, dict):
        raise FieldRolesError(f"{source}#/: expected a mapping with `operation` and `fields`")
    unknown = sorted(set(raw) - {"operation", "fields", "parameters"})
    if unknown:
        raise FieldRolesError(
            f"{source}#/{unknown[0]}: unknown key (expected operation, fields, parameters)"
        )
    operation = raw.get("operation")
    if not isinstance(operation, str) or not operation:
        raise FieldRolesError(f"{source}#/operation: expected an operationId, got {operation!r}")
    fields = _entries(raw.get("fields"), "/fields", None, source)
    parameters = _parameter_entries(raw.get("parameters", {}), source)
    return FieldRoles(source=source, operation=operation, fields=fields, parameters=parameters)


def _parameter_entries(node: Any, source: str) -> dict[tuple[str, str], Entry]:
    """The ``parameters`` section: ``{query: {name: role}, header: {name: role}}``."""
    if not isinstance(node, dict):
        raise FieldRolesError(f"{source}#/parameters: expected a mapping of locations")
    entries: dict[tuple[str, str], Entry] = {}
    for location, names in node.items():
        pointer = join("/parameters", str(location))
        if location not in PARAMETER_LOCATIONS:
            locations = ", ".join(PARAMETER_LOCATIONS)
            raise FieldRolesError(f"{source}#{pointer}: a location is one of {locations}")
        if not isinstance(names, dict):
            raise FieldRolesError(f"{source}#{pointer}: expected a mapping of names to roles")
        roles = [r for r, places in PARAMETER_ROLES.items() if location in places]
        for name, role in names.items():
            where = join(pointer, str(name))
            if role not in roles:
                raise FieldRolesError(
                    f"{source}#{where}: a {location} parameter's role is one of "
                    f"{', '.join(roles)}, got {role!r}"
                )
            key = str(name).lower() if location == "header" else str(name)
            if (location, key) in entries:
                raise FieldRolesError(f"{source}#{where}: the header {name} is listed twice")
            entries[(location, key)] = Entry(role=role, pointer=where)
    return entries


def _entries(node: Any, pointer: str, group: str | None, source: str) -> dict[str, Entry]:
    if not isinstance(node, dict) or not node:
        raise FieldRolesError(f"{source}#{pointer}: expected a mapping of field names to roles")
    return {
        str(name): _entry(value, join(pointer, str(name)), group, source)
        for name, value in node.items()
    }


def _entry(node: Any, pointer: str, group: str | None, source: str) -> Entry:
    """One entry; ``group`` is the role of the group it is in (``None`` at the top level)."""

    def fail(message: str) -> FieldRolesError:
        return FieldRolesError(f"{source}#{pointer}: {message}")

    if isinstance(node, dict):
        extra = sorted(set(node) - {"role", "fields"})
        if extra:
            raise fail(f"unknown key {extra[0]!r} (a group entry has `role` and `fields`)")
        role = node.get("role")
        if not isinstance(role, str) or role not in _GROUPS:
            raise fail(f"a group's role is one of {', '.join(_GROUPS)}, got {role!r}")
        parent = _GROUPS[role][1]
        if group != parent:
            where = (
                f"inside {article(parent)} `{parent}` group"
                if parent
                else "at the top level of the body"
            )
            raise fail(f"{article(role).capitalize()} `{role}` group belongs {where}")
        fields = _entries(node.get("fields"), join(pointer, "fields"), role, source)
        return Entry(role=role, pointer=pointer, fields=fields)
    if not isinstance(node, str):
        raise fail(f"expected a role or a group entry, got {node!r}")
    if node == NO_EFFECT_ROLE:
        return Entry(role=node, pointer=pointer)
    if group is None:
        if node not in _TOP_LEVEL:
            allowed = ", ".join(sorted(_TOP_LEVEL | {NO_EFFECT_ROLE}))
            raise fail(f"a top-level field's role is a group or one of {allowed}, got {node!r}")
        return Entry(role=node, pointer=pointer)
    settings = _SETTINGS[_GROUPS[group][0]]
    if node not in settings:
        allowed = ", ".join(sorted(settings | {NO_EFFECT_ROLE}))
        raise fail(
            f"a field of {article(group)} `{group}` group has one of the roles {allowed}, "
            f"got {node!r}"
        )
    return Entry(role=node, pointer=pointer)


# -- rules for one revision and session kind -------------------------------------------------------


@dataclass(frozen=True)
class Unassigned:
    """A field of a revision that the reference cannot apply: no role, or a schema unfit for it."""

    pointer: str
    """The field's JSON pointer in the revision's document."""
    path: str
    """The field's JSON path in the request body (``group.inner.beta1``)."""
    reason: str


@dataclass(frozen=True)
class Default:
    """A default the revision's document declares for a field that sets a setting: what the
    step uses where the request leaves the field out (in place of the session default)."""

    setting: str
    """``<optimizer>.weight_decay``, ``<optimizer>.momentum``, ``clip``, ..."""
    value: float | bool
    path: str
    """The JSON path of the field that declares it."""
    pointer: str
    """Where the document declares it."""


@dataclass(frozen=True)
class ReferenceRules:
    """Everything the reference needs to know of one revision's request fields."""

    operation: ir.Operation
    body: ir.Ref
    sessions: tuple[tuple[Session, tuple[tuple[str, Rule], ...]], ...]
    """For each session kind, every field's JSON path and rule, in the body's order."""
    unassigned: tuple[Unassigned, ...]
    defaults: tuple[tuple[Session, tuple[Default, ...]], ...] = ()
    """For each session kind, the defaults the document declares for settings, by setting."""
    ignored_defaults: tuple[str, ...] = ()
    """Why declared defaults were not applied, each with its JSON pointer."""
    parameters: tuple[Parameter, ...] = ()
    """The rule of every query parameter and header of the served operation, in its order."""
    unassigned_parameters: tuple[Unassigned, ...] = ()
    """Its query parameters and headers without a role (their ``path``: ``query parameter
    dry_run``)."""

    def declared(self, session: Session) -> tuple[Default, ...]:
        """The defaults the document declares for settings in a session of this kind."""
        return dict(self.defaults).get(session, ())

    @property
    def imports(self) -> list[str]:
        """What the rendered module imports of the rules: the kinds of rule it uses (and
        ``Parameter`` where the operation has query parameters or headers)."""
        used = {type(rule).__name__ for _, rules in self.sessions for _, rule in rules}
        used |= {type(p.rule).__name__ for p in self.parameters}
        return sorted(used | ({"Parameter"} if self.parameters else set()))


def resolve(doc: ir.Document, roles: FieldRoles) -> ReferenceRules:
    """Settle the rules of every request field of ``doc``'s served operation, for each session."""
    operation = doc.operation(roles.operation)
    if operation is None:
        raise FieldRolesError(
            f"{roles.source}#/operation: the document has no operation {roles.operation!r}"
        )
    body = operation.request_body
    if body is None or not isinstance(body.schema, ir.Ref):
        raise FieldRolesError(
            f"{roles.source}#/operation: {roles.operation} needs a request body that is a named schema"
        )
    top = doc.resolve(body.schema)
    if not isinstance(top, ir.Object):
        raise FieldRolesError(
            f"{top.pointer}: the request body of {roles.operation} is not an object"
        )
    walker = _Walker(doc, roles.source)
    sessions = tuple(
        (session, tuple(walker.rules(top, roles.fields, "", session, None))) for session in SESSIONS
    )
    ignored: dict[str, str] = {}
    defaults = tuple(
        (session, _declared_defaults(doc, top, dict(rules), ignored)) for session, rules in sessions
    )
    parameters, unassigned = _parameter_rules(doc, operation, roles)
    return ReferenceRules(
        operation=operation,
        body=body.schema,
        sessions=sessions,
        unassigned=tuple(walker.unassigned.values()),
        defaults=defaults,
        ignored_defaults=tuple(ignored.values()),
        parameters=parameters,
        unassigned_parameters=unassigned,
    )


def _parameter_rules(
    doc: ir.Document, operation: ir.Operation, roles: FieldRoles
) -> tuple[tuple[Parameter, ...], tuple[Unassigned, ...]]:
    """The rule of each query parameter and header of ``operation``, and those without a role
    (refused by the reference where a request carries them)."""
    rules: list[Parameter] = []
    unassigned: list[Unassigned] = []
    for param in operation.parameters:
        if param.location not in PARAMETER_LOCATIONS:
            continue
        entry = roles.parameter(param.location, param.name)
        rule: Rule
        if entry is None:
            rule = Refused(PARAMETER_NOT_IMPLEMENTED)
            where = "query parameter" if param.location == "query" else "header"
            reason = f"it has no entry in {roles.source}"
            unassigned.append(Unassigned(param.pointer, f"{where} {param.name}", reason))
        elif entry.role == IDEMPOTENCY_ROLE:
            rule = IdempotencyKey()
        else:
            rule = NoEffect()
        kind, values = _parameter_type(doc, param.schema)
        location: Literal["query", "header"] = "query" if param.location == "query" else "header"
        rules.append(Parameter(location, param.name, rule, type=kind, values=values))
    return tuple(rules), tuple(unassigned)


def _parameter_type(doc: ir.Document, schema: ir.Schema) -> tuple[Any, tuple[Any, ...] | None]:
    """The JSON type the reference reads a parameter's text as, and its enum's values: a scalar
    the reference checks, else ``"any"`` (not checked)."""
    resolved = doc.resolve(schema)
    if isinstance(resolved, ir.Enum):
        return resolved.type, tuple(resolved.values)
    if isinstance(resolved, ir.Primitive) and resolved.type in (
        "string",
        "integer",
        "number",
        "boolean",
    ):
        return resolved.type, None
    return "any", None


def _declared_defaults(
    doc: ir.Document, top: ir.Object, rules: Mapping[str, Rule], ignored: dict[str, str]
) -> tuple[Default, ...]:
    """The settings the document's declared defaults set in one session kind: a group's field
    wins over a step-level one; two of the same standing that disagree are both dropped (with a
    reason in ``ignored``), as is a default outside its setting's range."""
    chosen: dict[str, tuple[Default, bool]] = {}
    clashes: set[str] = set()
    for path, rule in rules.items():
        if not isinstance(rule, Sets):
            continue
        prop = _property(doc, top, path)
        value = _declared(prop.schema, doc)
        if value is None:
            continue
        pointer = prop.schema.pointer
        for setting in rule.settings:
            name = setting.rpartition(".")[2]
            limits = SETTING_RANGES.get(name)
            kind = SETTING_KINDS.get(name, "number")
            boolean = kind == "boolean"
            if isinstance(value, bool) != boolean:
                problem: str | None = f"is not a {'boolean' if boolean else 'number'}"
            elif kind == "integer" and not float(value).is_integer():
                problem = "is not an integer"
            else:
                problem = limits.problem(value) if limits is not None else None
            if problem:
                ignored[pointer] = (
                    f"{pointer}: the declared default {value!r} of `{path}` {problem}; the "
                    "reference does not apply it"
                )
                continue
            default = Default(setting, value, path, pointer)
            earlier = chosen.get(setting)
            if earlier is None or (earlier[1] and not rule.fallback):
                chosen[setting] = (default, rule.fallback)
            elif earlier[1] == rule.fallback and earlier[0].value != value:
                clashes.add(setting)
                ignored[pointer] = (
                    f"{pointer}: the declared default {value!r} of `{path}` differs from that "
                    f"of `{earlier[0].path}` ({earlier[0].value!r}), and both set {setting}; "
                    "the reference applies neither"
                )
    return tuple(d for setting, (d, _) in chosen.items() if setting not in clashes)


def _property(doc: ir.Document, top: ir.Object, path: str) -> ir.Property:
    """The property of the request body at a JSON path the rules name."""
    obj: ir.Schema = top
    prop = None
    for name in path.split("."):
        assert isinstance(obj, ir.Object)
        prop = obj.property(name)
        assert prop is not None
        obj = doc.resolve(prop.schema)
    assert prop is not None
    return prop


def _declared(schema: ir.Schema, doc: ir.Document) -> float | bool | None:
    """The number (or boolean) a field's schema declares as its default (beside a ``$ref``, or
    on its target), where it declares one."""
    for node in (schema, doc.resolve(schema)):
        value = node.default
        if node.has_default:
            return value if isinstance(value, (bool, int, float)) else None
    return None


class _Walker:
    def __init__(self, doc: ir.Document, source: str) -> None:
        self.doc = doc
        self.source = source
        self.unassigned: dict[str, Unassigned] = {}

    def refuse(self, prop: ir.Property, path: str, reason: str) -> Refused:
        self.unassigned.setdefault(path, Unassigned(prop.schema.pointer, path, reason))
        return Refused(NOT_IMPLEMENTED)

    def rules(
        self,
        obj: ir.Object,
        entries: Mapping[str, Entry],
        prefix: str,
        session: Session,
        optimizer: str | None,
    ) -> list[tuple[str, Rule]]:
        """The rules of ``obj``'s fields and of those of the groups it holds; ``optimizer`` is
        whose settings the fields of ``obj`` override (``None`` at the top level)."""
        result: list[tuple[str, Rule]] = []
        for prop in obj.properties:
            path = f"{prefix}.{prop.name}" if prefix else prop.name
            entry = entries.get(prop.name)
            schema = self.doc.resolve(prop.schema)
            if entry is None:
                reason = f"it has no entry in {self.source}"
                if isinstance(schema, ir.Object) and schema.properties:
                    inner = ", ".join(f"`{path}.{p.name}`" for p in schema.properties)
                    reason += f"; a group of fields, each needing an entry of its own: {inner}"
                result.append((path, self.refuse(prop, path, reason)))
                continue
            if entry.fields is None:
                result.append((path, self.leaf(prop, schema, path, entry, session, optimizer)))
                continue
            if not isinstance(schema, ir.Object):
                reason = f"its role `{entry.role}` needs an object, and its schema is not one"
                result.append((path, self.refuse(prop, path, reason)))
                continue
            rule = self.group(entry.role, obj, entries, session)
            result.append((path, rule))
            if isinstance(rule, Group):
                inner = _GROUPS[entry.role][0]
                result.extend(self.rules(schema, entry.fields, path, session, inner))
        return result

    def group(
        self, role: str, parent: ir.Object, entries: Mapping[str, Entry], session: Session
    ) -> Rule:
        """The rule of a group of overrides in a session: refused where the session does not
        run the group's optimizer; refused too where it is a top-level group of the optimizer
        of the session's rest and the group of the session's own optimizer holds one of those
        (which then applies)."""
        optimizer, within = _GROUPS[role]
        kind = REGISTRY[session]
        if optimizer not in (o.name for o in runs(kind)):
            return Refused(f"{REGISTRY[optimizer].title} overrides in {kind.a_session}")
        nested = f"{session}.{optimizer}"
        if within is None and optimizer != session and self.holds(parent, entries, nested):
            return Refused(
                f"{REGISTRY[optimizer].title} overrides at the top level of {kind.a_session}"
            )
        return Group()

    def holds(self, top: ir.Object, entries: Mapping[str, Entry], nested: str) -> bool:
        """Whether this revision's group that holds groups of the role ``nested``
        (``<optimizer>.<its rest>``) holds one."""
        outer = _GROUPS[nested][1]
        for prop in top.properties:
            entry = entries.get(prop.name)
            schema = self.doc.resolve(prop.schema)
            if entry is None or entry.role != outer or not isinstance(schema, ir.Object):
                continue
            inner = entry.fields or {}
            if any(
                (e := inner.get(p.name)) is not None and e.role == nested for p in schema.properties
            ):
                return True
        return False

    def leaf(
        self,
        prop: ir.Property,
        schema: ir.Schema,
        path: str,
        entry: Entry,
        session: Session,
        optimizer: str | None,
    ) -> Rule:
        if entry.role == NO_EFFECT_ROLE:
            return NoEffect()
        kind = SETTING_KINDS.get(entry.role, "number")
        types = ("boolean",) if kind == "boolean" else ("number", "integer")
        if not (isinstance(schema, ir.Primitive) and schema.type in types):
            reason = (
                f"its role `{entry.role}` needs {article(kind)} {kind}, and its schema is not one"
            )
            return self.refuse(prop, path, reason)
        if entry.role == "step.learning_rate":
            targets = tuple(f"{o.name}.learning_rate" for o in runs(REGISTRY[session]))
            return Sets(targets, fallback=True)
        if entry.role == "step.clip":
            return Sets(("clip",), fallback=True)
        if entry.role == "clip":
            return Sets(("clip",))
        return Sets((f"{optimizer}.{entry.role}",))
