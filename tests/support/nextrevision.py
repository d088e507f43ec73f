"""The API's next revisions, made up: a catalogue of the kinds of change a revision of the served
operation can make, each applied to the newest document of ``spec/``.

The API's real next revision arrives after the code and the tests are written, and it will not
look like the last one: it will be some mix of the changes an OpenAPI document can make (those
an OpenAPI diff tool such as oasdiff checks for: fields, groups and parameters added, removed or
renamed; required and optional; types widened and narrowed; enum values; defaults and bounds;
responses, their schemas and media types; components renamed; descriptions). :data:`KINDS` holds
one small function for each kind, applied to a decoded document; every place it changes is found
through the generator's parser, ``spec/reference-fields.yaml`` and ``spec/statuses.yaml``
(:class:`Places`), never named here, so that each kind applies to whatever the newest revision is.

Some kinds cannot be absorbed without a maintainer's decision (a new field's or group's role, a
new status's kind): ``generate`` prints a warning for them. Such a kind says so
(:attr:`Kind.decision`), and :func:`append` checks that ``generate`` printed the warning, then
gives the decision the way the README tells a user to (an entry in the copy's
``spec/reference-fields.yaml`` or ``spec/statuses.yaml``) and generates again.

Run as a script (what ``nox -s next-revision`` does: ``--each``, then ``--all``)::

    python tests/support/nextrevision.py --list
    python tests/support/nextrevision.py --kind NAME [--into DIR] [-- PYTEST ARGS]
    python tests/support/nextrevision.py --each [--into DIR] [-- PYTEST ARGS]
    python tests/support/nextrevision.py --all [--into DIR] [-- PYTEST ARGS]

``--kind`` appends one kind to a fresh copy of the project and runs the fast tier there
(``-m "not slow"``: tests/unit and runtime/tests/unit, or what of them the pytest arguments
given name); ``--each`` does so for every kind, each in its own copy (stopping each run at its
first failure); ``--all`` appends every kind together in one revision (a kind that cannot share a
revision, the identical one, as the next) and runs the whole suite.
"""

from __future__ import annotations

import argparse
import compileall
import copy
import datetime
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from generator.pointer import split  # noqa: E402
from generator.reading import ir  # noqa: E402
from generator.reading.fieldroles import ROLES_FILE, load_field_roles  # noqa: E402
from generator.reading.parser import parse_document  # noqa: E402
from generator.reading.revisions import load_index  # noqa: E402
from generator.reading.statuses import STATUSES_FILE, load_statuses  # noqa: E402
from together_rl_runtime.settings import (  # noqa: E402
    NO_EFFECT_ROLE,
    SESSION_DEFAULTS,
    TOP_LEVEL_ROLES,
)

IDEMPOTENCY_HEADER = "Idempotency-Key"
NEW_FIELD = "amsgrad"
NEW_FIELD_DESCRIPTION = "Whether to use the AMSGrad variant of Adam for this step"
NEW_STATUS_WORDS = ("CANCELLED", "ABORTED", "EXPIRED")
DESCRIPTION_SUFFIX = " Resending a request with the same idempotency key returns its operation."
FAST_TIER = ["-m", "not slow"]
"""The tests of tests/unit and runtime/tests/unit, by their marker: pytest arguments that name
tests narrow it to those."""


def at(raw: Any, pointer: str) -> Any:
    """The node of ``raw`` at a JSON pointer."""
    node = raw
    for token in split(pointer):
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def _unused(taken: set[str], candidates: Iterator[str]) -> str:
    return next(name for name in candidates if name not in taken)


def _numbered(word: str) -> Iterator[str]:
    """``word``, ``word1``, ``word2``, ...: candidates for a new name."""
    return (f"{word}{n or ''}" for n in range(100))


