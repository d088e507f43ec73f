"""What happens when a client of one revision talks to a server of another: the compatibility
matrix, predicted from the revisions' documents and the reference's field rules.

For a client of revision A and a server of revision B, every request input A can send (body
fields at any depth, query parameters, headers, cookies and path parameters) and every response
value and status B can answer with gets an outcome:

- ``works``: B applies the field as A means it (the same settings of the step);
- ``rejected``: B refuses the request (the reference answers FAILED with INVALID_INPUT, or an
  HTTP error), with B's reason;
- ``ignored``: B accepts the request and drops the field without a word (the API's gateway drops
  fields and parameters it does not know) or gives it no effect: the worst case for a training
  run, which goes on with other hyperparameters;
- ``kept-raw``: B answers with a value A does not know (an enum value, a field, a value of a
  type A's schema does not allow, a status A does not declare), which A's tolerant models keep
  as received;
- ``missing``: B's answers lack a field A's schema requires (A lists it in the model's
  ``problems``);
- ``default-differs``: a setting that a request leaves out takes another default on B than on A
  (one of the documents declares a default for its field, or they declare different ones): the
  same request trains differently.

Every request field A sends is judged, whether or not A's own reference gives it a role (one it
does not, B may still apply, reject or drop), by the request A sends with it (A's required
fields and the field): B's schema reads it first, as B's reference does, so that a field B
requires and A may leave out (at any depth) rejects the requests without it. Each direction of
a change is judged where it breaks: a value A's schema allows and B's refuses (a number where B
takes integers, an enum value B lacks, a bound B tightened, a length B shortened) is an entry
of its own, ``rejected`` with the value; a value B's schema allows in an answer and A's does not
read (a type B widened) is ``kept-raw`` with the value. A narrowed answer, or a widened request,
works. Query parameters and headers B does not declare are ``ignored``; one B requires and A may
leave out rejects the requests without it. Response bounds are not judged: A's response models
do not check them.

Request fields are judged per session kind (one per optimizer of the runtime's registry), since
the reference gives fields roles by kind. A request B refuses whatever it holds (a field or
parameter B requires and A never sends) is ``blocked``: every request of the pair is rejected,
and the rest of the pair is judged as if the request held it.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from together_rl_runtime.optimizers import REGISTRY
from together_rl_runtime.settings import (
    SESSION_DEFAULTS,
    Group,
    NoEffect,
    Parameter,
    Refused,
    Rule,
    Sets,
)

from ..reading import ir
from ..reading.fieldroles import (
    NOT_IMPLEMENTED,
    Default,
    FieldRoles,
    ReferenceRules,
    Session,
    resolve,
)
from ..reading.revisions import Revision
from ..reading.values import sample
from . import conformance

Outcome = Literal["works", "rejected", "ignored", "default-differs", "kept-raw", "missing"]
OUTCOMES: tuple[Outcome, ...] = (
    "rejected",
    "ignored",
    "default-differs",
    "kept-raw",
    "missing",
    "works",
)
BLOCKED = "(request)"
"""The key under which :func:`not_applied` says that every request is rejected."""


@dataclass(frozen=True)
class Entry:
    """One field's fate in a pair."""

    kind: Literal["body", "default", "header", "query", "path", "cookie", "response", "status"]
    path: str
    """The JSON path in the request body (for a default, of the field whose default it is);
    ``METHOD /path: name`` for a parameter; ``METHOD /path: json.path`` for a field of a success
    response, ``METHOD /path STATUS: json.path`` for one of another status; ``METHOD /path
    STATUS`` for a status."""
    session: Session | Literal["any"]
    outcome: Outcome
    detail: str
    settings: tuple[str, ...] = ()
    """For a body field: the settings the server sets with it (``<optimizer>.beta1``)."""
    intended: tuple[str, ...] = ()
    """For a body field: the settings the client means it to set."""
    values: tuple[float, float] | None = None
    """For a default: the value the client's revision means, and the server's."""
    value: Any = ir.NO_VALUE
    """For a verdict on one value (a body field's value the client's schema allows and the
    server's refuses; a response value the server's schema allows and the client's does not):
    that value."""
    request: Any = field(default=None, compare=False)
    """For a body field: the request body the verdict is about (the client's required fields
    and the field, or, for a field the server requires and the client may leave out, a body
    without it)."""

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "kind": self.kind,
            "path": self.path,
            "session": self.session,
            "outcome": self.outcome,
            "detail": self.detail,
        }
        if self.settings:
            result["settings"] = list(self.settings)
        if self.intended:
            result["intended"] = list(self.intended)
        if self.values is not None:
            result["client_default"], result["server_default"] = self.values
        if self.value is not ir.NO_VALUE:
            result["value"] = self.value
        return result


