"""The table of revisions in the project README, kept between two marker lines by the generator."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..changes.versions import VersionedChanges, own_versions
from ..errors import GeneratorError

START = "<!-- revisions: start (written by `python -m generator generate`) -->"
END = "<!-- revisions: end -->"


def revision_table(
    versions: Sequence[VersionedChanges], posts: Mapping[str, int] | None = None
) -> str:
    """A markdown table: each revision, its package version (a post-release where ``posts``
    numbers one), date and changes."""
    lines = ["| revision | `together-rl` | date | changes (both operations) |", "|---|---|---|---|"]
    for entry, version in zip(versions, own_versions(versions, posts or {})):
        date = entry.revision.date.isoformat() if entry.revision.date else "unknown"
        changes = "first known revision" if entry.first else entry.counted or "none"
        lines.append(f"| `{entry.revision.id}` | {version} | {date} | {changes} |")
    return "\n".join(lines)


def with_table(text: str, table: str, *, source: str) -> str:
    """``text`` with the part between the markers replaced by ``table``."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise GeneratorError(f"{source}: the markers {START!r} and {END!r} are missing")
    return text[: start + len(START)] + "\n" + table + "\n" + text[end:]