class Places:
    """Where a decoded document keeps what the made-up changes touch, found through the
    generator's parser and the field roles of ``spec_dir``."""

    def __init__(self, raw: dict[str, Any], spec_dir: Path) -> None:
        self.raw = raw
        self.spec_dir = spec_dir
        self.doc = parse_document(raw, source="next.yaml")
        self.roles = load_field_roles(spec_dir)
        operation = self.doc.operation(self.roles.operation)
        assert operation is not None and operation.request_body is not None
        self.operation = operation
        body = self.doc.resolve(operation.request_body.schema)  # type: ignore[arg-type]
        assert isinstance(body, ir.Object)
        self.body = body

    @property
    def post(self) -> dict[str, Any]:
        """The served operation, as written in the document."""
        return at(self.raw, self.operation.pointer)  # type: ignore[no-any-return]

    def node(self, schema: ir.Schema) -> dict[str, Any]:
        """The document's node of a schema (a referenced one's target)."""
        return at(self.raw, self.doc.resolve(schema).pointer)  # type: ignore[no-any-return]

    def set_header(self, parameter: dict[str, Any]) -> str:
        """Declare a header parameter on the served operation, replacing one of the same name
        (headers compare without case); what was done."""
        parameters = self.post.setdefault("parameters", [])
        name = parameter["name"].lower()
        for position, p in enumerate(parameters):
            if p.get("in") == "header" and str(p.get("name", "")).lower() == name:
                parameters[position] = parameter
                return f"the header {parameter['name']} redeclared"
        parameters.append(parameter)
        return f"a header {parameter['name']}"

    def taken_names(self) -> set[str]:
        """The names a new top-level field without a role cannot take: the body's fields and
        every top-level name ``spec/reference-fields.yaml`` gives a role."""
        return {p.name for p in self.body.properties} | set(self.roles.fields)

    def add_body_field(self, name: str, schema: dict[str, Any], required: bool = False) -> None:
        """Declare a top-level field of the request body (``required`` in it)."""
        node = self.node(self.body)
        node.setdefault("properties", {})[name] = schema
        if required:
            node.setdefault("required", []).append(name)

    def group_field(self, role: str) -> ir.Property:
        """The first body field that is a group of this role (``adam``)."""
        return next(
            prop
            for prop in self.body.properties
            if (entry := self.roles.fields.get(prop.name)) is not None
            and entry.role == role
            and isinstance(self.doc.resolve(prop.schema), ir.Object)
        )

    def group(self, role: str) -> ir.Object:
        """The schema of the first body field that is a group of this role (``adam``)."""
        schema = self.doc.resolve(self.group_field(role).schema)
        assert isinstance(schema, ir.Object)
        return schema

    def setting(self, group_role: str, role: str) -> ir.Property:
        """The field of a group of ``group_role`` whose role is ``role`` (``weight_decay``)."""
        group = self.group(group_role)
        entries = next(e for e in self.roles.fields.values() if e.role == group_role).fields
        return next(
            p for p in group.properties if (e := (entries or {}).get(p.name)) and e.role == role
        )

    def setting_node(self, group_role: str, role: str) -> tuple[str, dict[str, Any]]:
        """The pointer and the document's node of the schema of :meth:`setting`."""
        pointer = self.setting(group_role, role).schema.pointer
        return pointer, at(self.raw, pointer)

    def reply(self) -> ir.Object:
        """The object the served operation answers with on success."""
        response = next(
            r for r in self.operation.responses if r.status.startswith("2") and r.schema
        )
        reply = self.doc.resolve(response.schema)  # type: ignore[arg-type]
        assert isinstance(reply, ir.Object)
        return reply

    def status(self) -> ir.Enum:
        """The status enum of the served operation's answers."""
        status = self.reply().property("status")
        assert status is not None
        enum = self.doc.resolve(status.schema)
        assert isinstance(enum, ir.Enum)
        return enum

    def _reply_objects(self) -> list[tuple[ir.Property, ir.Object]]:
        return [
            (p, schema)
            for p in self.reply().properties
            if isinstance(schema := self.doc.resolve(p.schema), ir.Object)
        ]

    def error_codes(self) -> ir.Enum:
        """The enum of error codes of a failed operation (the reply's object that has one)."""
        return next(
            enum
            for _, schema in self._reply_objects()
            for p in schema.properties
            if isinstance(enum := self.doc.resolve(p.schema), ir.Enum)
        )

    def output(self) -> ir.Object:
        """The result of a succeeded operation: the reply's object that holds no enum."""
        return next(
            schema
            for _, schema in self._reply_objects()
            if not any(isinstance(self.doc.resolve(p.schema), ir.Enum) for p in schema.properties)
        )

    def session_parameter(self) -> ir.Parameter:
        """The served operation's path parameter (the training session)."""
        (parameter,) = [p for p in self.operation.parameters if p.location == "path"]
        return parameter

    def error_response(self) -> ir.Response:
        """The served operation's catch-all error response."""
        return next(r for r in self.operation.responses if not r.status.startswith("2"))

    def component_names(self) -> set[str]:
        return set(self.raw.get("components", {}).get("schemas", {}))


# -- the kinds of change ----------------------------------------------------------------------


@dataclass(frozen=True)
class Done:
    """What a kind did to a document, and the decision it needs, if any."""

    what: str
    warning: str | None = None
    """A fragment of the warning ``generate`` prints until the decision is given."""
    decide: Callable[[Path], str] | None = None
    """Gives the decision in a spec folder, as the README says; what was decided."""


