"""What happens when a client of one revision talks to a server of another: the compatibility
matrix, predicted from the revisions' documents and the reference's field rules.

For a client of revision A and a server of revision B, every request field and header A can send
and every response value B can answer with gets an outcome:

- ``works``: B applies the field as A means it (the same settings of the step);
- ``rejected``: B refuses the request (the reference answers FAILED with INVALID_INPUT, or an
  HTTP error), with B's reason;
- ``ignored``: B accepts the request and drops the field without a word (the API's gateway drops
  fields it does not know) or gives it no effect: the worst case for a training run, which goes
  on with other hyperparameters;
- ``kept-raw``: B answers with a value A does not know (an enum value or a field), which A's
  tolerant models keep as received;
- ``missing``: B's answers lack a field A's schema requires (A lists it in the model's
  ``problems``);
- ``default-differs``: a setting that a request leaves out takes another default on B than on A
  (one of the documents declares a default for its field, or they declare different ones): the
  same request trains differently.

Every request field A sends is judged, whether or not A's own reference gives it a role (one it
does not, B may still apply, reject or drop), and every header A declares.

Request fields are judged per session kind (an Adam or a Muon session), since the reference gives
fields roles by kind. A request B refuses whatever it holds (a field B requires and A never
sends) is ``blocked``: every request of the pair is rejected.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from . import ir
from together_rl_runtime.settings import SESSION_DEFAULTS, Group, NoEffect, Refused, Rule, Sets

from .fieldroles import (
    NOT_IMPLEMENTED,
    Default,
    FieldRoles,
    ReferenceRules,
    Session,
    load_field_roles,
    resolve,
)
from .revisions import Revision, RevisionIndex

Outcome = Literal["works", "rejected", "ignored", "default-differs", "kept-raw", "missing"]
OUTCOMES: tuple[Outcome, ...] = (
    "rejected",
    "ignored",
    "default-differs",
    "kept-raw",
    "missing",
    "works",
)
_SESSION_NAMES = {"adam": "an Adam", "muon": "a Muon"}
BLOCKED = "(request)"
"""The key under which :func:`not_applied` says that every request is rejected."""


@dataclass(frozen=True)
class Entry:
    """One field's fate in a pair."""

    kind: Literal["body", "default", "header", "response"]
    path: str
    """The JSON path in the request body (for a default, of the field whose default it is), the
    header's name, or ``METHOD /path: json.path``."""
    session: Literal["adam", "muon", "any"]
    outcome: Outcome
    detail: str
    settings: tuple[str, ...] = ()
    """For a body field: the settings the server sets with it (``adam.beta1``)."""
    intended: tuple[str, ...] = ()
    """For a body field: the settings the client means it to set."""
    values: tuple[float, float] | None = None
    """For a default: the value the client's revision means, and the server's."""

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
    a_body = _body(a, a_rules.body)
    b_body = _body(b, b_rules.body)
    sent_headers = {p.name.lower() for p in a_rules.operation.parameters if p.location == "header"}
    theirs_op = b.operation(a_rules.operation.key)
    blocked = tuple(
        f"`{name}`"
        for name, prop in b_body.items()
        if prop.required and "." not in name and name not in a_body
    ) + tuple(
        f"the header `{p.name}`"
        for p in (theirs_op.parameters if theirs_op else ())
        if p.location == "header" and p.required and p.name.lower() not in sent_headers
    )
    entries: list[Entry] = []
    for session, rules in a_rules.sessions:
        theirs = dict(dict(b_rules.sessions)[session])
        for path, rule in rules:
            if isinstance(rule, Refused) and rule.problem != NOT_IMPLEMENTED:
                continue  # not for this kind of session, in the client's own revision
            entries.append(_body_entry(path, rule, session, theirs, a_body, b_body))
        entries += _defaults(session, a_rules, b_rules)
    entries += _headers(a_rules.operation, b.operation(a_rules.operation.key))
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


def _ancestors(path: str) -> Iterator[str]:
    parts = path.split(".")
    for i in range(1, len(parts)):
        yield ".".join(parts[:i])