@dataclass(frozen=True)
class Pair:
    """A client of revision ``client`` against a server of revision ``server``."""

    client: Revision
    server: Revision
    blocked: tuple[str, ...]
    """What the server requires that the client never sends (body fields, headers): every
    request fails."""
    entries: tuple[Entry, ...] = field(default_factory=tuple)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for e in self.entries if e.outcome == outcome)

    @property
    def summary(self) -> str:
        """``"works"``, or the counts of what does not (``"2 ignored, 1 rejected"``)."""
        if self.blocked:
            return "every request rejected"
        parts = [
            f"{self.count(outcome)} {outcome}"
            for outcome in OUTCOMES
            if outcome != "works" and self.count(outcome)
        ]
        return ", ".join(parts) or "works"

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client.id,
            "server": self.server.id,
            "summary": self.summary,
            "blocked_by": list(self.blocked),
            "entries": [e.to_dict() for e in self.entries],
        }


def matrix(revisions: Sequence[Revision], roles: FieldRoles) -> list[Pair]:
    """Every pair of ``revisions`` (client, server), clients in order, then servers."""
    return [pair(a, b, roles) for a in revisions for b in revisions]


def pair(client: Revision, server: Revision, roles: FieldRoles) -> Pair:
    a, b = client.document, server.document
    a_rules, b_rules = resolve(a, roles), resolve(b, roles)
    sent = {_parameter_key(p): p for p in a_rules.operation.parameters}
    theirs_op = b.operation(a_rules.operation.key)
    left_out = tuple(
        _parameter_name(p)
        for p in (theirs_op.parameters if theirs_op else ())
        if p.location != "path"
        and p.required
        and _parameter_key(p) in sent
        and not sent[_parameter_key(p)].required
    )
    requests = _Requests(a, a_rules.body, b, b_rules.body, left_out)
    blocked = tuple(
        f"`{name}`"
        for name, prop in requests.theirs.items()
        if prop.required and "." not in name and name not in requests.mine
    ) + tuple(
        _parameter_name(p)
        for p in (theirs_op.parameters if theirs_op else ())
        if p.location != "path" and p.required and _parameter_key(p) not in sent
    )
    entries: list[Entry] = []
    for session, rules in a_rules.sessions:
        theirs = dict(dict(b_rules.sessions)[session])
        for path, rule in rules:
            if isinstance(rule, Refused) and rule.problem != NOT_IMPLEMENTED:
                continue  # not for this kind of session, in the client's own revision
            entries.append(_body_entry(path, rule, session, theirs, requests))
        entries += _defaults(session, a_rules, b_rules)
    entries += requests.required_by_server()
    entries += requests.refused_values()
    entries += _parameters(a, b, b_rules)
    entries += _responses(a, b)
    return Pair(client, server, blocked, tuple(_merge_sessions(entries)))


def _body(doc: ir.Document, schema: ir.Schema) -> dict[str, ir.Property]:
    """Every property of a request body, by JSON path, at every depth (recursive schemas once)."""
    found: dict[str, ir.Property] = {}
    todo: list[tuple[str, ir.Schema, frozenset[str]]] = [("", schema, frozenset())]
    while todo:
        prefix, current, seen = todo.pop()
        if isinstance(current, ir.Ref):
            if current.name in seen:
                continue
            seen = seen | {current.name}
        resolved = doc.resolve(current)
        if not isinstance(resolved, ir.Object):
            continue
        for prop in resolved.properties:
            path = f"{prefix}.{prop.name}" if prefix else prop.name
            found[path] = prop
            todo.append((path, prop.schema, seen))
    return found


def _refusal(rule: Refused) -> str:
    """Why the server's reference refuses a field, in words that say whose refusal it is."""
    if rule.problem == NOT_IMPLEMENTED:
        return (
            "that revision's reference server refuses it, since the local reference does not "
            "implement the field yet (the API itself may accept it)"
        )
    return rule.problem


def _ancestors(path: str) -> Iterator[str]:
    parts = path.split(".")
    for i in range(1, len(parts)):
        yield ".".join(parts[:i])