@dataclass(frozen=True)
class Kind:
    """One kind of change a revision can make."""

    name: str
    change: Callable[[Places], Done]
    decision: str | None = None
    """What a maintainer decides for it (``None``: nothing; regeneration absorbs it)."""
    alone: bool = False
    """Whether it needs a revision of its own (it cannot share one with other changes)."""

    @property
    def summary(self) -> str:
        return " ".join((self.change.__doc__ or "").split("\n\n")[0].split())


KINDS: dict[str, Kind] = {}


def kind(
    decision: str | None = None, alone: bool = False
) -> Callable[[Callable[[Places], Done]], Callable[[Places], Done]]:
    """Register a kind of change under its function's name."""

    def register(change: Callable[[Places], Done]) -> Callable[[Places], Done]:
        KINDS[change.__name__] = Kind(change.__name__, change, decision, alone)
        return change

    return register


def _add_entry(spec_dir: Path, filename: str, key: str, line: str) -> None:
    """Add ``line`` (an entry of the file's top-level mapping ``key``) to a data file of the spec
    folder, as a maintainer would write it: after the mapping's last entry. Checks that it reads
    so."""
    path = spec_dir / filename
    lines = path.read_text(encoding="utf-8").rstrip("\n").split("\n")
    assert line.partition(":")[0] not in yaml.safe_load("\n".join(lines))[key], line
    start = lines.index(f"{key}:")
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i] and lines[i][0] not in " #"),
        len(lines),
    )
    while not lines[end - 1].strip():  # the blank lines before the next mapping stay after it
        end -= 1
    lines.insert(end, f"  {line}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    name = line.partition(":")[0]
    assert name in yaml.safe_load(path.read_text(encoding="utf-8"))[key], line


def role_decision(field: str, role: str) -> Callable[[Path], str]:
    """The decision that a new top-level body field has a role in the local reference."""

    def decide(spec_dir: Path) -> str:
        _add_entry(spec_dir, ROLES_FILE, "fields", f"{field}: {role}")
        return f"{ROLES_FILE}: {field}: {role}"

    return decide


def status_decision(value: str, status_kind: str) -> Callable[[Path], str]:
    """The decision of what a new status value means."""

    def decide(spec_dir: Path) -> str:
        _add_entry(spec_dir, STATUSES_FILE, "statuses", f"{value}: {status_kind}")
        return f"{STATUSES_FILE}: {value}: {status_kind}"

    return decide


def parameter_decision(*parameters: tuple[str, str]) -> Callable[[Path], str]:
    """The decision that new query parameters or headers (``(location, name)``) are checked
    and have no local effect, written in the ``parameters`` section (the file's last mapping)."""

    def decide(spec_dir: Path) -> str:
        path = spec_dir / ROLES_FILE
        lines = path.read_text(encoding="utf-8").rstrip("\n").split("\n")
        for location, name in parameters:
            heading = f"  {location}:"
            if heading not in lines:
                lines.append(heading)
            lines.insert(lines.index(heading) + 1, f"    {name}: {NO_EFFECT_ROLE}")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written = yaml.safe_load(path.read_text(encoding="utf-8"))["parameters"]
        assert all(written[location][name] == NO_EFFECT_ROLE for location, name in parameters)
        return f"{ROLES_FILE}: " + ", ".join(
            f"{n} ({loc}): {NO_EFFECT_ROLE}" for loc, n in parameters
        )

    return decide


def _no_role_warning(path: str) -> str:
    return f"the request field `{path}` of revision"


def _without_role(what: str, field: str) -> Done:
    """A kind that added the top-level field ``field``, which has no role until it is given
    one: no local effect."""
    return Done(what, _no_role_warning(field), role_decision(field, NO_EFFECT_ROLE))


def _no_kind_warning(value: str) -> str:
    return f"the status value `{value}` of revision"


def _new_status(places: Places, words: tuple[str, ...]) -> str:
    """A status value the enum and ``spec/statuses.yaml`` do not have yet."""
    values = [str(v) for v in places.status().values]
    prefix = os.path.commonprefix(values).rpartition("_")[0]
    known = set(values) | set(load_statuses(places.spec_dir).kinds)
    return _unused(known, (f"{prefix}_{word}" for word in words))


# Headers and the operation


@kind()
def required_idempotency_key(places: Places) -> Done:
    """A required ``Idempotency-Key`` header on the served operation (made required where it
    was optional), as Together's SDK sends it."""
    return Done(
        places.set_header(
            {
                "name": IDEMPOTENCY_HEADER,
                "in": "header",
                "required": True,
                "description": "Required key that makes retries return the original operation; "
                "use a new key for changed request bodies.",
                "schema": {"type": "string"},
            }
        )
    )


@kind()
def operation_description_changed(places: Places) -> Done:
    """The served operation's description changed."""
    post = places.post
    post["description"] = (post.get("description") or "").rstrip() + DESCRIPTION_SUFFIX
    return Done("the operation's description changed")


@kind(decision="a role for the new query parameter and the new header")
def query_header_and_conflict(places: Places) -> Done:
    """An optional query parameter ``dry_run``, an optional header with an enum and a ``409``
    response with its own schema."""
    parameters = places.post.setdefault("parameters", [])
    roles = load_field_roles(places.spec_dir).parameters
    taken = {str(p.get("name", "")).lower() for p in parameters} | {n for _, n in roles}
    query = _unused(taken, _numbered("dry_run"))
    header = _unused(taken, _numbered("step-priority")).title()
    parameters.append(
        {
            "name": query,
            "in": "query",
            "required": False,
            "description": "Validate the step without applying it.",
            "schema": {"type": "boolean", "default": False},
        }
    )
    places.set_header(
        {
            "name": header,
            "in": "header",
            "required": False,
            "description": "How soon the step should run.",
            "schema": {"type": "string", "enum": ["low", "normal", "high"]},
        }
    )
    name = _unused(places.component_names(), _numbered("StepConflictError"))
    places.raw["components"]["schemas"][name] = {
        "type": "object",
        "description": "Another step of the session is in progress.",
        "required": ["message"],
        "properties": {
            "message": {"type": "string", "description": "What conflicts"},
            "operation_id": {"type": "string", "description": "The step in progress"},
        },
    }
    places.post["responses"]["409"] = {
        "description": "A step of the session is in progress",
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
    }
    return Done(
        f"a query parameter {query}, a header {header}, a 409 answered with {name}",
        f"the query parameter {query} of revision",
        parameter_decision(("query", query), ("header", header)),
    )


@kind()
def path_parameter_description_changed(places: Places) -> Done:
    """The description of the session's path parameter changed."""
    parameter = places.session_parameter()
    node = at(places.raw, parameter.pointer)
    node["description"] = (node.get("description") or "").rstrip(".") + " (its UUID)."
    return Done(f"the description of {parameter.pointer} changed")


@kind()
def path_parameter_renamed(places: Places) -> Done:
    """The session's path parameter renamed, in its declaration and in every path."""
    old = places.session_parameter().name
    new = _unused({p.name for p in places.operation.parameters}, _numbered(f"training_{old}"))
    at(places.raw, places.session_parameter().pointer)["name"] = new
    places.raw["paths"] = {
        path.replace("{" + old + "}", "{" + new + "}"): item
        for path, item in places.raw["paths"].items()
    }
    return Done(f"the path parameter {old} renamed {new}")


@kind()
def response_status_added(places: Places) -> Done:
    """A ``429`` response of the served operation, answered with its error schema."""
    error = places.error_response()
    responses = places.post["responses"]
    responses["429"] = copy.deepcopy(responses[error.status])
    return Done(f"a 429 response like the operation's {error.status} one")


@kind()
def error_media_type_changed(places: Places) -> Done:
    """The error response's media type becomes ``application/problem+json``."""
    error = places.error_response()
    node = at(places.raw, error.pointer)
    while "$ref" in node:
        node = at(places.raw, node["$ref"].removeprefix("#"))
    node["content"] = {"application/problem+json": node["content"].pop(error.content_type)}
    return Done(f"the media type of {error.pointer} changed to application/problem+json")


# The request body: top level


@kind(decision="the role of the new group")
def new_group(places: Places) -> Done:
    """A new optional group of optimizer settings ``lion_params`` (a component of its own),
    which the runtime does not implement: given the role ``none`` (checked, no local effect)."""
    field = _unused(places.taken_names(), _numbered("lion_params"))
    name = _unused(places.component_names(), _numbered("RLLionParams"))
    places.raw["components"]["schemas"][name] = {
        "type": "object",
        "description": "Per-step Lion optimizer overrides",
        "properties": {
            "learning_rate": {"type": "number", "description": "Learning rate for Lion"},
            "beta1": {"type": "number", "description": "Interpolation factor of the update"},
            "beta2": {"type": "number", "description": "Decay rate of the momentum"},
            "weight_decay": {"type": "number", "description": "Weight decay coefficient"},
        },
    }
    places.add_body_field(field, {"$ref": f"#/components/schemas/{name}"})
    return _without_role(f"a new group {field} ({name})", field)


@kind()
def new_top_level_field_with_known_role(places: Places) -> Done:
    """A new optional top-level field whose name ``spec/reference-fields.yaml`` already gives a
    step-level role (a field an older revision had)."""
    taken = {p.name for p in places.body.properties}
    field, entry = next(
        (name, entry)
        for name, entry in places.roles.fields.items()
        if entry.role in TOP_LEVEL_ROLES and name not in taken
    )
    places.add_body_field(
        field,
        {"type": "number", "description": f"The step's {entry.role.partition('.')[2]}"},
    )
    return Done(f"a new top-level field {field} ({entry.role})")


@kind(decision="the role of the new field")
def new_required_top_level_field(places: Places) -> Done:
    """A new required top-level string field, which has no local effect (role ``none``)."""
    field = _unused(places.taken_names(), _numbered("run_label"))
    places.add_body_field(
        field,
        {"type": "string", "description": "A label for the step in the session's history"},
        required=True,
    )
    return _without_role(f"a new required top-level field {field}", field)


# The request body: inside a group


@kind()
def new_field_in_group(places: Places) -> Done:
    """A new optional boolean field inside the Adam group, which
    ``spec/reference-fields.yaml`` already knows (AMSGrad)."""
    group = places.group("adam")
    field = _unused({p.name for p in group.properties}, _numbered(NEW_FIELD))
    at(places.raw, group.pointer).setdefault("properties", {})[field] = {
        "type": "boolean",
        "description": NEW_FIELD_DESCRIPTION,
    }
    return Done(f"a new field {field} in {group.pointer}")


@kind()
def group_requires_learning_rate(places: Places) -> Done:
    """The Adam group made ``required: [its learning-rate field]``."""
    field = places.setting("adam", "learning_rate")
    group = places.group("adam")
    at(places.raw, group.pointer).setdefault("required", []).append(field.name)
    return Done(f"{group.pointer} requires {field.name}")


@kind()
def optional_field_removed(places: Places) -> Done:
    """An optional field of the Adam group removed (its epsilon)."""
    field = places.setting("adam", "eps")
    group = places.group("adam")
    del at(places.raw, group.pointer)["properties"][field.name]
    return Done(f"{field.name} removed from {group.pointer}")


@kind()
def integer_setting_widened_to_number(places: Places) -> Done:
    """The Muon group's integer setting (Newton-Schulz steps) typed ``number``."""
    pointer, node = places.setting_node("muon", "newton_schulz_steps")
    node["type"] = "number"
    return Done(f"{pointer} integer -> number")


@kind()
def format_added(places: Places) -> Done:
    """The Muon group's learning rate declares ``format: double``."""
    pointer, node = places.setting_node("muon", "learning_rate")
    node["format"] = "double"
    return Done(f"{pointer} format double")


@kind()
def setting_made_nullable(places: Places) -> Done:
    """The Adam group's second beta accepts ``null`` (a type list with ``null``)."""
    pointer, node = places.setting_node("adam", "beta2")
    node["type"] = [node["type"], "null"]
    return Done(f"{pointer} nullable")


@kind()
def bounds_added(places: Places) -> Done:
    """The Adam group's first beta bounded: ``minimum: 0``, ``exclusiveMaximum: 1``."""
    pointer, node = places.setting_node("adam", "beta1")
    node.update({"minimum": 0, "exclusiveMaximum": 1})
    return Done(f"{pointer} bounded to [0, 1)")


@kind()
def integer_setting_bounded(places: Places) -> Done:
    """The Muon group's Newton-Schulz steps bounded (``minimum: 1``, ``maximum: 10``), tighter
    than the runtime's range."""
    pointer, node = places.setting_node("muon", "newton_schulz_steps")
    node.update({"minimum": 1, "maximum": 10})
    return Done(f"{pointer} bounded to [1, 10]")


@kind()
def default_changed(places: Places) -> Done:
    """The declared default of the Adam group's weight decay changed (declared where there was
    none)."""
    decay = places.setting("adam", "weight_decay")
    before = decay.schema.default if decay.schema.has_default else None
    after = 0.1 if before != 0.1 else 0.05
    at(places.raw, decay.schema.pointer)["default"] = after
    return Done(f"the default of {decay.schema.pointer} changed from {before} to {after}")


@kind()
def default_added_as_the_session_default(places: Places) -> Done:
    """A default declared for the Muon group's momentum, equal to the session default."""
    pointer, node = places.setting_node("muon", "momentum")
    node["default"] = value = SESSION_DEFAULTS["muon.momentum"]
    return Done(f"the default {value} declared at {pointer}")


@kind()
def field_deprecated(places: Places) -> Done:
    """The Adam group's clip field marked ``deprecated: true``."""
    pointer, node = places.setting_node("adam", "clip")
    node["deprecated"] = True
    return Done(f"{pointer} deprecated")


@kind()
def field_description_changed(places: Places) -> Done:
    """The description of the Muon group's weight decay changed."""
    pointer, node = places.setting_node("muon", "weight_decay")
    node["description"] = (node.get("description") or "").rstrip(".") + " (decoupled)."
    return Done(f"the description of {pointer} changed")


@kind()
def component_renamed(places: Places) -> Done:
    """The Adam group's component renamed with the same shape (every ``$ref`` to it too)."""
    ref = places.group_field("adam").schema
    assert isinstance(ref, ir.Ref)
    old = ref.name
    new = _unused(
        places.component_names(),
        (f"{old.removesuffix('Params')}W{p}" for p in ("Params", "Settings")),
    )
    schemas = places.raw["components"]["schemas"]
    places.raw["components"]["schemas"] = {new if k == old else k: v for k, v in schemas.items()}
    _replace_refs(places.raw, f"#/components/schemas/{old}", f"#/components/schemas/{new}")
    return Done(f"the component {old} renamed {new}")


def _replace_refs(node: Any, old: str, new: str) -> None:
    if isinstance(node, dict):
        if node.get("$ref") == old:
            node["$ref"] = new
        for value in node.values():
            _replace_refs(value, old, new)
    elif isinstance(node, list):
        for value in node:
            _replace_refs(value, old, new)


# Statuses and error codes


@kind(decision="the kind of the new status")
def new_terminal_status(places: Places) -> Done:
    """A new terminal value of the status enum (a cancellation)."""
    enum = places.status()
    value = _new_status(places, NEW_STATUS_WORDS)
    at(places.raw, enum.pointer)["enum"].append(value)
    return Done(
        f"a new terminal status {value} (cancelled)",
        _no_kind_warning(value),
        status_decision(value, "cancelled"),
    )


@kind(decision="the kind of the new status")
def in_progress_status_replaced(places: Places) -> Done:
    """The first in-progress status value after the enum's default (``PENDING``-like) replaced
    by a ``QUEUED`` one, and a new error code."""
    enum = places.status()
    kinds = load_statuses(places.spec_dir)
    old = next(
        str(v)
        for v in enum.values
        if kinds.kind(str(v)) == "in-progress" and not (enum.has_default and v == enum.default)
    )
    new = _new_status(places, ("QUEUED", "WAITING"))
    values = at(places.raw, enum.pointer)["enum"]
    values[values.index(old)] = new
    codes = places.error_codes()
    prefix = os.path.commonprefix([str(v) for v in codes.values]).rpartition("_")[0]
    code = _unused(
        {str(v) for v in codes.values}, (f"{prefix}_{w}" for w in ("PREEMPTED", "EVICTED"))
    )
    at(places.raw, codes.pointer)["enum"].append(code)
    return Done(
        f"the status {old} replaced by {new}; a new error code {code}",
        _no_kind_warning(new),
        status_decision(new, "in-progress"),
    )


@kind()
def error_code_removed(places: Places) -> Done:
    """An error code the runtime never reports removed from the error-code enum."""
    codes = places.error_codes()
    runtime = "\n".join(
        p.read_text(encoding="utf-8")
        for p in (ROOT / "runtime" / "together_rl_runtime").rglob("*.py")
    )
    prefix = os.path.commonprefix([str(v) for v in codes.values])
    code = next(
        str(v)
        for v in codes.values
        if not (codes.has_default and v == codes.default)
        and not re.search(rf"\b{str(v).removeprefix(prefix)}\b", runtime)
    )
    at(places.raw, codes.pointer)["enum"].remove(code)
    return Done(f"the error code {code} removed")


# Responses


@kind()
def response_fields_added(places: Places) -> Done:
    """New optional fields of a succeeded step's result: ``grad_norm`` (a number) and
    ``metrics`` (a map of numbers)."""
    output = places.output()
    properties = at(places.raw, output.pointer).setdefault("properties", {})
    properties["grad_norm"] = {"type": "number", "description": "The gradient norm before clipping"}
    properties["metrics"] = {
        "type": "object",
        "description": "The step's metrics by name",
        "additionalProperties": {"type": "number"},
    }
    return Done(f"new fields grad_norm and metrics in {output.pointer}")


@kind()
def response_union_narrowed(places: Places) -> Done:
    """The result's field typed ``oneOf[string, integer]`` (the step number) narrowed to
    ``integer``; found by its shape."""
    output = places.output()
    field = next(
        p
        for p in output.properties
        if isinstance(p.schema, ir.Union)
        and {getattr(v, "type", None) for v in p.schema.variants} == {"string", "integer"}
    )
    node = at(places.raw, field.schema.pointer)
    del node[field.schema.kind]
    node["type"] = "integer"
    if isinstance(node.get("example"), str):
        node["example"] = int(node["example"])
    return Done(f"{field.schema.pointer} narrowed to integer")


@kind()
def response_field_nullable(places: Places) -> Done:
    """The failed operation's error message may be ``null``."""
    error = next(s for _, s in places._reply_objects() if s is not places.output())
    message = next(
        p
        for p in error.properties
        if isinstance(p.schema, ir.Primitive) and p.schema.type == "string"
    )
    at(places.raw, message.schema.pointer)["type"] = ["string", "null"]
    return Done(f"{message.schema.pointer} nullable")


@kind(alone=True)
def identical(places: Places) -> Done:
    """A revision identical to the one before (the API changed elsewhere)."""
    return Done("no change")


# -- appending a revision ---------------------------------------------------------------------

DEFAULT_KINDS = (
    "required_idempotency_key",
    "new_field_in_group",
    "new_terminal_status",
    "default_changed",
    "operation_description_changed",
)
"""The kinds of :func:`append` by default (the revision that
tests/e2e/test_next_revision_appended.py reads)."""


def change(
    raw: dict[str, Any], spec_dir: Path, kinds: tuple[str, ...] = DEFAULT_KINDS
) -> list[Done]:
    """Change the newest revision's document ``raw`` into a next one, in place, by each of
    ``kinds`` in turn (each finds its places in the document as the kinds before left it)."""
    return [KINDS[name].change(Places(raw, spec_dir)) for name in kinds]


def copy_project(target: Path) -> Path:
    """The project's files as git sees them (tracked, and untracked but not ignored; in a copy
    that is no git checkout, every file but what .gitignore names), with the shared material
    linked beside the copy as it is beside the project."""
    if (ROOT / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout.decode()
        for name in filter(None, listed.split("\0")):
            source = ROOT / name
            if source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
    else:
        ignored = [
            line.strip().rstrip("/")
            for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        ]
        shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(*ignored))
    shared = ROOT.parent / "shared"
    if shared.is_dir() and not (target.parent / "shared").exists():
        (target.parent / "shared").symlink_to(shared)
    return compiled(target)


def compiled(project: Path) -> Path:
    """``project`` with the bytecode of its generator and runtime written, as an installed
    package has it: each process in the copy then starts as one of the project does, where
    ``PYTHONDONTWRITEBYTECODE`` would have every one of them compile both again. A file changed
    later is compiled again when it is imported, as Python checks each file's bytecode."""
    for folder in (project / "generator", project / "runtime" / "together_rl_runtime"):
        if folder.is_dir():
            compileall.compile_dir(folder, quiet=1)
    return project


def environment(project: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (else this process's environment) for a process in the copy ``project``, with the
    copy's own runtime first on ``PYTHONPATH``: its generator refuses the runtime installed here,
    which is the project's."""
    variables = dict(os.environ if env is None else env)
    rest = variables.get("PYTHONPATH")
    runtime = str(project.resolve() / "runtime")
    variables["PYTHONPATH"] = os.pathsep.join([runtime, *([rest] if rest else [])])
    return variables


class AppendFailed(Exception):
    """Appending a made-up revision went wrong: a command failed, or a decision's warning was
    not what the README says ``generate`` prints."""


def _generator(
    project: Path, command: list[str], env: dict[str, str] | None
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "generator", *command],
        cwd=project,
        env=environment(project, env),
        capture_output=True,
        text=True,
    )
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    if result.returncode:
        raise AppendFailed(f"`{command[0]}` failed")
    return result


def append(
    project: Path, env: dict[str, str] | None = None, kinds: tuple[str, ...] = DEFAULT_KINDS
) -> tuple[str, list[subprocess.CompletedProcess[str]]]:
    """Append a next revision made of ``kinds`` to ``project`` and generate (with ``env``, else
    this process's environment), giving every decision the kinds need once ``generate`` has
    warned for it, and generating again; its id, and what ``add-revision`` and the last
    ``generate`` printed (also printed here)."""
    spec_dir = project / "spec"
    index = load_index(spec_dir)
    raw = yaml.safe_load(index[-1].file.read_text(encoding="utf-8"))
    done = change(raw, spec_dir, kinds)
    for line in done:
        print(f"next revision: {line.what}")
    text = yaml.safe_dump(raw, sort_keys=False, allow_unicode=True)
    digest = hashlib.sha256(f"{text}{index[-1].id}{len(index)}".encode()).hexdigest()
    revision_id = digest[:12]
    published = project.resolve().parent / f"published-{revision_id}.yaml"
    published.write_text(text, encoding="utf-8")
    dates = [r.date for r in index if r.date]
    date = (max(dates) + datetime.timedelta(days=1)) if dates else datetime.date(2026, 1, 1)
    added = _generator(
        project,
        ["add-revision", str(published), "--id", revision_id, "--date", date.isoformat()],
        env,
    )
    generated = _generator(project, ["generate"], env)
    decisions = [d for d in done if d.decide is not None]
    for d in decisions:
        if d.warning is not None and d.warning not in generated.stderr:
            raise AppendFailed(f"no warning `{d.warning}` before the decision for {d.what}")
        print(f"next revision: decided {d.decide(spec_dir)}")  # type: ignore[misc]
    if decisions:
        generated = _generator(project, ["generate"], env)
        for d in decisions:
            if d.warning is not None and d.warning in generated.stderr:
                raise AppendFailed(f"`{d.warning}` still warned after the decision for {d.what}")
    return revision_id, [added, generated]


# -- the script -------------------------------------------------------------------------------


def _pytest(project: Path, args: list[str]) -> int:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=project, env=environment(project)).returncode


def _fresh(base: Path, label: str) -> Path:
    return copy_project(Path(tempfile.mkdtemp(dir=base, prefix=f"{label}-")) / "project")


def run_kinds(base: Path, label: str, revisions: list[tuple[str, ...]], args: list[str]) -> int:
    """Append ``revisions`` (each a tuple of kinds) one after the other to a fresh copy and run
    pytest with ``args`` there; pytest's exit status (the copy is removed where it is 0)."""
    project = _fresh(base, label)
    for kinds in revisions:
        try:
            revision_id, _ = append(project, kinds=kinds)
        except AppendFailed as exc:
            print(f"next revision: {label}: {exc}", flush=True)
            return 1
        print(f"next revision: appended {revision_id} ({', '.join(kinds)})")
    print(f"next revision: running pytest {' '.join(args)} in {project}", flush=True)
    status = _pytest(project, args)
    if status == 0:  # a failing copy is kept, to look into
        shutil.rmtree(project.parent)
    return status


def catalogue() -> str:
    """The kinds, one a line, with the decision each needs."""
    lines = []
    for k in KINDS.values():
        needs = f" [decision: {k.decision}]" if k.decision else ""
        alone = " [a revision of its own]" if k.alone else ""
        lines.append(f"{k.name}: {k.summary}{needs}{alone}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=sorted(KINDS), help="append one kind of change")
    parser.add_argument("--each", action="store_true", help="each kind alone, in its own copy")
    parser.add_argument("--all", action="store_true", help="every kind together (after --each)")
    parser.add_argument("--list", action="store_true", help="list the kinds and exit")
    parser.add_argument("--into", type=Path, help="a folder for the copies (default: a new one)")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest, after --")
    args = parser.parse_args(argv)
    if args.list:
        print(catalogue())
        return 0
    if not (args.kind or args.each or args.all):
        parser.error("one of --kind, --each, --all or --list is required")
    if args.into is not None:
        Path(args.into).mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(dir=args.into, prefix="next-revision-")).resolve()
    fast = [*FAST_TIER, "-x", *args.pytest_args]
    runs = [(args.kind, [(args.kind,)], fast)] if args.kind else []
    if args.each:
        runs += [(name, [(name,)], fast) for name in KINDS]
    if args.all:
        together = tuple(k.name for k in KINDS.values() if not k.alone)
        alone = [(k.name,) for k in KINDS.values() if k.alone]
        runs.append(("all", [together, *alone], args.pytest_args))
    failed = []
    started = time.monotonic()
    for label, revisions, pytest_args in runs:
        if run_kinds(base, label, revisions, pytest_args):
            failed.append(label)
    print(f"next revision: {len(runs)} runs in {time.monotonic() - started:.0f} s", end="")
    print(f"; failed: {', '.join(failed)}" if failed else "; all passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
