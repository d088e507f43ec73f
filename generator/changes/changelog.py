"""Change histories built from the diff engine: one operation's history, and a whole changelog."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..english import count
from ..reading import ir
from ..reading.revisions import Revision, RevisionIndex
from .diff import Change, Level, diff_documents


@dataclass(frozen=True)
class RevisionChanges:
    """The changes a revision made, relative to the revision before it."""

    revision: Revision
    changes: tuple[Change, ...]

    @property
    def summary(self) -> str:
        """``"3 warning, 11 info"``: counts by level, most severe first."""
        counts = Counter(change.level for change in self.changes)
        return ", ".join(f"{counts[level]} {level.value}" for level in Level if counts[level])

    @property
    def counted(self) -> str:
        """``"3 warnings, 11 info"``: the summary in plain English (the API's history, which
        :attr:`summary` reproduces, writes ``3 warning``)."""
        counts = Counter(change.level for change in self.changes)
        nouns = {Level.ERROR: "error", Level.WARNING: "warning"}
        return ", ".join(
            count(counts[level], nouns[level]) if level in nouns else f"{counts[level]} info"
            for level in Level
            if counts[level]
        )

    @property
    def heading(self) -> str:
        """``**2026-08-08** `f26a23fab8e0` — 1 warning``."""
        date = f"**{self.revision.date.isoformat()}** " if self.revision.date else ""
        return f"{date}`{self.revision.id}` — {self.summary}"

    @property
    def breaking(self) -> bool:
        """Whether any change is a warning or an error."""
        return any(change.level is not Level.INFO for change in self.changes)


def history(index: RevisionIndex | Sequence[Revision]) -> list[RevisionChanges]:
    """The changes of every revision after the first, oldest first (empty ones included)."""
    revisions = list(index)
    return [
        RevisionChanges(new, tuple(diff_documents(old.document, new.document)))
        for old, new in zip(revisions, revisions[1:])
    ]


def for_operation(entries: Iterable[RevisionChanges], key: str) -> list[RevisionChanges]:
    """The revisions that changed the operation ``key``, each with only that operation's changes."""
    result = []
    for entry in entries:
        changes = tuple(c for c in entry.changes if ir.route(c.operation) == ir.route(key))
        if changes:
            result.append(RevisionChanges(entry.revision, changes))
    return result


def find_operation(index: RevisionIndex, key: str) -> ir.Operation:
    """The newest definition of an operation named ``"METHOD /path"`` or by its operationId."""
    for revision in reversed(index):
        operation = revision.document.operation(key)
        if operation is not None:
            return operation
    raise LookupError(f"no revision has the operation {key!r}")


def changes_section(entries: Sequence[RevisionChanges], *, limit: int | None = None) -> str:
    """The ``## Changes`` list, newest first; ``limit`` shortens each revision to that many lines."""
    lines = []
    for entry in reversed(entries):
        lines.append(f"- {entry.heading}")
        shown = entry.changes if limit is None else entry.changes[:limit]
        lines.extend(f"  - {change.message}" for change in shown)
        if len(shown) < len(entry.changes):
            lines.append(f"  - …{len(entry.changes) - len(shown)} more")
    return "\n".join(lines)


def operation_markdown(
    operation: ir.Operation, entries: Sequence[RevisionChanges], known: int
) -> str:
    """An operation's change history, in the format of the API documentation's history page."""
    title = operation.summary or operation.operation_id or operation.key
    timeline = "\n".join(f"- {entry.heading}" for entry in reversed(entries))
    parts = [
        "---",
        f'title: "Changes to {title}"',
        f"method: {operation.method.upper()}",
        f'path: "{operation.path}"',
        "---",
        "",
        f"# Changes to {title}",
        "",
        f"`{operation.key}`",
        "",
        "> Every recorded change to this endpoint, newest first.",
        "",
        "## Timeline",
        "",
        f"Changed in {len(entries)} of {known} known revisions.",
        "",
    ]
    if timeline:
        parts += [timeline, ""]
    parts += ["## Changes", ""]
    parts += [changes_section(entries) or "No recorded changes.", ""]
    parts += ["---", "", f"Built from the {known} revisions of `spec/revisions.yaml`.", ""]
    return "\n".join(parts)
