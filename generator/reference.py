"""The view the local reference's templates render: the field rules of one revision, the error
code of a refused non-finite step, the request fields the server knows, and the paths it serves."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import ir
from .errors import SpecError
from .fieldroles import SESSION_DEFAULTS, Default, FieldRoles, ReferenceRules, resolve
from .pymodel import class_name, member_name


@dataclass(frozen=True)
class Routes:
    """Regular expressions of the submit and retrieve paths, matched against raw request paths."""

    submit: str
    retrieve: str
    id_parameter: str
    """The retrieve path's parameter that holds the operation id."""
    session_parameter: str
    """The submit path's parameter that names the training session."""


@dataclass(frozen=True)
class ReferenceView:
    rules: ReferenceRules
    body_model: str
    non_finite_code: str
    """The error-code member for non-finite gradients: NON_FINITE_LOSS where the revision has it,
    else INTERNAL_ERROR."""
    known_fields: dict[str, Any]
    """The body's field names as a tree (``None`` leaves), for ignoring unknown fields."""
    routes: Routes

    @property
    def declared_defaults(self) -> list[Default]:
        """The defaults the document declares for settings, each field once, in body order."""
        seen: dict[str, Default] = {}
        for _, defaults in self.rules.defaults:
            for d in defaults:
                seen.setdefault(d.path, d)
        return sorted(seen.values(), key=lambda d: self._order.index(d.path))

    @property
    def _order(self) -> list[str]:
        return [path for _, rules in self.rules.sessions for path, _ in rules]

    @property
    def session_defaults_text(self) -> str:
        """The session defaults in words: ``Adam: learning_rate 0.0001, ...; clip 1.0``."""
        groups = {"adam": "Adam", "muon": "Muon"}
        parts = []
        for group, title in groups.items():
            values = [
                f"{setting.partition('.')[2]} {value!r}"
                for setting, value in SESSION_DEFAULTS.items()
                if setting.startswith(group + ".")
            ]
            parts.append(f"{title}: {', '.join(values)}")
        parts.append(f"clip {SESSION_DEFAULTS['clip']!r}")
        return "; ".join(parts)

    @property
    def required_headers(self) -> tuple[str, ...]:
        """The served operation's required header parameters."""
        return tuple(
            p.name for p in self.rules.operation.parameters if p.location == "header" and p.required
        )


def reference_view(
    doc: ir.Document, roles: FieldRoles, retrieve_path: str, id_parameter: str
) -> ReferenceView:
    """The reference of ``doc``: it serves ``roles.operation`` and reads operations back at
    ``retrieve_path``, whose path parameter ``id_parameter`` takes the operation's id."""
    rules = resolve(doc, roles)
    return ReferenceView(
        rules=rules,
        body_model=class_name(rules.body.name),
        non_finite_code=_non_finite_code(doc, rules.operation),
        known_fields=_tree(doc, rules.body),
        routes=Routes(
            _path_pattern(rules.operation.path),
            _path_pattern(retrieve_path),
            id_parameter,
            _session_parameter(rules.operation),
        ),
    )


def _session_parameter(operation: ir.Operation) -> str:
    """The path parameter of the served operation that names the training session."""
    names = [p.name for p in operation.parameters if p.location == "path"]
    if len(names) != 1:
        raise SpecError(
            operation.pointer,
            "the local reference serves an operation with one path parameter (the session)",
        )
    return names[0]


def _non_finite_code(doc: ir.Document, operation: ir.Operation) -> str:
    """The error code enum's member for a step refused for non-finite gradients."""
    values = [
        str(value)
        for schema in doc.schemas.values()
        if isinstance(schema, ir.Enum)
        for value in schema.values
        if str(value).endswith(("_NON_FINITE_LOSS", "_INTERNAL_ERROR"))
    ]
    code = next((v for v in values if v.endswith("_NON_FINITE_LOSS")), None)
    code = code or next((v for v in values if v.endswith("_INTERNAL_ERROR")), None)
    if code is None:
        raise SpecError(
            operation.pointer,
            "the local reference needs an error code ending in _NON_FINITE_LOSS or _INTERNAL_ERROR",
        )
    return member_name(code)


def _tree(doc: ir.Document, schema: ir.Schema, seen: frozenset[str] = frozenset()) -> Any:
    """The field names of an object schema as a tree; a recursive schema is followed once."""
    resolved = doc.resolve(schema)
    if not isinstance(resolved, ir.Object):
        return None
    if isinstance(schema, ir.Ref):
        if schema.name in seen:
            return None
        seen = seen | {schema.name}
    return {p.name: _tree(doc, p.schema, seen) for p in resolved.properties}


def _path_pattern(path: str) -> str:
    """``/a/{b}/c`` as ``(?:.*)/a/(?P<b>[^/]+)/c``: any prefix (``/v1``), one segment per parameter."""
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(path))
    return "(?:.*)" + pattern