class _Requests:
    """The request bodies a client of one revision sends, read by the server's schema: which of
    them the server refuses before any field's role applies (a field it requires that the
    request leaves out, a value its schema does not allow)."""

    def __init__(
        self,
        a: ir.Document,
        a_schema: ir.Schema,
        b: ir.Document,
        b_schema: ir.Schema,
        left_out: tuple[str, ...] = (),
    ) -> None:
        self.a, self.a_schema, self.b, self.b_schema = a, a_schema, b, b_schema
        self.left_out = left_out
        """The parameters the server requires that the client declares and may leave out (a
        request sent without its optional parameters lacks them)."""
        self.mine = _body(a, a_schema)
        """The client's request fields, by JSON path."""
        self.theirs = _body(b, b_schema)
        """The server's request fields, by JSON path."""

    def sample(self, path: str) -> Any:
        """The client's sample value of the field at ``path``."""
        return sample(self.a, self.mine[path].schema)

    def usual(self, path: str) -> Any:
        """The value a field's own entry is judged with: the client's sample value, or where
        the server's schema refuses it, the first value at the edges of the client's schema
        that both schemas allow (the values the server refuses have entries of their own)."""
        first = self.sample(path)
        other = self.theirs.get(path)
        if other is None or self.refusal(self.with_field(path, first)) is None:
            return first
        limits = conformance.bounds(self.b, other.schema)
        for value in conformance.edges(self.a, self.mine[path].schema, limits):
            body = self.with_field(path, value)
            if conformance.refusal(self.a, self.a_schema, body) is None and (
                self.refusal(body) is None
            ):
                return value
        return first

    def with_field(self, path: str, value: Any) -> dict[str, Any]:
        """The smallest body a client sends with ``value`` at ``path``: its required fields, and
        each object on the way to the field with the object's own required fields."""
        body: dict[str, Any] = sample(self.a, self.a_schema) if path else value
        node = body
        *groups, leaf = path.split(".")
        walked = ""
        for group in groups:
            walked = f"{walked}.{group}" if walked else group
            if not isinstance(node.get(group), dict):
                node[group] = sample(self.a, self.mine[walked].schema)
            node = node[group]
        node[leaf] = value
        return body

    def refusal(self, body: Any) -> tuple[str, str] | None:
        """Where and why the server's schema refuses ``body`` (fields it does not know are
        dropped first, as the server drops them). A top-level field the server requires and
        the client does not know blocks every request (:attr:`Pair.blocked`); the rest is
        judged as if the request held it."""
        blocking = {
            name: sample(self.b, prop.schema)
            for name, prop in self.theirs.items()
            if prop.required and "." not in name and name not in self.mine
        }
        return conformance.refusal(self.b, self.b_schema, {**blocking, **body})

    def required_by_server(self) -> list[Entry]:
        """A field the server requires and the client's schema lets a request leave out: the
        request without it (with the object that holds it) is rejected."""
        entries = []
        for path, prop in self.theirs.items():
            mine = self.mine.get(path)
            if not prop.required or mine is None or mine.required:
                continue
            parent = path.rpartition(".")[0]
            body = (
                self.with_field(parent, self.sample(parent))
                if parent
                else sample(self.a, self.a_schema)
            )
            refused = self.refusal(body)
            if refused is None:
                continue
            where, problem = refused
            detail = (
                "the server requires it, and this client's revision lets a request leave it out"
                if where == path
                else f"the server's schema refuses `{where}`"
            )
            entries.append(
                Entry("body", path, "any", "rejected", f"{detail}: {problem}", request=body)
            )
        return entries

    def refused_values(self) -> list[Entry]:
        """The values of a field that the client's schema allows and the server's refuses (a
        number where the server takes integers, an enum value it lacks, a bound it tightened),
        one entry for each reason the server gives."""
        entries = []
        for path, prop in self.mine.items():
            other = self.theirs.get(path)
            if other is None:
                continue
            usual = self.usual(path)
            refused: dict[str, list[Any]] = {}
            bodies: dict[str, dict[str, Any]] = {}
            limits = conformance.bounds(self.b, other.schema)
            for value in conformance.edges(self.a, prop.schema, limits):
                if type(value) is type(usual) and value == usual:
                    continue  # the field's own entry judges the value it is sent with
                body = self.with_field(path, value)
                if conformance.refusal(self.a, self.a_schema, body) is not None:
                    continue  # not what this client sends
                found = self.refusal(body)
                if found is None or found[0] != path:
                    continue
                refused.setdefault(found[1], []).append(value)
                bodies.setdefault(found[1], body)
            for problem, values in refused.items():
                detail = (
                    f"the server refuses {_such_as(values)}, which this client's schema allows: "
                    f"{problem}"
                )
                entries.append(
                    Entry(
                        "body",
                        path,
                        "any",
                        "rejected",
                        detail,
                        value=values[0],
                        request=bodies[problem],
                    )
                )
        return entries