def _body_entry(
    path: str,
    rule: Rule,
    session: Literal["adam", "muon"],
    theirs: dict[str, Rule],
    a_body: dict[str, ir.Property],
    b_body: dict[str, ir.Property],
) -> Entry:
    intended = rule.settings if isinstance(rule, Sets) else ()

    def entry(outcome: Outcome, detail: str, settings: tuple[str, ...] = ()) -> Entry:
        return Entry("body", path, session, outcome, detail, settings, intended)

    for ancestor in _ancestors(path):
        above = theirs.get(ancestor)
        if isinstance(above, Refused):
            return entry("rejected", f"`{ancestor}`: {above.problem}")
        if above is None:
            return entry("ignored", f"the server does not know `{ancestor}` and drops it")
    found = theirs.get(path)
    if found is None:
        return entry("ignored", "the server does not know the field and drops it")
    if isinstance(found, Refused):
        return entry("rejected", found.problem)
    if isinstance(found, Group) or isinstance(rule, Group):
        if isinstance(found, Group) and isinstance(rule, Group):
            return entry("works", "a group of settings in both revisions")
        return entry("rejected", "the server reads it as another kind of field")
    if isinstance(rule, Refused):  # a field the client's own reference does not implement
        if isinstance(found, Sets):
            return entry("works", f"sets {', '.join(found.settings)}", found.settings)
        return entry("ignored", "accepted with no effect")
    unknown = _unknown_values(a_body[path].schema, b_body[path].schema, a_body, b_body)
    if isinstance(found, NoEffect):
        if isinstance(rule, NoEffect):
            return entry("works", "accepted; no local effect in either revision" + unknown)
        return entry("ignored", "accepted with no effect" + unknown)
    assert isinstance(found, Sets)
    if isinstance(rule, Sets) and (found.settings, found.fallback) != (
        rule.settings,
        rule.fallback,
    ):
        return entry(
            "ignored" if not set(found.settings) & set(rule.settings) else "works",
            f"the server uses it for {', '.join(found.settings)}, this client means "
            f"{', '.join(rule.settings)}" + unknown,
            found.settings,
        )
    return entry("works", f"sets {', '.join(found.settings)}" + unknown, found.settings)


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


def _unknown_values(
    a: ir.Schema, b: ir.Schema, a_body: dict[str, ir.Property], b_body: dict[str, ir.Property]
) -> str:
    """``"; the values X are unknown to the server"`` for an enum the server knows less of."""
    del a_body, b_body
    if isinstance(a, ir.Enum) and isinstance(b, ir.Enum):
        missing = [str(v) for v in a.values if v not in b.values]
        if missing:
            return f"; the server rejects the values {', '.join(missing)}"
    return ""


def _headers(mine: ir.Operation, theirs: ir.Operation | None) -> list[Entry]:
    if theirs is None:
        return []
    known = {p.name.lower(): p for p in theirs.parameters if p.location == "header"}
    entries = []
    for p in mine.parameters:
        if p.location != "header":
            continue
        outcome: Outcome = "works" if p.name.lower() in known else "ignored"
        detail = "declared by the server" if outcome == "works" else "the server does not read it"
        entries.append(Entry("header", p.name, "any", outcome, detail))
    return entries


def _responses(a: ir.Document, b: ir.Document) -> list[Entry]:
    """What the client reads of the server's answers: values and fields it does not know, and
    fields it requires that the server does not send."""
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
        if mine is None or answer is None or mine.schema is None or answer.schema is None:
            continue
        for path, outcome, detail in _compare(a, mine.schema, b, answer.schema):
            entries.append(Entry("response", f"{op.key}: {path}", "any", outcome, detail))
    return entries


def _compare(
    a: ir.Document, mine: ir.Schema, b: ir.Document, theirs: ir.Schema
) -> Iterator[tuple[str, Outcome, str]]:
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
                yield path or "(body)", "kept-raw", f"the values {', '.join(new)} are unknown to the client, kept as strings"
        elif isinstance(rx, ir.Object) and isinstance(ry, ir.Object):
            for prop in ry.properties:
                here = f"{path}.{prop.name}" if path else prop.name
                ours = rx.property(prop.name)
                if ours is None:
                    yield here, "kept-raw", "a field unknown to the client, kept in `extra`"
                else:
                    todo.append((here, ours.schema, prop.schema, seen))
            for prop in rx.properties:
                here = f"{path}.{prop.name}" if path else prop.name
                theirs_prop = ry.property(prop.name)
                if prop.required and (theirs_prop is None or not theirs_prop.required):
                    yield here, "missing", "required by the client, not always sent: listed in `problems`"


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
        "Every request field and header the client sends is judged, whether or not the "
        "client's own reference gives it a role. "
        "Request fields are judged in an Adam and in a Muon session; a field noted with one "
        "kind fares as it says only there."
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
        if e.kind == "body" and e.outcome in ("ignored", "rejected"):
            session = "" if e.session == "any" else f" in {_SESSION_NAMES[e.session]} session"
            text = f"{e.outcome}{session}: {e.detail}"
            result[e.path] = f"{result[e.path]}; {text}" if e.path in result else text
    return result


COMPATIBILITY_FILE = "COMPATIBILITY.md"
COMPATIBILITY_TITLE = "Which clients work with which servers"


def compatibility_text(revisions: Sequence[Revision], roles: FieldRoles) -> str:
    """The text of COMPATIBILITY.md: the matrix of every pair of revisions."""
    return as_markdown(revisions, matrix(revisions, roles), title=COMPATIBILITY_TITLE)


def write_compatibility(index: RevisionIndex, folder: Path) -> bool:
    """Write ``folder/COMPATIBILITY.md`` for the revisions of ``index``; whether it changed."""
    path = folder / COMPATIBILITY_FILE
    text = compatibility_text(list(index), load_field_roles(index.spec_dir))
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
