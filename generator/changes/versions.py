"""Package versions derived from the revision history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..reading.revisions import Revision
from . import changelog


@dataclass(frozen=True)
class VersionedChanges(changelog.RevisionChanges):
    """A revision's changes, and the package version generated from it."""

    version: str
    first: bool


def package_versions(index: Sequence[Revision]) -> list[VersionedChanges]:
    """Versions derived from the history: a warning or error bumps the major version, only info
    changes the minor, no change the patch. The first revision is 1.0.0.

    The names of ``models.py`` are changes too (:data:`generator.changes.diff.COMPONENTS`): a schema
    renamed with the same shape keeps its old name as a deprecated alias, an info change (minor);
    a schema removed where the operations still reach it is a warning (major)."""
    major, minor, patch = 1, 0, 0
    result = [VersionedChanges(index[0], (), "1.0.0", True)]
    for entry in changelog.history(index):
        if entry.breaking:
            major, minor, patch = major + 1, 0, 0
        elif entry.changes:
            minor, patch = minor + 1, 0
        else:
            patch += 1
        result.append(
            VersionedChanges(entry.revision, entry.changes, f"{major}.{minor}.{patch}", False)
        )
    return result


def own_versions(history: Sequence[VersionedChanges], posts: Mapping[str, int]) -> list[str]:
    """Each revision's own package version: derived from the history, or its post-release
    (``5.0.1.post1``) where ``posts`` numbers one. Only the package itself carries it: the
    changelogs of later packages name the version the history gives."""
    return [
        (
            f"{entry.version}.post{posts[entry.revision.id]}"
            if entry.revision.id in posts
            else entry.version
        )
        for entry in history
    ]
