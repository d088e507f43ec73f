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
  ``problems``).

Request fields are judged per session kind (an Adam or a Muon session), since the reference gives
fields roles by kind. A request B refuses whatever it holds (a field B requires and A never
sends) is ``blocked``: every request of the pair is rejected.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from . import ir
from .fieldroles import FieldRoles, NoEffect, Refused, Rule, Sets, resolve
from .revisions import Revision

Outcome = Literal["works", "rejected", "ignored", "kept-raw", "missing"]
OUTCOMES: tuple[Outcome, ...] = ("rejected", "ignored", "kept-raw", "missing", "works")
_SESSION_NAMES = {"adam": "an Adam", "muon": "a Muon"}
BLOCKED = "(request)"
"""The key under which :func:`not_applied` says that every request is rejected."""


@dataclass(frozen=True)
class Entry:
    """One field's fate in a pair."""

    kind: Literal["body", "header", "response"]
    path: str
    """The JSON path in the request body, the header's name, or ``METHOD /path: json.path``."""
    session: Literal["adam", "muon", "any"]
    outcome: Outcome
    detail: str
    settings: tuple[str, ...] = ()
    """For a body field: the settings the server sets with it (``adam.beta1``)."""
    intended: tuple[str, ...] = ()
    """For a body field: the settings the client means it to set."""

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
        mine = dict(rules)
        theirs = dict(dict(b_rules.sessions)[session])
        for path, rule in mine.items():
            if not isinstance(rule, (Sets, NoEffect)):
                continue  # a group, or a field this revision's own reference refuses
            entries.append(_body_entry(path, rule, session, theirs, a_body, b_body))
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
    rule: Sets | NoEffect,
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
        if entry.kind == "body" and key in by_key:
            index = by_key[key]
            merged[index] = Entry(
                entry.kind, entry.path, "any", entry.outcome, entry.detail, entry.settings
            )
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
        "*kept-raw* (an answer holds a value the client does not know, kept as received); "
        "*missing* (an answer lacks a field the client requires, listed in `problems`). "
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