def _such_as(values: Sequence[Any]) -> str:
    """``5.5``, or ``values such as 5.5`` for several."""
    first = json.dumps(values[0])
    return first if len(values) == 1 else f"values such as {first}"


def _body_entry(
    path: str,
    rule: Rule,
    session: Session,
    theirs: dict[str, Rule],
    requests: _Requests,
) -> Entry:
    intended = rule.settings if isinstance(rule, Sets) else ()
    body = requests.with_field(path, requests.usual(path))

    def entry(outcome: Outcome, detail: str, settings: tuple[str, ...] = ()) -> Entry:
        return Entry("body", path, session, outcome, detail, settings, intended, request=body)

    if requests.left_out:
        return entry("rejected", f"the server requires {requests.left_out[0]}: is required")
    refused = requests.refusal(body)
    if refused is not None:
        where, problem = refused
        if problem == "is required" and where != path:
            return entry(
                "rejected",
                f"the server requires `{where}`, which this request leaves out: {problem}",
            )
        return entry("rejected", f"the server's schema refuses `{where}`: {problem}")
    for ancestor in _ancestors(path):
        above = theirs.get(ancestor)
        if isinstance(above, Refused):
            return entry("rejected", f"`{ancestor}`: {_refusal(above)}")
        if above is None:
            return entry("ignored", f"the server does not know `{ancestor}` and drops it")
    found = theirs.get(path)
    if found is None:
        inner = [f"`{p}`" for p in requests.mine if p.startswith(f"{path}.")]
        if isinstance(rule, Refused) and inner:  # a group whose fields have no rules of their own
            return entry(
                "ignored",
                f"the server does not know the group and drops it, with its fields {', '.join(inner)}",
            )
        return entry("ignored", "the server does not know the field and drops it")
    if isinstance(found, Refused):
        return entry("rejected", _refusal(found))
    if isinstance(found, Group) or isinstance(rule, Group):
        if isinstance(found, Group) and isinstance(rule, Group):
            return entry("works", "a group of settings in both revisions")
        return entry("rejected", "the server reads it as another kind of field")
    if isinstance(rule, Refused):  # a field the client's own reference does not implement
        if isinstance(found, Sets):
            return entry("works", f"sets {', '.join(found.settings)}", found.settings)
        return entry("ignored", "accepted with no effect")
    if isinstance(found, NoEffect):
        if isinstance(rule, NoEffect):
            return entry("works", "accepted; no local effect in either revision")
        return entry("ignored", "accepted with no effect")
    assert isinstance(found, Sets)
    if isinstance(rule, Sets) and (found.settings, found.fallback) != (
        rule.settings,
        rule.fallback,
    ):
        return entry(
            "ignored" if not set(found.settings) & set(rule.settings) else "works",
            f"the server uses it for {', '.join(found.settings)}, this client means "
            f"{', '.join(rule.settings)}",
            found.settings,
        )
    return entry("works", f"sets {', '.join(found.settings)}", found.settings)


def _defaults(session: Session, a: ReferenceRules, b: ReferenceRules) -> list[Entry]:
    """The settings whose default, for a request that leaves them out, differs between the
    revisions in one kind of session."""
    mine = {d.setting: d for d in a.declared(session)}
    theirs = {d.setting: d for d in b.declared(session)}
    entries = []
    for setting in sorted(set(mine) | set(theirs)):
        ours, other = mine.get(setting), theirs.get(setting)
        a_value = ours.value if ours else SESSION_DEFAULTS[setting]
        b_value = other.value if other else SESSION_DEFAULTS[setting]
        if a_value == b_value:
            continue
        path = (ours or other).path  # type: ignore[union-attr]
        detail = (
            f"left out, {setting} is {a_value!r} to this client ({_source(ours)}) and "
            f"{b_value!r} to the server ({_source(other)}): the same request trains differently"
        )
        entries.append(
            Entry(
                "default",
                path,
                session,
                "default-differs",
                detail,
                (setting,),
                (setting,),
                (a_value, b_value),
            )
        )
    return entries


