"""What a test needs to know of a revision, found in its document and in spec/'s data.

Tests never assume the shape of the newest revision (the API's next one will not look like the
last): a test that needs a field, a header or a status asks here which revisions have it, and
builds request bodies from the settings it wants (``adam.beta1``), not from field names.

The module's functions answer for the project's own ``spec/``; ``Facts(spec_dir)`` for another
folder of revisions (a copy with a revision appended).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from generator.reading import ir
from generator.reading.fieldroles import (
    ReferenceRules,
    Refused,
    Sets,
    load_field_roles,
    resolve,
)
from generator.reading.revisions import load_index
from generator.reading.statuses import load_statuses
from generator.reading.values import sample
from generator.views.pymodel import attribute_name
from support.packages import REVISIONS
from support.paths import SPEC_DIR
from together_rl_runtime.settings import SESSION_DEFAULTS

SDK_GROUP = "adam_params"
"""Where Together's official SDK (3.1.1, a released client that never changes) sends Adam's
settings."""


class Facts:
    """The revisions of one spec folder, and what tests ask of them."""

    def __init__(self, spec_dir: Path) -> None:
        self.index = load_index(spec_dir)
        self.roles = load_field_roles(spec_dir)
        self.statuses_data = load_statuses(spec_dir)
        self.ids = [revision.id for revision in self.index]
        self.newest = self.ids[-1]
        self._rules: dict[str, ReferenceRules] = {}

    def document(self, revision_id: str) -> ir.Document:
        return self.index.get(revision_id).document

    def raw(self, revision_id: str) -> Any:
        """The revision's document as written: decoded, not parsed."""
        return yaml.safe_load(self.index.get(revision_id).file.read_text(encoding="utf-8"))

    def served(self, revision_id: str) -> ir.Operation:
        """The operation the local reference serves (an optimizer step)."""
        operation = self.document(revision_id).operation(self.roles.operation)
        assert operation is not None
        return operation

    def rules(self, revision_id: str) -> ReferenceRules:
        if revision_id not in self._rules:
            self._rules[revision_id] = resolve(self.document(revision_id), self.roles)
        return self._rules[revision_id]

    def path(self, revision_id: str, session: str = "s-1", operation_id: str | None = None) -> str:
        """The raw path of a step (or of one operation's retrieve) of a session, with the spec
        server's prefix (``/v1``)."""
        op = self.served(revision_id)
        (parameter,) = [p.name for p in op.parameters if p.location == "path"]
        servers = self.document(revision_id).servers
        prefix = urlsplit(servers[0]).path.rstrip("/") if servers else ""
        text = prefix + op.path.replace("{" + parameter + "}", session)
        return text if operation_id is None else f"{text}/{operation_id}"

    def has_idempotency_key(self, revision_id: str) -> bool:
        """Whether the served operation declares an ``Idempotency-Key`` header."""
        return any(
            p.location == "header" and p.name.lower() == "idempotency-key"
            for p in self.served(revision_id).parameters
        )

    def required_headers(self, revision_id: str) -> dict[str, str]:
        """A value for every header the served operation requires (a new idempotency key each
        call), by the header's name on the wire."""
        headers = {}
        for p in self.served(revision_id).parameters:
            if p.location == "header" and p.required:
                if p.name.lower() == "idempotency-key":
                    headers[p.name] = str(uuid.uuid4())
                else:
                    headers[p.name] = str(sample(self.document(revision_id), p.schema))
        return headers

    def required_arguments(self, revision_id: str) -> dict[str, Any]:
        """Keyword arguments of the client method for the served operation's required query
        and header parameters (but the idempotency key, which the client makes)."""
        doc = self.document(revision_id)
        return {
            attribute_name(p.name): sample(doc, p.schema)
            for p in self.served(revision_id).parameters
            if p.required
            and p.location in ("query", "header")
            and p.name.lower() != "idempotency-key"
        }

    def required_body(self, revision_id: str) -> dict[str, Any]:
        """The served operation's required body fields, with sample values."""
        body = self.served(revision_id).request_body
        assert body is not None and body.schema is not None
        result = sample(self.document(revision_id), body.schema)
        assert isinstance(result, dict)
        return result

    def field_for(self, revision_id: str, session: str, setting: str) -> str | None:
        """The JSON path of the field that sets ``setting`` (``adam.beta1``, ``clip``) in a
        session of this kind: a group's own field before a step-level one; ``None`` where
        none does."""
        fields = dict(self.rules(revision_id).sessions)[session]  # type: ignore[index]
        found = [
            (rule.fallback, path)
            for path, rule in fields
            if isinstance(rule, Sets) and setting in rule.settings
        ]
        return min(found)[1] if found else None

    def field_schema(self, revision_id: str, path: str) -> ir.Schema:
        """The schema (references followed) of the body field at a JSON path (``a.b``)."""
        doc = self.document(revision_id)
        body = self.served(revision_id).request_body
        assert body is not None and body.schema is not None
        schema = doc.resolve(body.schema)
        for name in path.split("."):
            assert isinstance(schema, ir.Object), f"{path}: {name} is not in an object"
            prop = schema.property(name)
            assert prop is not None, f"revision {revision_id} has no field {path}"
            schema = doc.resolve(prop.schema)
        return schema

    def is_integer(self, revision_id: str, path: str) -> bool:
        """Whether the body field at a JSON path is typed ``integer``."""
        schema = self.field_schema(revision_id, path)
        return isinstance(schema, ir.Primitive) and schema.type == "integer"

    def body(self, revision_id: str, session: str, settings: Mapping[str, Any]) -> dict[str, Any]:
        """A request body that sets each of ``settings`` (``{"adam.beta1": 0.8}``) in a session
        of this kind, with the revision's required fields."""
        result = self.required_body(revision_id)
        for setting, value in settings.items():
            assert setting in SESSION_DEFAULTS, f"no setting {setting}"
            field = self.field_for(revision_id, session, setting)
            if field is None:
                pytest.skip(f"revision {revision_id} has no field for {setting}")
            self.put_field(revision_id, result, field, value)
        return result

    def put_field(self, revision_id: str, body: dict[str, Any], path: str, value: Any) -> None:
        """Set ``value`` at a JSON path of a request body, making each group on the way with
        the fields the revision requires in it (sample values)."""
        *groups, _ = path.split(".")
        for depth in range(1, len(groups) + 1):
            group = ".".join(groups[:depth])
            if get(body, group) is None:
                schema = self.field_schema(revision_id, group)
                put(body, group, sample(self.document(revision_id), schema))
        put(body, path, value)

    def declared_problem(self, revision_id: str, path: str, value: float) -> str | None:
        """What the revision's model says of a number outside the bounds the revision declares
        for the body field at ``path`` (``must be < 1``); ``None`` where they allow it."""
        bounds = dict(self.field_schema(revision_id, path).constraints)
        for keyword, breaks, sign in (
            ("minimum", value.__lt__, ">="),
            ("maximum", value.__gt__, "<="),
            ("exclusiveMinimum", value.__le__, ">"),
            ("exclusiveMaximum", value.__ge__, "<"),
        ):
            if keyword in bounds and breaks(bounds[keyword]):
                return f"must be {sign} {bounds[keyword]}"
        return None

    def sdk_server(self, *settings: str) -> str:
        """The newest revision that Together's official SDK (3.1.1) steps as its users write
        it: the revision reads each of Adam's ``settings`` from ``adam_params`` (where the SDK
        sends them), and requires nothing the SDK does not send (no body field, nothing inside
        that group); ``adam.learning_rate`` where no setting is named."""
        settings = settings or ("adam.learning_rate",)
        return next(
            r
            for r in reversed(self.ids)
            if all(
                self.field_for(r, "adam", s) == f"{SDK_GROUP}.{s.partition('.')[2]}"
                for s in settings
            )
            and self.required_body(r) == {}
            and sample(self.document(r), self.field_schema(r, SDK_GROUP)) == {}
        )

    def refused_group(self, revision_id: str, session: str) -> tuple[str, str] | None:
        """A top-level group the reference refuses in a session of this kind (one of the other
        optimizer), and why; ``None`` where there is none."""
        fields = dict(self.rules(revision_id).sessions)[session]  # type: ignore[index]
        return next(
            ((p, r.problem) for p, r in fields if isinstance(r, Refused) and "." not in p), None
        )

    def step(self, revision_id: str, number: int) -> str | int:
        """The step number ``number`` as the revision's answers carry it in ``output.step``: the
        decimal string where its schema takes a string (the API's gateway sends one), else the
        integer."""
        doc = self.document(revision_id)
        reply = next(r for r in self.served(revision_id).responses if r.status.startswith("2"))
        operation = doc.resolve(reply.schema)  # type: ignore[arg-type]
        output = operation.property("output")
        assert isinstance(operation, ir.Object) and output is not None
        result = doc.resolve(output.schema)
        step = result.property("step") if isinstance(result, ir.Object) else None
        assert step is not None, f"revision {revision_id} has no output.step"
        schema = doc.resolve(step.schema)
        variants = schema.variants if isinstance(schema, ir.Union) else (schema,)
        strings = any(
            isinstance(v := doc.resolve(variant), (ir.Primitive, ir.AnyValue))
            and getattr(v, "type", "string") == "string"
            for variant in variants
        )
        return str(number) if strings else number

    def status_values(self, revision_id: str) -> list[str]:
        """Every value of the status enum of the served operation's answers."""
        doc = self.document(revision_id)
        reply = next(r for r in self.served(revision_id).responses if r.status.startswith("2"))
        model = doc.resolve(reply.schema)  # type: ignore[arg-type]
        assert isinstance(model, ir.Object)
        status = model.property("status")
        assert status is not None
        enum = doc.resolve(status.schema)
        assert isinstance(enum, ir.Enum)
        return [str(v) for v in enum.values]

    def statuses(self, revision_id: str, kind: str) -> list[str]:
        """The served operation's status values of one kind (``succeeded``, ``failed``, ...)."""
        return [v for v in self.status_values(revision_id) if self.statuses_data.kind(v) == kind]

    def revisions_with(self, setting: str, session: str = "adam") -> list[str]:
        """The revisions that have a field for ``setting`` in a session of this kind."""
        return [r for r in self.ids if self.field_for(r, session, setting) is not None]