def _source(default: Default | None) -> str:
    if default is None:
        return "the session default"
    return f"its document's default for `{default.path}`"


def _path_names(mine: ir.Operation, theirs: ir.Operation) -> list[tuple[str, str]]:
    """The names each revision gives the path parameters of one route, in the order of the
    path's segments (``[("session_id", "training_session_id")]``), where a server declares
    them."""
    declared = {p.name for p in theirs.parameters if p.location == "path"}
    return [
        (a, b)
        for a, b in zip(ir.placeholders(mine.path), ir.placeholders(theirs.path))
        if b in declared
    ]


def _parameter_name(p: ir.Parameter) -> str:
    """``the header `X-Key```, ``the query parameter `dry_run```."""
    return f"the {'header' if p.location == 'header' else p.location + ' parameter'} `{p.name}`"


def _parameter_key(p: ir.Parameter | Parameter) -> tuple[str, str]:
    """How a server finds a parameter: by location and name (a header's without case)."""
    return p.location, p.name.lower() if p.location == "header" else p.name


def _parameters(a: ir.Document, b: ir.Document, b_rules: ReferenceRules) -> list[Entry]:
    """Every parameter of the client's operations (path, query, header, cookie): the server
    reads it, does not (a query parameter, header or cookie it does not declare is dropped),
    refuses it (a parameter of the served operation that its reference gives no role), or
    requires one the client may leave out."""
    served = {(b_rules.operation.key, *_parameter_key(p)): p for p in b_rules.parameters}
    entries = []
    for op in a.operations:
        theirs = b.operation(op.key)
        if theirs is None:
            continue  # the operation's response entry says that the server lacks it
        known = {_parameter_key(p): p for p in theirs.parameters}
        # a path parameter is read from its place in the route, whatever its name there
        known.update(
            {("path", mine): known[("path", their)] for mine, their in _path_names(op, theirs)}
        )
        for p in op.parameters:
            other = known.get(_parameter_key(p))
            rule = served.get((op.key, *_parameter_key(p)))
            where = f"{op.key}: {p.name}"
            if other is None:
                entries.append(
                    Entry(p.location, where, "any", "ignored", "the server does not read it")
                )
            elif rule is not None and isinstance(rule.rule, Refused):
                entries.append(Entry(p.location, where, "any", "rejected", rule.rule.problem))
            elif other.required and not p.required:
                detail = "the server requires it, and this client may leave it out: is required"
                entries.append(Entry(p.location, where, "any", "rejected", detail))
            else:
                entries.append(Entry(p.location, where, "any", "works", "declared by the server"))
    return entries


def _responses(a: ir.Document, b: ir.Document) -> list[Entry]:
    """What the client reads of the server's answers, of every status: values and fields it
    does not know, fields it requires that the server does not send, and statuses it does not
    know."""
    entries: list[Entry] = []
    for op in a.operations:
        theirs = b.operation(op.key)
        if theirs is None:
            entries.append(
                Entry("response", op.key, "any", "rejected", "the server has no such operation")
            )
            continue
        mine = next((r for r in op.responses if r.status.startswith("2") and r.schema), None)
        answer = next((r for r in theirs.responses if r.status.startswith("2") and r.schema), None)
        if mine is not None and answer is not None and mine.schema and answer.schema:
            for path, outcome, detail, value in _compare(a, mine.schema, b, answer.schema):
                entries.append(
                    Entry("response", f"{op.key}: {path}", "any", outcome, detail, value=value)
                )
        for response in theirs.responses:
            if response.status.startswith("2") or response.schema is None:
                continue
            where = f"{op.key} {response.status}"
            own = op.response(response.status)
            if own is not None and own.schema is not None:
                for path, outcome, detail, value in _compare(a, own.schema, b, response.schema):
                    entries.append(
                        Entry("response", f"{where}: {path}", "any", outcome, detail, value=value)
                    )
            else:
                outcome, detail = _unknown_status(a, op, b, response)
                entries.append(Entry("status", where, "any", outcome, detail))
    return entries


def error_response(op: ir.Operation, status: str) -> ir.Response | None:
    """The response of ``op`` that a generated client reads an error of ``status`` with: the
    status's own, else its range's (``4XX``), else ``default``; where every error response has
    the same schema, that one."""
    for key in (status, f"{status[:1]}XX", "default"):
        found = op.response(key)
        if found is not None:
            return found
    errors = [r for r in op.responses if not r.status.startswith("2") and r.schema is not None]
    names = {r.schema.name if isinstance(r.schema, ir.Ref) else None for r in errors}
    return errors[0] if len(names) == 1 and None not in names else None


def _unknown_status(
    a: ir.Document, op: ir.Operation, b: ir.Document, response: ir.Response
) -> tuple[Outcome, str]:
    """How a client that does not declare a status the server answers with reads its body."""
    assert response.schema is not None
    fallback = error_response(op, response.status)
    if fallback is None or fallback.schema is None:
        return "kept-raw", "a status this client does not know: the body is kept as received"
    answer = sample(b, response.schema, full=True)
    problems, extra = conformance.fit(a, fallback.schema, answer)
    read = f"a status this client does not know, read as its `{fallback.status}` response"
    if problems:
        where, problem = next(iter(problems.items()))
        return "kept-raw", (
            f"{read}, which the server's answer does not fit (`{where}` {problem}): the body is "
            "kept as received"
        )
    if extra:
        return "kept-raw", f"{read}: the fields {', '.join(extra)} are kept in `extra`"
    return "works", read


def _compare(
    a: ir.Document, mine: ir.Schema, b: ir.Document, theirs: ir.Schema
) -> Iterator[tuple[str, Outcome, str, Any]]:
    todo: list[tuple[str, ir.Schema, ir.Schema, frozenset[tuple[str, str]]]] = [
        ("", mine, theirs, frozenset())
    ]
    while todo:
        path, x, y, seen = todo.pop()
        if isinstance(x, ir.Ref) and isinstance(y, ir.Ref):
            if (x.name, y.name) in seen:
                continue
            seen = seen | {(x.name, y.name)}
        rx, ry = a.resolve(x), b.resolve(y)
        if isinstance(rx, ir.Enum) and isinstance(ry, ir.Enum):
            new = [str(v) for v in ry.values if v not in rx.values]
            if new:
                yield path or "(body)", "kept-raw", f"the values {', '.join(new)} are unknown to the client, kept as strings", ir.NO_VALUE
        elif isinstance(rx, ir.Object) and isinstance(ry, ir.Object):
            for prop in ry.properties:
                here = f"{path}.{prop.name}" if path else prop.name
                ours = rx.property(prop.name)
                if ours is None:
                    yield here, "kept-raw", "a field unknown to the client, kept in `extra`", ir.NO_VALUE
                else:
                    todo.append((here, ours.schema, prop.schema, seen))
            for prop in rx.properties:
                here = f"{path}.{prop.name}" if path else prop.name
                theirs_prop = ry.property(prop.name)
                if prop.required and (theirs_prop is None or not theirs_prop.required):
                    yield here, "missing", "required by the client, not always sent: listed in `problems`", ir.NO_VALUE
        else:
            yield from _unreadable(a, x, b, y, path)


def _unreadable(
    a: ir.Document, mine: ir.Schema, b: ir.Document, theirs: ir.Schema, path: str
) -> Iterator[tuple[str, Outcome, str, Any]]:
    """The values the server's schema allows at ``path`` that the client's does not read (a
    type widened, a variant added): one for each reason the client gives."""
    refused: dict[str, list[Any]] = {}
    for value in conformance.edges(b, theirs):
        if conformance.refusal(b, theirs, value) is not None:
            continue  # not what the server sends
        found = conformance.refusal(a, mine, value, strict=False)
        if found is not None:
            refused.setdefault(found[1], []).append(value)
    for problem, values in refused.items():
        yield path or "(body)", "kept-raw", (
            f"the server may send {_such_as(values)}, which this client's schema does not allow ({problem}): "
            "kept as received and listed in `problems`"
        ), values[0]


def _merge_sessions(entries: list[Entry]) -> list[Entry]:
    """One entry for a body field that fares the same in both session kinds."""
    merged: list[Entry] = []
    by_key: dict[tuple[str, str, str, str], int] = {}
    for entry in entries:
        key = (entry.kind, entry.path, entry.outcome, entry.detail)
        if entry.kind in ("body", "default") and key in by_key:
            index = by_key[key]
            merged[index] = dataclasses.replace(merged[index], session="any")
            continue
        by_key[key] = len(merged)
        merged.append(entry)
    return merged