def get(data: dict[str, Any], path: str) -> Any:
    """The value at a JSON path (``a.b.c``), ``None`` where there is none."""
    for name in path.split("."):
        if not isinstance(data, dict) or name not in data:
            return None
        data = data[name]
    return data


def put(data: dict[str, Any], path: str, value: Any) -> None:
    """Set ``value`` at a JSON path (``a.b.c``), making the objects on the way."""
    *groups, leaf = path.split(".")
    for group in groups:
        data = data.setdefault(group, {})
    data[leaf] = value


@cache
def of(spec_dir: Path) -> Facts:
    return Facts(spec_dir)


PROJECT = of(SPEC_DIR)
SPEC_DIR = SPEC_DIR
INDEX = PROJECT.index
ROLES = PROJECT.roles
IDS = PROJECT.ids
NEWEST = PROJECT.newest
document = PROJECT.document
raw = PROJECT.raw
served = PROJECT.served
rules = PROJECT.rules
path = PROJECT.path
has_idempotency_key = PROJECT.has_idempotency_key
required_headers = PROJECT.required_headers
required_arguments = PROJECT.required_arguments
required_body = PROJECT.required_body
field_for = PROJECT.field_for
field_schema = PROJECT.field_schema
put_field = PROJECT.put_field
is_integer = PROJECT.is_integer
declared_problem = PROJECT.declared_problem
body = PROJECT.body
refused_group = PROJECT.refused_group
sdk_server = PROJECT.sdk_server
status_values = PROJECT.status_values
statuses = PROJECT.statuses
revisions_with = PROJECT.revisions_with

OLDER = [r for r in REVISIONS if r != NEWEST]
"""Every generated revision but the newest, for a test of what one runtime does behind every
package: the unit tier checks the newest revision's, the e2e tier each of these."""


def unused_parameter(word: str) -> str:
    """``word``, or ``word1``, ``word2``...: a parameter name that neither the newest revision's
    served operation nor the field roles have (a later revision may declare a ``dry_run`` of its
    own)."""
    taken = {p.name.lower() for p in PROJECT.served(NEWEST).parameters}
    taken |= {name.lower() for _, name in PROJECT.roles.parameters}
    return next(f"{word}{n or ''}" for n in range(100) if f"{word}{n or ''}".lower() not in taken)


step = PROJECT.step