# -- rendering ---------------------------------------------------------------------------------------


def as_json(pairs: Sequence[Pair]) -> str:
    return json.dumps([p.to_dict() for p in pairs], indent=2) + "\n"


def as_markdown(revisions: Sequence[Revision], pairs: Sequence[Pair], *, title: str) -> str:
    """The matrix (clients as rows, servers as columns) and, for every pair that is not all
    ``works``, what does not work."""
    ids = [r.id for r in revisions]
    cells = {(p.client.id, p.server.id): p for p in pairs}
    intro = (
        "What happens when a client generated from one revision (rows) talks to a server of "
        "another (columns), predicted by `python -m generator compat` from the revisions' "
        "documents and the local reference's field roles, and verified by running every "
        "pair's client against the reference server. Outcomes: *works*; *rejected* (the "
        "server refuses the request); *ignored* (the server accepts the request and drops "
        "the field or gives it no effect: the run goes on with other hyperparameters); "
        "*default-differs* (a request that leaves the field out gets another default on the "
        "server than the client's revision declares: the same request trains differently); "
        "*kept-raw* (an answer holds a value the client does not know, kept as received); "
        "*missing* (an answer lacks a field the client requires, listed in `problems`). "
        "Every request input the client sends (body fields at any depth, query parameters, "
        "headers, path parameters) is judged, whether or not the client's own reference gives "
        "it a role, and every response field and status of the server: a value one side's "
        "schema allows and the other's refuses (a type narrowed or widened, an enum value, a "
        "bound) is noted with the value, in the direction it breaks. "
        f"Request fields are judged in {' and in '.join(o.a_title for o in REGISTRY.values())} "
        "session; a field noted with one kind fares as it says only there."
    )
    lines = [
        f"# {title}",
        "",
        textwrap.fill(intro, 100, break_long_words=False, break_on_hyphens=False),
        "",
        "| client \\ server | " + " | ".join(f"`{i}`" for i in ids) + " |",
        "|---|" + "---|" * len(ids),
    ]
    for a in ids:
        row = [cells[(a, b)].summary if a != b else "(same)" for b in ids]
        lines.append(f"| `{a}` | " + " | ".join(row) + " |")
    for p in pairs:
        if p.client.id == p.server.id or p.summary == "works":
            continue
        lines += ["", f"## Client `{p.client.id}`, server `{p.server.id}`", ""]
        lines += details(p)
    return "\n".join(lines) + "\n"


def details(p: Pair) -> list[str]:
    """The markdown bullet lines of what in a pair does not simply work."""
    lines = []
    if p.blocked:
        lines.append(
            f"- **every request is rejected**: the server requires {', '.join(p.blocked)}, "
            "which this client never sends"
        )
    for e in p.entries:
        if e.outcome == "works":
            continue
        session = "" if e.session == "any" else f" ({e.session} session)"
        lines.append(f"- **{e.outcome}** {e.kind} `{e.path}`{session}: {e.detail}")
    return lines


def not_applied(p: Pair) -> dict[str, str]:
    """The request fields of a pair the server does not apply as the client means them, by JSON
    path, with why (for the client's run-time warning)."""
    result: dict[str, str] = {}
    if p.blocked:
        result[BLOCKED] = f"every request is rejected: the server requires {', '.join(p.blocked)}"
    for e in p.entries:
        if e.kind == "body" and e.outcome in ("ignored", "rejected") and _about_sending(e):
            session = "" if e.session == "any" else f" in {REGISTRY[e.session].a_session}"
            text = f"{e.outcome}{session}: {e.detail}"
            result[e.path] = f"{result[e.path]}; {text}" if e.path in result else text
    return result


def _about_sending(e: Entry) -> bool:
    """Whether a body entry is about sending its field, whatever its value (not about one value
    of it, or about leaving it out)."""
    if e.value is not ir.NO_VALUE:
        return False
    node = e.request
    for name in e.path.split("."):
        if not isinstance(node, dict) or name not in node:
            return False
        node = node[name]
    return True


COMPATIBILITY_FILE = "COMPATIBILITY.md"
COMPATIBILITY_TITLE = "Which clients work with which servers"


def compatibility_text(revisions: Sequence[Revision], roles: FieldRoles) -> str:
    """The text of COMPATIBILITY.md: the matrix of every pair of revisions."""
    return as_markdown(revisions, matrix(revisions, roles), title=COMPATIBILITY_TITLE)
